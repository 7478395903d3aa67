import { retryDelayMs } from '@herald/bus';
import { ResolvedPollingOptions } from './polling-options';

/**
 * When a poller's next round runs: at once after a full batch (more is waiting),
 * after the idle delay after a partial one, and after a growing, jittered backoff
 * after consecutive failures (the next success resets it).
 */
export class RoundPacer {
  private failures = 0;

  constructor(private readonly options: ResolvedPollingOptions) {}

  afterRound(handled: number): number {
    this.failures = 0;
    return handled >= this.options.batchSize ? 0 : this.options.idleDelayMs;
  }

  afterFailure(): { readonly attempt: number; readonly delayMs: number } {
    this.failures += 1;
    return { attempt: this.failures, delayMs: retryDelayMs(this.options.retry, this.failures) };
  }
}
