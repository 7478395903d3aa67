import { EntityManager } from 'typeorm';
import { OutboxMessage } from './event-store.types';

/**
 * Writes outbox rows inside the caller's transaction: whatever the transaction
 * commits, the relay publishes; whatever it rolls back, nobody hears of. Used by
 * the event store's appends and by services that keep plain state tables
 * (management-api) but must publish their changes just as reliably.
 */
export async function writeOutbox(tx: EntityManager, outboxTable: string, messages: readonly OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  await tx.query(
    `INSERT INTO ${outboxTable} (message_id, topic, key, value, headers)
     SELECT m.message_id, m.topic, m.key, m.value, m.headers
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[]) WITH ORDINALITY
            AS m(message_id, topic, key, value, headers, ord)
      ORDER BY m.ord`,
    [
      messages.map((m) => m.messageId),
      messages.map((m) => m.topic),
      messages.map((m) => m.key),
      messages.map((m) => m.value),
      messages.map((m) => JSON.stringify(m.headers ?? {})),
    ],
  );
}
