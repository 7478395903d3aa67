import { setTimeout as delay } from 'node:timers/promises';
import { FailureKind, Send } from '../client/types';
import { isRetryable, retryDelay } from './retry-timing';

export interface RetryEvent {
  /** The attempt that failed, from 1. */
  readonly attempt: number;
  readonly kind: FailureKind;
  readonly status?: number;
  readonly delayMs: number;
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** Default 250 ms. */
  readonly baseDelayMs?: number;
  /** Ceiling of the backoff. Default 10 s. */
  readonly maxDelayMs?: number;
  /** A longer Retry-After is cut to this: a caller waiting minutes belongs on a durable timer. Default 30 s. */
  readonly maxRetryAfterMs?: number;
  readonly onRetry?: (event: RetryEvent) => void;
  readonly sleep?: (ms: number) => Promise<unknown>;
  /** Uniform in [0, 1). */
  readonly random?: () => number;
  /** Epoch ms, for Retry-After dates. */
  readonly now?: () => number;
}

/**
 * Repeats a send while it fails in a way that may pass (see isRetryable). The request
 * is sent again as it was, idempotency key included, so the receiver can dedupe.
 * `attempts` of the result counts every attempt made.
 */
export function withRetries(policy: RetryPolicy): (send: Send) => Send {
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be a positive integer, got ${policy.maxAttempts}`);
  }
  const timing = {
    baseDelayMs: policy.baseDelayMs ?? 250,
    maxDelayMs: policy.maxDelayMs ?? 10_000,
    maxRetryAfterMs: policy.maxRetryAfterMs ?? 30_000,
  };
  const sleep = policy.sleep ?? ((ms: number) => delay(ms));
  const random = policy.random ?? Math.random;
  const now = policy.now ?? Date.now;

  return (send) => async (request) => {
    let attempts = 0;
    for (let attempt = 1; ; attempt += 1) {
      const result = await send(request);
      attempts += result.attempts;
      if (result.ok || attempt >= policy.maxAttempts || !isRetryable(result.failure)) return { ...result, attempts };
      const { failure } = result;
      const delayMs = retryDelay(failure, attempt, timing, random, now());
      notify(policy.onRetry, {
        attempt,
        kind: failure.kind,
        ...(failure.kind === 'http_status' ? { status: failure.status } : {}),
        delayMs,
      });
      await sleep(delayMs);
    }
  };
}

function notify(onRetry: RetryPolicy['onRetry'], event: RetryEvent): void {
  try {
    onRetry?.(event);
  } catch {
    // A broken metrics or log hook must not stop the retries.
  }
}
