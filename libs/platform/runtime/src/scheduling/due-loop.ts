export interface DueLoopOptions {
  /** Longest sleep between rounds: the safety poll that finds what other replicas wrote since. */
  readonly longestSleepMs: number;
  /** Sleep after a round that failed (`onError` reports it). */
  readonly afterFailureMs: number;
  readonly onError: (error: unknown) => void;
}

/**
 * Runs a round of work when something is due, one round at a time, and otherwise
 * sleeps: for what the last round answered (how long until its next due row), at most
 * `longestSleepMs`. `wakeIn(ms)` brings the next round forward when this process wrote
 * something due sooner; asked during a round (which may have looked before that row was
 * written), it takes effect once the round ends. `stop()` cancels the sleep and waits
 * for the round in flight.
 *
 * For pollers that know when their next row falls due (retries, key expiry); pollers
 * woken by Postgres notifications use the event store's `PollingLoop`.
 */
export class DueLoop {
  private timer?: NodeJS.Timeout;
  /** When the pending timer fires (epoch ms). */
  private timerAt = Number.POSITIVE_INFINITY;
  /** The earliest wake-up asked for while a round ran (epoch ms). */
  private wakeAfterRound = Number.POSITIVE_INFINITY;
  private running?: Promise<void>;
  private stopped = true;

  /** `round` resolves with how long until its next row is due (ms), or undefined when nothing is. */
  constructor(
    private readonly round: () => Promise<number | undefined>,
    private readonly options: DueLoopOptions,
  ) {}

  /** The first round runs at once. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timerAt = Number.POSITIVE_INFINITY;
    await this.running;
  }

  /** A round as soon as `ms` have passed, if that is before the next one planned. */
  wakeIn(ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + Math.max(0, ms);
    if (this.running) {
      this.wakeAfterRound = Math.min(this.wakeAfterRound, at);
      return;
    }
    if (at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.schedule(at - Date.now());
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timerAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timerAt = Number.POSITIVE_INFINITY;
      this.wakeAfterRound = Number.POSITIVE_INFINITY;
      let next = this.options.afterFailureMs;
      this.running = this.round()
        .then((dueInMs) => void (next = Math.min(dueInMs ?? Number.POSITIVE_INFINITY, this.options.longestSleepMs)))
        .catch((error: unknown) => this.options.onError(error))
        .finally(() => {
          this.running = undefined;
          this.schedule(Math.max(0, Math.min(next, this.wakeAfterRound - Date.now())));
        });
    }, delayMs);
    this.timer.unref();
  }
}
