import { RetryPolicy } from '@herald/bus';

export interface PollingOptions {
  /** Most rows claimed by one round. Default 500. */
  readonly batchSize?: number;
  /** Wait after a round that found less than a full batch. Default 50 ms. */
  readonly idleDelayMs?: number;
  /** Backoff after failed rounds (exponential, jittered). Default 100 ms doubling up to 10 s. */
  readonly retry?: RetryPolicy;
}

export interface ResolvedPollingOptions {
  readonly batchSize: number;
  readonly idleDelayMs: number;
  readonly retry: RetryPolicy;
}

export function resolvePollingOptions(options: PollingOptions): ResolvedPollingOptions {
  const resolved = {
    batchSize: options.batchSize ?? 500,
    idleDelayMs: options.idleDelayMs ?? 50,
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
