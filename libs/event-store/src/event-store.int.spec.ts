import { migrateSchema } from '@herald/database';
import { databaseTargets, describeTarget, uniqueName } from '@herald/testing';
import { EventStore } from './event-store';
import { NewEvent } from './event-store.types';
import { StreamConflictError } from './stream-conflict.error';
import { EventStoreTestDatabase } from './testing/event-store-test-database';

function events(...types: string[]): NewEvent[] {
  return types.map((type, i) => ({ type, data: { n: i } }));
}

describe.each(databaseTargets())('EventStore on $kind', (target) => {
  let db: EventStoreTestDatabase;
  let store: EventStore;

  beforeAll(async () => {
    db = await EventStoreTestDatabase.open(target);
    store = new EventStore(db.dataSource, db.schema);
  });
  afterAll(async () => {
    await db?.dispose();
  });
  afterEach(async () => {
    await db.clearOutboxAndTimers();
  });

  it(`migrates its tables on ${describeTarget(target)}, once`, async () => {
    expect(db.migrationReport.applied).toEqual([
      'CreateStreamEvents1763700100000',
      'CreateOutbox1763700200000',
      'CreateTimers1763700300000',
      'CreateStreamSnapshots1764300000000',
      'ParkOutboxRows1764900000000',
      'ShareOutboxBySlot1766600000000',
      'WakeTimerPollers1766600100000',
      'TimersClaimOrder1766700000000',
      'StreamEventsWithoutGlobalPosition1766800000000',
      'OutboxWakeNamesItsWriter1766900000000',
      'LostRacesRefusal1767000000000',
    ]);
    expect(await migrateSchema(db.dataSource, db.schema)).toEqual({ schema: db.schema, applied: [] });
  });

  it('reads back what it appended, in order, from any position', async () => {
    const streamId = uniqueName('run');
    const first = await store.append({
      streamId,
      expectedPosition: 0,
      events: [
        { type: 'run.started', data: { workflow: 'welcome', version: 3 }, metadata: { trigger_id: 't-1' } },
        { type: 'node.entered', data: { node: 'delay-1' } },
      ],
    });
    const second = await store.append({ streamId, expectedPosition: first.position, events: events('timer.fired') });

    expect(first).toEqual({ position: 2 });
    expect(second).toEqual({ position: 3 });
    const stream = await store.readStream(streamId);
    expect(stream.map(({ recordedAt: _, ...rest }) => rest)).toEqual([
      { streamId, position: 1, type: 'run.started', data: { workflow: 'welcome', version: 3 }, metadata: { trigger_id: 't-1' } },
      { streamId, position: 2, type: 'node.entered', data: { node: 'delay-1' }, metadata: {} },
      { streamId, position: 3, type: 'timer.fired', data: { n: 0 }, metadata: {} },
    ]);
    expect(stream.every((e) => e.recordedAt instanceof Date)).toBe(true);
    expect((await store.readStream(streamId, 2)).map((e) => e.position)).toEqual([3]);
    expect(await store.readStream(uniqueName('run'))).toEqual([]);
  });

  it('appends a batch of events with its outbox messages and timers in one go', async () => {
    const streamId = uniqueName('run');
    const dueAt = new Date(Date.now() + 60_000);
    const result = await store.append({
      streamId,
      expectedPosition: 0,
      events: Array.from({ length: 10 }, (_, i) => ({ type: 'step', data: { i, text: 'quote " and \\ backslash' } })),
      outbox: [
        { messageId: 'm-1', topic: 't', key: 'ws:u1', value: '{"a":1}', headers: { 'x-trace': 'abc' } },
        { messageId: 'm-2', topic: 't', key: 'ws:u1', value: '{"a":2}' },
      ],
      timers: [{ timerId: `${streamId}:delay`, dueAt, topic: 'timers', key: 'ws:u1', value: '{"fire":true}' }],
    });

    expect(result).toEqual({ position: 10 });
    const stream = await store.readStream(streamId);
    expect(stream.map((e) => e.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(stream[9].data).toEqual({ i: 9, text: 'quote " and \\ backslash' });
    expect(await db.dataSource.query(`SELECT message_id, topic, key, value, headers FROM "${db.schema}".outbox ORDER BY id`)).toEqual([
      { message_id: 'm-1', topic: 't', key: 'ws:u1', value: '{"a":1}', headers: { 'x-trace': 'abc' } },
      { message_id: 'm-2', topic: 't', key: 'ws:u1', value: '{"a":2}', headers: {} },
    ]);
    const [timer] = await db.dataSource.query(`SELECT timer_id, stream_id, due_at, value FROM "${db.schema}".timers`);
    expect(timer).toEqual({ timer_id: `${streamId}:delay`, stream_id: streamId, due_at: dueAt, value: '{"fire":true}' });
  });

  it('lets exactly one of several concurrent appends at the same position win; the others conflict and write nothing', async () => {
    const streamId = uniqueName('run');
    await store.append({ streamId, expectedPosition: 0, events: events('run.started') });
    // Separate data sources, as separate engine replicas would race.
    const replicas = [store, ...(await Promise.all([db.connect(), db.connect()])).map((s) => new EventStore(s, db.schema))];

    const outcomes = await Promise.allSettled(
      [0, 1, 2, 3, 4, 5].map((i) =>
        replicas[i % replicas.length].append({
          streamId,
          expectedPosition: 1,
          events: events(`decision-${i}.a`, `decision-${i}.b`),
          outbox: [{ messageId: `${streamId}:m${i}`, topic: 't', key: 'k', value: '{}' }],
          timers: [{ timerId: `${streamId}:t${i}`, dueAt: new Date(), topic: 't', key: 'k', value: '{}' }],
        }),
      ),
    );

    const winners = outcomes.filter((o) => o.status === 'fulfilled');
    const losers = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(5);
    for (const loser of losers) {
      expect(loser).toBeInstanceOf(StreamConflictError);
      expect(loser).toMatchObject({ code: 'stream_conflict', streamId, expectedPosition: 1 });
    }
    const stream = await store.readStream(streamId);
    expect(stream.map((e) => e.position)).toEqual([1, 2, 3]);
    const winner = stream[1].type.split('.')[0];
    expect(stream.map((e) => e.type)).toEqual(['run.started', `${winner}.a`, `${winner}.b`]);
    expect(await db.count('outbox')).toBe(1);
    expect(await db.count('timers')).toBe(1);
  });

  it('refuses an expected position ahead of the stream, so the stream never has a gap', async () => {
    const streamId = uniqueName('run');
    await store.append({ streamId, expectedPosition: 0, events: events('run.started') });

    await expect(store.append({ streamId, expectedPosition: 5, events: events('x') })).rejects.toMatchObject({
      code: 'stream_conflict',
      streamId,
      expectedPosition: 5,
    });
    await expect(store.append({ streamId: uniqueName('run'), expectedPosition: 1, events: events('x') })).rejects.toBeInstanceOf(
      StreamConflictError,
    );
    expect((await store.readStream(streamId)).map((e) => e.position)).toEqual([1]);
  });

  it('has the database refuse UPDATE, DELETE and TRUNCATE on the log', async () => {
    const streamId = uniqueName('run');
    await store.append({ streamId, expectedPosition: 0, events: events('run.started', 'run.completed') });
    const table = `"${db.schema}".stream_events`;

    await expect(db.dataSource.query(`UPDATE ${table} SET type = 'tampered' WHERE stream_id = $1`, [streamId])).rejects.toThrow(
      /append-only: UPDATE refused/,
    );
    await expect(db.dataSource.query(`DELETE FROM ${table} WHERE stream_id = $1`, [streamId])).rejects.toThrow(
      /append-only: DELETE refused/,
    );
    await expect(db.dataSource.query(`TRUNCATE ${table}`)).rejects.toThrow(/append-only: TRUNCATE refused/);
    expect((await store.readStream(streamId)).map((e) => e.type)).toEqual(['run.started', 'run.completed']);
  });

  it('cancels timers of the stream in the same append, and only those', async () => {
    const streamId = uniqueName('run');
    const otherStream = uniqueName('run');
    const later = new Date(Date.now() + 3_600_000);
    const timer = (timerId: string, dueAt = later) => ({ timerId, dueAt, topic: 't', key: 'k', value: timerId });
    await store.append({ streamId, expectedPosition: 0, events: events('scheduled'), timers: [timer('a'), timer('b'), timer('c')] });
    await store.append({ streamId: otherStream, expectedPosition: 0, events: events('scheduled'), timers: [timer('other')] });

    await store.append({
      streamId,
      expectedPosition: 1,
      events: events('cancelled', 'rescheduled'),
      // 'c' moves by reusing its id; 'other' belongs to another stream and stays.
      cancelTimerIds: ['a', 'c', 'other', 'unknown'],
      timers: [timer('c', new Date(later.getTime() + 60_000))],
    });

    const rows: Array<{ timer_id: string; due_at: Date }> = await db.dataSource.query(
      `SELECT timer_id, due_at FROM "${db.schema}".timers ORDER BY timer_id`,
    );
    expect(rows).toEqual([
      { timer_id: 'b', due_at: later },
      { timer_id: 'c', due_at: new Date(later.getTime() + 60_000) },
      { timer_id: 'other', due_at: later },
    ]);
  });
});
