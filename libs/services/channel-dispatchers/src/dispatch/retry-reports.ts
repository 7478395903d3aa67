import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { ClaimedDelivery, DISPATCH_OUTBOX } from './delivery-ledger';
import { OutcomeFields, outcomeMessage } from './outcome-message';

/**
 * Reports an attempt that failed and will be retried (`retrying`, with the attempt, the
 * reason and the next try), so the message log shows a delivery in trouble instead of
 * a bare `triggered`. Through the outbox like the final outcome, with an id per attempt;
 * only informative: the final outcome does not depend on it.
 */
@Injectable()
export class RetryReports {
  constructor(
    @InjectDataSource('dispatch') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** `fields`: the decider's `retrying` report of the attempt. */
  async scheduled(delivery: ClaimedDelivery, fields: OutcomeFields): Promise<void> {
    await writeOutbox(this.db.manager, DISPATCH_OUTBOX, [outcomeMessage(delivery, fields, this.clock.now(), 'retrying', String(delivery.attempts))]);
  }
}
