/** Timing of retries and recovery; the defaults suit production, tests shorten them. */
export interface DispatchOptions {
  /** Delay before the first retry; doubles per attempt. */
  readonly initialRetryDelayMs: number;
  readonly maxRetryDelayMs: number;
  /** Attempts (each over all vendors by priority) before a retryable failure becomes final. */
  readonly maxAttempts: number;
  /**
   * The longest the retry poller sleeps (its safety poll). It sleeps until the earliest
   * due retry or lease end it knows of, woken sooner by this process's own retries and
   * claims; this bounds how late it sees those another replica wrote since.
   */
  readonly pollIntervalMs: number;
  /**
   * A claim is a lease of this length, renewed by its live owner: one that runs out
   * belongs to an attempt that died. Bounds how long a crash delays a delivery.
   */
  readonly leaseMs: number;
  /** How often a dispatcher renews the leases of all its claims (one statement); well under `leaseMs`. */
  readonly leaseRenewIntervalMs: number;
  /**
   * Deliveries of one channel admitted from the bus and not yet recorded; a command
   * beyond it waits (its partition with it) until one is recorded.
   */
  readonly maxInFlightPerChannel: number;
  /** Calls in flight to one vendor configuration at once. */
  readonly maxCallsPerVendor: number;
}

export const DEFAULT_DISPATCH_OPTIONS: DispatchOptions = {
  initialRetryDelayMs: 5_000,
  maxRetryDelayMs: 10 * 60_000,
  maxAttempts: 6,
  // One lease: a dead replica's claim whose command does not come back is resolved within two.
  pollIntervalMs: 10_000,
  // Four renewals per lease: a renewal may fail or stall a few seconds (a busy database,
  // a GC pause) before a live owner's claim could be taken over.
  leaseMs: 10_000,
  leaseRenewIntervalMs: 2_500,
  maxInFlightPerChannel: 256,
  maxCallsPerVendor: 64,
};

export const DISPATCH_OPTIONS = Symbol('DISPATCH_OPTIONS');

/**
 * Exponential backoff with equal jitter: half the doubled delay, plus a random part of
 * the other half. Never near zero (a vendor that just failed gets a real pause), and
 * spread, so failures of one vendor outage do not retry in lockstep.
 */
export function retryDelayMs(options: Pick<DispatchOptions, 'initialRetryDelayMs' | 'maxRetryDelayMs'>, attempt: number, random: number): number {
  const exponential = Math.min(options.maxRetryDelayMs, options.initialRetryDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (exponential / 2) * random);
}
