import { OutboundFailure } from '../client/types';

export interface RetryTiming {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
}

/**
 * Worth another attempt: the network, a timeout, an overloaded or failing server.
 * Another 4xx would be answered the same; a blocked address stays blocked; a body
 * too large stays too large.
 */
export function isRetryable(failure: OutboundFailure): boolean {
  switch (failure.kind) {
    case 'network':
    case 'timeout':
      return true;
    case 'http_status':
      return failure.status >= 500 || failure.status === 429;
    default:
      return false;
  }
}

/** Retry-After (RFC 9110 §10.2.3) as a delay: delta seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form starts with the day name; Date.parse alone would take "1.5" or "-1" for dates.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Exponential backoff with full jitter: uniform in [0, min(max, base·2^(attempt-1))). */
export function backoffDelay(attempt: number, timing: RetryTiming, random: () => number): number {
  const ceiling = Math.min(timing.maxDelayMs, timing.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/** The wait before the attempt after `attempt`: the server's Retry-After (capped) when it sent one. */
export function retryDelay(failure: OutboundFailure, attempt: number, timing: RetryTiming, random: () => number, nowMs: number): number {
  const retryAfter = failure.kind === 'http_status' ? parseRetryAfter(failure.response.headers['retry-after'], nowMs) : undefined;
  if (retryAfter !== undefined) return Math.min(retryAfter, timing.maxRetryAfterMs);
  return backoffDelay(attempt, timing, random);
}
