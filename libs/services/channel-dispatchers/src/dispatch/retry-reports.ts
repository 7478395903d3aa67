import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { ClaimedDelivery, DISPATCH_OUTBOX } from './delivery-ledger';
import { outcomeMessage } from './outcome-message';

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

  async scheduled(delivery: ClaimedDelivery, delayMs: number, reason: string): Promise<void> {
    const now = this.clock.now();
    const fields = {
      status: 'retrying' as const,
      attempts: delivery.attempts,
      next_attempt_at: new Date(now.getTime() + delayMs).toISOString(),
      error: { message: reason, retryable: true },
    };
    await writeOutbox(this.db.manager, DISPATCH_OUTBOX, [outcomeMessage(delivery, fields, now, 'retrying', String(delivery.attempts))]);
  }
}
