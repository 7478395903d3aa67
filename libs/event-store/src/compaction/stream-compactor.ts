import { retryDelayMs, RetryPolicy } from '@herald/bus';
import { EventStore } from '../event-store';
import { EventStoreLogger } from '../event-store-logger';
import { PollingLoop } from '../polling/polling-loop';
import { errorMessage } from '../polling/polling-options';
import { Serial } from '../polling/serial';

export interface StreamCompactorOptions {
  /** Wait between passes. Default 60 s. */
  readonly intervalMs?: number;
  /** Most events deleted by one statement; a pass repeats it until less than that is left. Default 1000. */
  readonly batchSize?: number;
  /** Covered events younger than this stay. Default 0. */
  readonly minAgeMs?: number;
  /** Backoff after failed batches. Default 1 s doubling up to the interval. */
  readonly retry?: RetryPolicy;
}

/**
 * Deletes the events that stream snapshots replaced (EventStore.compact), in bounded
 * batches, one pass every interval. Any number of replicas may run one: SKIP LOCKED
 * splits the work. A failed batch is logged and retried later; nothing is lost by
 * compacting late.
 */
export class StreamCompactor {
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly minAgeMs: number;
  private readonly retry: RetryPolicy;
  private readonly loop = new PollingLoop(() => this.tick());
  private readonly serial = new Serial();
  private deletedThisPass = 0;
  private failures = 0;

  constructor(
    private readonly store: EventStore,
    private readonly log: EventStoreLogger,
    options: StreamCompactorOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.batchSize = options.batchSize ?? 1000;
    this.minAgeMs = options.minAgeMs ?? 0;
    this.retry = options.retry ?? { initialDelayMs: 1000, maxDelayMs: this.intervalMs };
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${this.batchSize}`);
  }

  start(): void {
    this.loop.start();
  }

  /** Stops once the batch in flight has committed or rolled back. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.serial.drain();
  }

  /** One batch; resolves with the number of events deleted. */
  compactOnce(): Promise<number> {
    return this.serial.run(() => this.store.compact({ limit: this.batchSize, minAgeMs: this.minAgeMs }));
  }

  /** One batch per tick, so `stop()` never waits for a whole pass; a full batch goes on at once. */
  private async tick(): Promise<number> {
    try {
      const deleted = await this.compactOnce();
      this.failures = 0;
      this.deletedThisPass += deleted;
      if (deleted >= this.batchSize) return 0;
      if (this.deletedThisPass > 0) this.log('info', 'compacted streams: deleted events their snapshots replaced', { deleted: this.deletedThisPass });
      this.deletedThisPass = 0;
      return this.intervalMs;
    } catch (error) {
      this.failures += 1;
      const delayMs = retryDelayMs(this.retry, this.failures);
      this.log('warn', 'stream compaction failed; it is retried later', { attempt: this.failures, retry_in_ms: delayMs, error: errorMessage(error) });
      return delayMs;
    }
  }
}
