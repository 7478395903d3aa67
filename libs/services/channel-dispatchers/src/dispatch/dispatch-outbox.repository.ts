import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OutboxMessage, eventStoreTables, writeOutbox } from '@herald/event-store';

/** `dispatch.outbox`: what the dispatchers announce, published by DispatchOutboxRelay. */
export const DISPATCH_OUTBOX = eventStoreTables('dispatch').outbox;

/**
 * Messages written to the dispatch outbox on their own, in no other change's transaction
 * (an attempt's `retrying` report). A message that goes with a change is written in that
 * change's transaction or statement by the change's repository.
 */
@Injectable()
export class DispatchOutboxRepository {
  constructor(@InjectDataSource('dispatch') private readonly db: DataSource) {}

  /** Writes the messages, in order, in one statement (none: no statement). */
  async write(messages: readonly OutboxMessage[]): Promise<void> {
    await writeOutbox(this.db.manager, DISPATCH_OUTBOX, messages);
  }
}
