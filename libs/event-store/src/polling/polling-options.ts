import { RetryPolicy } from '@herald/bus';

export interface PollingOptions {
  /** Most rows claimed by one round. Default 500. */
  readonly batchSize?: number;
  /** Wait after a round that found less than a full batch, while no wake-up can arrive (LISTEN is down). Default 50 ms. */
  readonly idleDelayMs?: number;
  /**
   * Wait after such a round while a wake-up can arrive (the triggers NOTIFY at commit):
   * a safety poll only. Postgres delivers every notification to a listening session, and
   * the listener wakes everyone when it (re)connects, so this only bounds what an
   * unforeseen miss could delay. Default 30 s.
   */
  readonly safetyPollMs?: number;
  /** Backoff after failed rounds (exponential, jittered). Default 100 ms doubling up to 10 s. */
  readonly retry?: RetryPolicy;
}

export interface ResolvedPollingOptions {
  readonly batchSize: number;
  readonly idleDelayMs: number;
  readonly safetyPollMs: number;
  readonly retry: RetryPolicy;
}

export function resolvePollingOptions(options: PollingOptions): ResolvedPollingOptions {
  const resolved = {
    batchSize: options.batchSize ?? 500,
    idleDelayMs: options.idleDelayMs ?? 50,
    safetyPollMs: options.safetyPollMs ?? 30_000,
    retry: options.retry ?? { initialDelayMs: 100, maxDelayMs: 10_000 },
  };
  if (!Number.isInteger(resolved.batchSize) || resolved.batchSize < 1) {
    throw new Error(`batchSize must be a positive integer, got ${resolved.batchSize}`);
  }
  return resolved;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
