import { CanActivate, Inject, Injectable } from '@nestjs/common';
import { RetryLaterError } from '@herald/contracts';
import type { BusBacklog } from '@herald/bus';
import { BUS_BACKLOG, HERALD_CONFIG, HERALD_LOGGER, HeraldConfig, HeraldLogger } from '@herald/runtime';

/** What a refused client is told to wait: the consumers drain thousands of messages a second, so a short wait is enough to recheck. */
export const PUSH_BACK_RETRY_AFTER_SECONDS = 1;
/**
 * Summing the backlog walks every group's partitions; under load one reading serves the
 * requests of the next few milliseconds (the bound may be passed by that much).
 */
const READING_VALID_MS = 10;

/**
 * Embedded push-back: the in-process bus keeps what its consumers have not handled yet in
 * this process's memory, so when that backlog passes `HERALD_INGEST_MAX_BACKLOG` messages
 * or `HERALD_INGEST_MAX_BACKLOG_BYTES` bytes (a trigger chunk is one message of up to 100
 * recipients, so the count alone does not bound memory) the HTTP doors answer 429 with Retry-After and accept nothing, rather than answer 202
 * faster than the workflow engine and dispatchers drain. What was accepted before is in
 * the bus journal and is delivered. On Kafka (no `BusBacklog`) it lets everything through:
 * the backlog sits on the broker's disk, not in any process (docs/architecture.md).
 * The Kafka ingress is not guarded: its consumer only reads as fast as it accepts.
 */
@Injectable()
export class BacklogPushBack implements CanActivate {
  private readAt = Number.NEGATIVE_INFINITY;
  private unconsumed = 0;
  private unconsumedBytes = 0;
  private pushingBack = false;

  constructor(
    @Inject(BUS_BACKLOG) private readonly backlog: BusBacklog | null,
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  canActivate(): boolean {
    if (this.backlog === null) return true;
    const now = Date.now();
    if (now - this.readAt >= READING_VALID_MS) {
      this.unconsumed = this.backlog.unconsumedMessages();
      this.unconsumedBytes = this.unconsumed === 0 ? 0 : this.backlog.unconsumedBytes();
      this.readAt = now;
    }
    const over = this.unconsumed >= this.config.ingestMaxBacklog || this.unconsumedBytes >= this.config.ingestMaxBacklogBytes;
    if (over !== this.pushingBack) {
      this.pushingBack = over;
      const fields = {
        unconsumed: this.unconsumed,
        bound: this.config.ingestMaxBacklog,
        unconsumedBytes: this.unconsumedBytes,
        boundBytes: this.config.ingestMaxBacklogBytes,
        behind: Object.fromEntries(this.backlog.unconsumedByGroup()),
      };
      if (over) this.logger.warn('backlog passed its bound; answering 429 until the consumers catch up', fields);
      else this.logger.info('backlog back under its bound; accepting again', fields);
    }
    if (over) {
      throw new RetryLaterError(
        `Herald is behind (${this.unconsumed} messages, ${this.unconsumedBytes} bytes not yet processed; bounds ${this.config.ingestMaxBacklog} messages, ${this.config.ingestMaxBacklogBytes} bytes); nothing was accepted, retry after ${PUSH_BACK_RETRY_AFTER_SECONDS} s`,
        PUSH_BACK_RETRY_AFTER_SECONDS,
      );
    }
    return true;
  }
}
