import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { OutboxMessage } from '@herald/event-store';
import { databaseTargets } from '@herald/testing';
import { openDispatchDatabase } from '../testing/repository-database';
import { DISPATCH_OUTBOX, DispatchOutboxRepository } from './dispatch-outbox.repository';

describe.each(databaseTargets())('the dispatch outbox repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let outbox: DispatchOutboxRepository;

  beforeAll(async () => {
    const opened = await openDispatchDatabase(target);
    db = opened.db;
    dispose = opened.close;
    outbox = new DispatchOutboxRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const rows = async (): Promise<Array<{ message_id: string; topic: string; key: string; value: string; headers: Record<string, string> }>> =>
    db.query(`SELECT message_id, topic, key, value, headers FROM ${DISPATCH_OUTBOX} ORDER BY id`);
  const message = (attempt: string, headers?: Record<string, string>): OutboxMessage => ({
    messageId: randomUUID(),
    topic: 'notify.delivery.outcome.v1',
    key: 'workspace:ada',
    value: JSON.stringify({ status: 'retrying', attempt }),
    ...(headers ? { headers } : {}),
  });

  it('writes messages for the relay, in order, with their headers (none: an empty object)', async () => {
    const first = message('1', { 'message-id': 'm-1' });
    const second = message('2');
    await outbox.write([first, second]);
    expect(await rows()).toEqual([
      { message_id: first.messageId, topic: first.topic, key: first.key, value: first.value, headers: { 'message-id': 'm-1' } },
      { message_id: second.messageId, topic: second.topic, key: second.key, value: second.value, headers: {} },
    ]);
  });

  it('writes nothing for no messages', async () => {
    const before = (await rows()).length;
    await outbox.write([]);
    expect(await rows()).toHaveLength(before);
  });
});
