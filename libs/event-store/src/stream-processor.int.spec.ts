import { Decider } from '@herald/decider';
import { databaseTargets } from '@herald/testing';
import { EventStore } from './event-store';
import { StreamCodec, StreamProcessor } from './stream-processor';
import { EventStoreTestDatabase } from './testing/event-store-test-database';

/** A toy stream: add amounts, once per input id; at 10 or more it schedules a timer and sends a message. */
type Input = { readonly id: string; readonly amount: number };
type Event = { readonly type: 'added'; readonly id: string; readonly amount: number } | { readonly type: 'reached_ten' };
interface State {
  readonly total: number;
  readonly seen: readonly string[];
  readonly reached: boolean;
}

const counter: Decider<Input, Event, State> = {
  initialState: () => ({ total: 0, seen: [], reached: false }),
  evolve: (state, event) =>
    event.type === 'added' ? { ...state, total: state.total + event.amount, seen: [...state.seen, event.id] } : { ...state, reached: true },
  decide: (input, state) => {
    if (state.seen.includes(input.id)) return [];
    const added: Event = { type: 'added', id: input.id, amount: input.amount };
    return !state.reached && state.total + input.amount >= 10 ? [added, { type: 'reached_ten' }] : [added];
  },
};

const codec: StreamCodec<Event> = { toStored: (e) => ({ type: e.type, data: e }), fromStored: (r) => r.data as Event };

describe.each(databaseTargets())('StreamProcessor ($kind)', (target) => {
  let db: EventStoreTestDatabase;
  let processor: StreamProcessor<Input, Event, State>;
  let second: StreamProcessor<Input, Event, State>;

  beforeAll(async () => {
    db = await EventStoreTestDatabase.open(target);
    const make = (store: EventStore): StreamProcessor<Input, Event, State> =>
      new StreamProcessor(
        store,
        counter,
        codec,
        (events, _before, after, streamId) =>
          events.some((e) => e.type === 'reached_ten')
            ? {
                outbox: [{ messageId: `${streamId}:ten`, topic: 't', key: streamId, value: JSON.stringify({ total: after.total }) }],
                timers: [{ timerId: `${streamId}:later`, dueAt: new Date(Date.now() + 60_000), topic: 't', key: streamId, value: '{}' }],
              }
            : {},
      );
    processor = make(new EventStore(db.dataSource, db.schema));
    second = make(new EventStore(await db.connect(), db.schema));
  });
  afterAll(() => db?.dispose());

  it('rebuilds the state from the stream, appends what the decider decided with its effects, and ignores a repeated input', async () => {
    const now = new Date();
    expect((await processor.process('s1', { id: 'a', amount: 4 }, now)).state.total).toBe(4);
    const step = await processor.process('s1', { id: 'b', amount: 7 }, now);
    expect(step).toMatchObject({ events: [{ type: 'added' }, { type: 'reached_ten' }], state: { total: 11, reached: true }, position: 3 });
    expect(await processor.process('s1', { id: 'b', amount: 7 }, now)).toMatchObject({ events: [], position: 3 });
    expect(await db.count('outbox')).toBe(1);
    expect(await db.count('timers')).toBe(1);
  });

  it('decides again when another writer appended first, so concurrent inputs all count once', async () => {
    const inputs = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, amount: 1 }));
    const steps = await Promise.all(inputs.map((input, i) => (i % 2 === 0 ? processor : second).process('s2', input, new Date())));
    const final = await processor.process('s2', { id: 'last', amount: 0 }, new Date());
    expect(final.state.total).toBe(12);
    expect(final.state.seen).toHaveLength(13);
    expect(new Set(final.state.seen).size).toBe(13);
    // reached_ten was decided exactly once, whichever writer crossed 10.
    const stream = await new EventStore(db.dataSource, db.schema).readStream('s2');
    expect(stream.filter((e) => e.type === 'reached_ten')).toHaveLength(1);
    // The race was real: some appends lost and were decided again.
    expect(steps.reduce((sum, s) => sum + s.conflicts, 0)).toBeGreaterThan(0);
  });

  it("appends the input's events and its follow-ups' in one append, and follows up a waiting state even when the input decides nothing", async () => {
    // The follow-up plays another stream's answer: below 10 it tops the total up to 10.
    const asked: number[] = [];
    const topUp = async (state: State): Promise<Input | undefined> => {
      asked.push(state.total);
      return state.total < 10 ? { id: `top-up-${state.total}`, amount: 10 - state.total } : undefined;
    };
    const store = new EventStore(db.dataSource, db.schema);
    const step = await processor.process('s3', { id: 'a', amount: 3 }, new Date(), topUp);
    expect(step).toMatchObject({ events: [{ type: 'added', id: 'a' }, { type: 'added', id: 'top-up-3' }, { type: 'reached_ten' }], state: { total: 10 }, position: 3 });
    expect(asked).toEqual([3, 10]);
    // One append: every event of the step has the same recorded_at (the transaction's now()).
    expect(new Set((await store.readStream('s3')).map((e) => e.recordedAt.getTime())).size).toBe(1);
    // A repeated input decides nothing, but the state is still offered to the follow-up.
    asked.length = 0;
    expect(await processor.process('s3', { id: 'a', amount: 3 }, new Date(), topUp)).toMatchObject({ events: [], position: 3 });
    expect(asked).toEqual([10]);
    // An answer the decider ignores ends the follow-ups instead of asking forever.
    const stubborn = async (): Promise<Input> => ({ id: 'a', amount: 3 });
    expect(await processor.process('s3', { id: 'b', amount: 1 }, new Date(), stubborn)).toMatchObject({ events: [{ type: 'added', id: 'b' }], position: 4 });
  });

  it('processes a batch of many streams: one read, decided in order per stream, one transaction with effects and projection rows', async () => {
    await db.clearOutboxAndTimers();
    await db.dataSource.query(`CREATE TABLE "${db.schema}".projected (stream_id text PRIMARY KEY, total integer NOT NULL)`);
    const store = new EventStore(db.dataSource, db.schema);
    const projected = new StreamProcessor(store, counter, codec, (events, _b, after, streamId) =>
      events.some((e) => e.type === 'reached_ten') ? { outbox: [{ messageId: `${streamId}:ten`, topic: 't', key: streamId, value: JSON.stringify({ total: after.total }) }] } : {},
    { projection: {
      rowsOf: (_events, _before, after, streamId) => ({ streamId, total: after.total }),
      write: async (tx, rows) => {
        await tx.query(
          `INSERT INTO "${db.schema}".projected (stream_id, total) SELECT * FROM unnest($1::text[], $2::integer[])
           ON CONFLICT (stream_id) DO UPDATE SET total = EXCLUDED.total`,
          [rows.map((r) => r.streamId), rows.map((r) => r.total)],
        );
      },
    } });
    await processor.process('b1', { id: 'x', amount: 5 }, new Date());
    const steps = await projected.processBatch(
      [
        { streamId: 'b1', input: { id: 'y', amount: 2 } },
        { streamId: 'b2', input: { id: 'p', amount: 9 } },
        { streamId: 'b1', input: { id: 'z', amount: 4 } },
        { streamId: 'b2', input: { id: 'p', amount: 9 } },
        { streamId: 'b3', input: { id: 'q', amount: 1 } },
        { streamId: 'b1', input: { id: 'x', amount: 5 } },
      ],
      new Date(),
    );
    expect(steps.get('b1')).toMatchObject({ state: { total: 11, seen: ['x', 'y', 'z'], reached: true }, position: 4, conflicts: 0 });
    expect(steps.get('b1')?.events.map((e) => e.type)).toEqual(['added', 'added', 'reached_ten']);
    expect(steps.get('b2')).toMatchObject({ state: { total: 9 }, position: 1 });
    expect(steps.get('b3')).toMatchObject({ state: { total: 1 }, position: 1 });
    // One transaction: every event the batch wrote has the same recorded_at.
    const written = await db.dataSource.query<Array<{ n: number }>>(
      `SELECT count(DISTINCT recorded_at)::int AS n FROM "${db.schema}".stream_events WHERE stream_id IN ('b2', 'b3') OR (stream_id = 'b1' AND position > 1)`,
    );
    expect(written[0].n).toBe(1);
    expect(await db.count('outbox')).toBe(1);
    const rows = await db.dataSource.query(`SELECT stream_id, total FROM "${db.schema}".projected ORDER BY stream_id`);
    expect(rows).toEqual([{ stream_id: 'b1', total: 11 }, { stream_id: 'b2', total: 9 }, { stream_id: 'b3', total: 1 }]);
    // Nothing new: no append at all.
    const again = await projected.processBatch([{ streamId: 'b3', input: { id: 'q', amount: 1 } }], new Date());
    expect(again.get('b3')).toMatchObject({ events: [], position: 1 });
  });

  it('follows up a batch once per round of inputs, with every stream decided in that round, and appends each stream once', async () => {
    // The follow-ups play the accumulator: below 10 they top a stream up to 10, answering all the streams asked at once.
    const rounds: Array<Array<[string, number]>> = [];
    const topUps = async (asks: ReadonlyArray<{ streamId: string; state: State }>): Promise<Map<string, Input>> => {
      rounds.push(asks.map(({ streamId, state }) => [streamId, state.total]));
      return new Map(asks.filter(({ state }) => state.total < 10).map(({ streamId, state }) => [streamId, { id: `top-up-${state.total}`, amount: 10 - state.total }]));
    };
    const steps = await processor.processBatch(
      [
        { streamId: 'f1', input: { id: 'a', amount: 3 } },
        { streamId: 'f2', input: { id: 'b', amount: 12 } },
        { streamId: 'f1', input: { id: 'c', amount: 1 } },
      ],
      new Date(),
      { followUps: topUps },
    );
    // Round 1 (each stream's first input): both asked together; only f1 was topped up, so only f1 is asked again.
    // Round 2 (f1's second input): f1 alone.
    expect(rounds).toEqual([[['f1', 3], ['f2', 12]], [['f1', 10]], [['f1', 11]]]);
    expect(steps.get('f1')?.events.map((e) => (e.type === 'added' ? e.id : e.type))).toEqual(['a', 'top-up-3', 'reached_ten', 'c']);
    expect(steps.get('f1')).toMatchObject({ state: { total: 11 }, position: 4 });
    expect(steps.get('f2')).toMatchObject({ state: { total: 12 }, position: 2 });
    const written = await db.dataSource.query<Array<{ n: number }>>(`SELECT count(DISTINCT recorded_at)::int AS n FROM "${db.schema}".stream_events WHERE stream_id IN ('f1', 'f2')`);
    expect(written[0].n).toBe(1);
    // A redelivered batch decides nothing; its streams are still offered to the follow-ups, and an answer the decider ignores ends them.
    rounds.length = 0;
    const stubborn = async (asks: ReadonlyArray<{ streamId: string; state: State }>): Promise<Map<string, Input>> => {
      rounds.push(asks.map(({ streamId, state }) => [streamId, state.total]));
      return new Map(asks.map(({ streamId }) => [streamId, { id: 'a', amount: 3 }]));
    };
    const again = await processor.processBatch([{ streamId: 'f1', input: { id: 'a', amount: 3 } }], new Date(), { followUps: stubborn });
    expect(again.get('f1')).toMatchObject({ events: [], position: 4 });
    expect(rounds).toEqual([[['f1', 11]]]);
  });

  it('decides again only the streams of a batch that lost a race; the others are written once', async () => {
    const store = new EventStore(db.dataSource, db.schema);
    await processor.process('r1', { id: 'a', amount: 1 }, new Date());
    // A stale view of r1 (as a replica that read it before another writer appended).
    const stale = new Map([['r1', { state: counter.initialState(), position: 0, snapshotPosition: 0 }]]);
    const steps = await processor.processBatch(
      [
        { streamId: 'r1', input: { id: 'b', amount: 2 } },
        { streamId: 'r2', input: { id: 'c', amount: 3 } },
      ],
      new Date(),
      { loaded: stale },
    );
    expect(steps.get('r1')).toMatchObject({ state: { total: 3, seen: ['a', 'b'] }, position: 2, conflicts: 1 });
    expect(steps.get('r2')).toMatchObject({ state: { total: 3 }, position: 1, conflicts: 0 });
    expect((await store.readStream('r1')).map((e) => (e.data as { id: string }).id)).toEqual(['a', 'b']);
    expect(await store.readStream('r2')).toHaveLength(1);

    // appendBatch itself: the loser is reported and nothing of it written, the rest is.
    const result = await store.appendBatch([
      { streamId: 'r1', expectedPosition: 1, events: [{ type: 'added', data: { id: 'late' } }] },
      { streamId: 'r3', expectedPosition: 0, events: [{ type: 'added', data: { id: 'd' } }, { type: 'added', data: { id: 'e' } }] },
    ]);
    expect([...result.conflicts]).toEqual(['r1']);
    expect(result.positions.get('r3')).toBe(2);
    expect(await store.readStream('r1')).toHaveLength(2);
    const streams = await store.readStreams(['r1', 'r3', 'nothing-here']);
    expect(streams.get('r3')?.events.map((e) => e.position)).toEqual([1, 2]);
    expect(streams.get('nothing-here')?.events).toEqual([]);
  });

  it('decides streams presumed new without reading them, and reads and decides again one that existed after all, writing its input once', async () => {
    const store = new EventStore(db.dataSource, db.schema);
    const starting = new StreamProcessor(store, counter, codec, () => ({}));
    await starting.process('n1', { id: 'first', amount: 1 }, new Date());
    const reads = jest.spyOn(store, 'readStreams');

    const fresh = await starting.processBatch([{ streamId: 'n2', input: { id: 'a', amount: 2 } }], new Date(), { presumedNew: true });
    expect(fresh.get('n2')).toMatchObject({ state: { total: 2 }, position: 1, conflicts: 0 });
    expect(reads).not.toHaveBeenCalled();

    // n1 exists (a redelivered start): its presumed append loses the race, then it is read and decided again.
    const steps = await starting.processBatch(
      [
        { streamId: 'n1', input: { id: 'first', amount: 1 } },
        { streamId: 'n1', input: { id: 'second', amount: 3 } },
        { streamId: 'n3', input: { id: 'a', amount: 5 } },
      ],
      new Date(),
      { presumedNew: true },
    );
    expect(reads).toHaveBeenCalledTimes(1);
    expect(reads).toHaveBeenCalledWith(['n1'], { fromSnapshot: false });
    expect(steps.get('n1')).toMatchObject({ state: { total: 4, seen: ['first', 'second'] }, position: 2, conflicts: 1 });
    expect(steps.get('n3')).toMatchObject({ state: { total: 5 }, position: 1, conflicts: 0 });
    expect((await store.readStream('n1')).map((e) => (e.data as { id: string }).id)).toEqual(['first', 'second']);
    expect(await store.readStream('n3')).toHaveLength(1);
  });

  it('decides the next input of a stream it recently read or appended to without reading it, and reads again one another writer moved on', async () => {
    const store = new EventStore(db.dataSource, db.schema);
    const remembering = new StreamProcessor(store, counter, codec, () => ({}), { recentStreams: 2 });
    const reads = jest.spyOn(store, 'readStreams');
    await remembering.processBatch([{ streamId: 'm1', input: { id: 'a', amount: 1 } }], new Date());
    expect(reads).toHaveBeenCalledTimes(1); // a new stream is read once: it may exist already
    const next = await remembering.processBatch([{ streamId: 'm1', input: { id: 'b', amount: 2 } }], new Date());
    expect(next.get('m1')).toMatchObject({ state: { total: 3, seen: ['a', 'b'] }, position: 2, conflicts: 0 });
    expect(reads).toHaveBeenCalledTimes(1);
    expect((await remembering.loadMany(['m1'])).get('m1')).toMatchObject({ position: 2 });
    expect(reads).toHaveBeenCalledTimes(1);

    // Another replica appends: the remembered state is behind, its append conflicts, and the stream is read again.
    await second.process('m1', { id: 'elsewhere', amount: 4 }, new Date());
    const after = await remembering.processBatch([{ streamId: 'm1', input: { id: 'c', amount: 3 } }], new Date());
    expect(after.get('m1')).toMatchObject({ state: { total: 10, seen: ['a', 'b', 'elsewhere', 'c'] }, position: 5, conflicts: 1 });
    expect(reads).toHaveBeenCalledTimes(2);
    const single = await remembering.process('m1', { id: 'd', amount: 1 }, new Date());
    expect(single).toMatchObject({ state: { total: 11 }, position: 6, conflicts: 0 });
    expect((await store.readStream('m1')).map((e) => (e.data as { id?: string }).id)).toEqual(['a', 'b', 'elsewhere', 'c', undefined, 'd']);

    // At most `recentStreams` are kept, the least recent dropped first.
    await remembering.processBatch(
      [
        { streamId: 'm2', input: { id: 'a', amount: 1 } },
        { streamId: 'm3', input: { id: 'a', amount: 1 } },
      ],
      new Date(),
    );
    reads.mockClear();
    await remembering.loadMany(['m1', 'm2', 'm3']);
    expect(reads).toHaveBeenCalledWith(['m1'], { fromSnapshot: false });
  });

  // Two sessions at once: the embedded database has one.
  if (target.kind === 'postgres') {
    it('reports a stream another writer appended to between the stale check and the insert, and writes the rest of the batch', async () => {
      const store = new EventStore(db.dataSource, db.schema);
      const rival = (await db.connect()).createQueryRunner();
      await rival.startTransaction();
      try {
        // Uncommitted: the batch's stale check does not see it, its insert waits on it.
        await rival.query(`INSERT INTO "${db.schema}".stream_events (stream_id, position, type, data) VALUES ('race', 1, 'added', '{"id":"rival"}')`);
        const batch = store.appendBatch([
          { streamId: 'race', expectedPosition: 0, events: [{ type: 'added', data: { id: 'mine' } }] },
          { streamId: 'calm', expectedPosition: 0, events: [{ type: 'added', data: { id: 'other' } }] },
        ]);
        await new Promise((resolve) => setTimeout(resolve, 200));
        await rival.commitTransaction();
        const result = await batch;
        expect([...result.conflicts]).toEqual(['race']);
        expect(result.positions.get('calm')).toBe(1);
        expect((await store.readStream('race')).map((e) => (e.data as { id: string }).id)).toEqual(['rival']);
        expect(await store.readStream('calm')).toHaveLength(1);
      } finally {
        if (rival.isTransactionActive) await rival.rollbackTransaction();
        await rival.release();
      }
    });
  }
});
