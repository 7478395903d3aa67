/** Timing and limits of the status webhook sender; the defaults suit production, tests shorten them. */
export interface StatusWebhookOptions {
  /** Delay before the first retry of a failed attempt; doubles per attempt (with jitter). */
  readonly initialRetryDelayMs: number;
  readonly maxRetryDelayMs: number;
  /** Attempts before a delivery is dead-lettered (`dead`); later events of its message then go on. */
  readonly maxAttempts: number;
  /** One request: connect, send, the answer. */
  readonly requestTimeoutMs: number;
  /**
   * A claimed delivery is this process's for this long. Longer than a request, so only a
   * claim whose process died (kill -9) runs out and is sent again by whoever claims next.
   */
  readonly leaseMs: number;
  /** Deliveries claimed and sent per round (concurrently); a full round is followed at once by the next. */
  readonly batchSize: number;
  /** The longest the sender sleeps: how late it sees deliveries another replica queued or scheduled. */
  readonly pollIntervalMs: number;
}

export const DEFAULT_STATUS_WEBHOOK_OPTIONS: StatusWebhookOptions = {
  initialRetryDelayMs: 5_000,
  maxRetryDelayMs: 60 * 60_000,
  // 5 s doubling to an hour: about 24 hours of retries.
  maxAttempts: 30,
  requestTimeoutMs: 15_000,
  leaseMs: 30_000,
  batchSize: 64,
  pollIntervalMs: 5_000,
};

export const STATUS_WEBHOOK_OPTIONS = Symbol('STATUS_WEBHOOK_OPTIONS');
