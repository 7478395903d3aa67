import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { InProcessBus } from '@herald/bus';
import { HeraldLogger, loadHeraldConfig } from '@herald/runtime';
import { databaseTargets, expectEventually, uniqueName } from '@herald/testing';
import { openEngineDatabase } from '../testing/repository-database';
import { EngineEventStoreRepository } from './engine-event-store.repository';

describe.each(databaseTargets())('the engine\'s event store repository ($kind)', (target) => {
  let db: DataSource;
  let close: () => Promise<void>;
  let eventStore: EngineEventStoreRepository;
  let bus: InProcessBus;
  let topic: string;
  const published: Array<{ key: string; value: string }> = [];

  beforeAll(async () => {
    ({ db, close } = await openEngineDatabase(target));
    eventStore = new EngineEventStoreRepository(db);
    bus = new InProcessBus();
    topic = uniqueName('engine.out');
    await bus.ensureTopics([{ name: topic, partitions: 1 }]);
    await bus.subscribe({
      groupId: uniqueName('reader'),
      topics: [topic],
      handler: async (message) => {
        published.push({ key: message.key, value: message.value.toString() });
      },
    });
  });
  afterAll(async () => {
    await bus?.close();
    await close?.();
  });

  const quiet = (): void => undefined;

  it('keeps the streams in the engine schema: an append is read back in order, and a stale expected position is refused', async () => {
    const streamId = `run-${randomUUID()}`;
    await eventStore.streams.append({ streamId, expectedPosition: 0, events: [{ type: 'run.started.v1', data: { n: 1 } }, { type: 'run.admitted.v1', data: { n: 2 } }] });

    expect((await eventStore.streams.readStream(streamId)).map((e) => [e.position, e.type, e.data])).toEqual([
      [1, 'run.started.v1', { n: 1 }],
      [2, 'run.admitted.v1', { n: 2 }],
    ]);
    await expect(eventStore.streams.append({ streamId, expectedPosition: 0, events: [{ type: 'run.started.v1', data: {} }] })).rejects.toThrow();
    const [row] = await db.query<Array<{ events: number }>>(`SELECT count(*)::int AS events FROM engine.stream_events WHERE stream_id = $1`, [streamId]);
    expect(row.events).toBe(2);
  });

  it('polls the engine\'s timers: one due is published and deleted, one not yet due stays', async () => {
    const streamId = `run-${randomUUID()}`;
    const due = uniqueName('due');
    const later = uniqueName('later');
    await eventStore.streams.append({
      streamId,
      expectedPosition: 0,
      events: [{ type: 'delay.started.v1', data: {} }],
      timers: [
        { timerId: due, dueAt: new Date(Date.now() - 1_000), topic, key: streamId, value: 'timer due' },
        { timerId: later, dueAt: new Date(Date.now() + 3_600_000), topic, key: streamId, value: 'timer later' },
      ],
    });
    const poller = eventStore.timerPoller(bus, quiet);
    poller.start();
    try {
      await expectEventually(async () => expect(published).toContainEqual({ key: streamId, value: 'timer due' }));
    } finally {
      await poller.stop();
    }
    expect(published).not.toContainEqual({ key: streamId, value: 'timer later' });
    const timers = await db.query<Array<{ timer_id: string }>>(`SELECT timer_id FROM engine.timers WHERE timer_id = ANY($1)`, [[due, later]]);
    expect(timers).toEqual([{ timer_id: later }]);
  });

  it('relays the engine\'s outbox: a message an append wrote is published and its row deleted', async () => {
    const streamId = `run-${randomUUID()}`;
    await eventStore.streams.append({
      streamId,
      expectedPosition: 0,
      events: [{ type: 'delivery.requested.v1', data: {} }],
      outbox: [{ messageId: uniqueName('m'), topic, key: streamId, value: 'delivery command' }],
    });
    const relay = eventStore.startOutboxRelay({
      bus,
      logger: new HeraldLogger('workflow-engine', 'error', { write: () => undefined }),
      config: loadHeraldConfig({}),
      metrics: new Registry(),
    });
    try {
      await expectEventually(async () => expect(published).toContainEqual({ key: streamId, value: 'delivery command' }));
    } finally {
      await relay.stop();
    }
    const [row] = await db.query<Array<{ rows: number }>>(`SELECT count(*)::int AS rows FROM engine.outbox WHERE key = $1`, [streamId]);
    expect(row.rows).toBe(0);
  });
});
