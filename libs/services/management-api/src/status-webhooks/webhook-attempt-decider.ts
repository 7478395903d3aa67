import { StatusWebhookOptions } from './status-webhook-options';

/** What one HTTP attempt of a webhook delivery came to. */
export type AttemptResult =
  | { readonly ok: true; readonly statusCode: number }
  | { readonly ok: false; readonly statusCode?: number; readonly error: string };

/** What the delivery becomes after the attempt. */
export type AttemptDecision =
  | { readonly state: 'delivered' }
  | { readonly state: 'pending'; readonly retryInMs: number }
  | { readonly state: 'dead' };

/**
 * Pure: a 2xx delivers; anything else (an error status, a refused or blocked address, a
 * timeout) is tried again with exponential backoff and equal jitter (`random` in [0, 1)),
 * until `attempt` reaches `maxAttempts`, and the delivery is dead-lettered. Every failure
 * is retried alike: a receiver's 4xx is often a deploy in progress, and a dead delivery
 * can be replayed once it is fixed.
 */
export function decideAttempt(
  result: AttemptResult,
  attempt: number,
  options: Pick<StatusWebhookOptions, 'initialRetryDelayMs' | 'maxRetryDelayMs' | 'maxAttempts'>,
  random: number,
): AttemptDecision {
  if (result.ok) return { state: 'delivered' };
  if (attempt >= options.maxAttempts) return { state: 'dead' };
  const exponential = Math.min(options.maxRetryDelayMs, options.initialRetryDelayMs * 2 ** Math.max(0, attempt - 1));
  return { state: 'pending', retryInMs: Math.round(exponential / 2 + (exponential / 2) * random) };
}
