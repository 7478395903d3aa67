import { retryDelayMs } from '@herald/bus';
import { ResolvedPollingOptions } from './polling-options';

/**
 * When a poller's next round runs: at once when more is waiting, after a growing,
 * jittered backoff after consecutive failures (the next success resets it), and
 * otherwise after the idle delay, or only the safety poll when a wake-up can arrive.
 */
export class RoundPacer {
  private failures = 0;

  constructor(private readonly options: ResolvedPollingOptions) {}

  /** Whether the last round failed: a wake-up must not cut its backoff short. */
  get failing(): boolean {
    return this.failures > 0;
  }

  afterRound(moreWaiting: boolean, listening: boolean): number {
    this.failures = 0;
    if (moreWaiting) return 0;
    return listening ? this.options.safetyPollMs : this.options.idleDelayMs;
  }

  afterFailure(): { readonly attempt: number; readonly delayMs: number } {
    this.failures += 1;
    return { attempt: this.failures, delayMs: retryDelayMs(this.options.retry, this.failures) };
  }
}
