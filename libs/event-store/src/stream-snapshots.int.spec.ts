import { Decider } from '@herald/decider';
import { databaseTargets, expectEventually, uniqueName } from '@herald/testing';
import { StreamCompactor } from './compaction/stream-compactor';
import { EventStore } from './event-store';
import { NewEvent } from './event-store.types';
import { StreamConflictError } from './stream-conflict.error';
import { StreamProcessor, StreamProcessorOptions } from './stream-processor';
import { EventStoreTestDatabase } from './testing/event-store-test-database';

/** A toy stream: add amounts, once per input id. */
type Input = { readonly id: string; readonly amount: number };
type Event = { readonly type: 'added'; readonly id: string; readonly amount: number };
interface State {
  readonly total: number;
  readonly seen: readonly string[];
}

const counter: Decider<Input, Event, State> = {
  initialState: () => ({ total: 0, seen: [] }),
  evolve: (state, event) => ({ total: state.total + event.amount, seen: [...state.seen, event.id] }),
  decide: (input, state) => (state.seen.includes(input.id) ? [] : [{ type: 'added', id: input.id, amount: input.amount }]),
};

function events(count: number, from = 0): NewEvent[] {
  return Array.from({ length: count }, (_, i) => ({ type: 'step', data: { n: from + i } }));
}

describe.each(databaseTargets())('stream snapshots and compaction ($kind)', (target) => {
  let db: EventStoreTestDatabase;
  let store: EventStore;
  const processor = (options?: StreamProcessorOptions<State>, on = store): StreamProcessor<Input, Event, State> =>
    new StreamProcessor(on, counter, { toStored: (e) => ({ type: e.type, data: e }), fromStored: (r) => r.data as Event }, () => ({}), options);
  const everyThree: StreamProcessorOptions<State> = { snapshot: { every: 3, encode: (state) => state, decode: (stored) => stored as State } };

  beforeAll(async () => {
    db = await EventStoreTestDatabase.open(target);
    store = new EventStore(db.dataSource, db.schema);
  });
  afterAll(() => db?.dispose());

  async function snapshotOf(streamId: string): Promise<{ position: number; state: unknown } | undefined> {
    const [row] = await db.dataSource.query(`SELECT position, state FROM "${db.schema}".stream_snapshots WHERE stream_id = $1`, [streamId]);
    return row;
  }

  async function positions(streamId: string): Promise<number[]> {
    const rows: Array<{ position: number }> = await db.dataSource.query(
      `SELECT position FROM "${db.schema}".stream_events WHERE stream_id = $1 ORDER BY position`,
      [streamId],
    );
    return rows.map((r) => r.position);
  }

  /** Compacts until nothing covered is left (other tests' streams included). */
  async function compactAll(): Promise<void> {
    while ((await store.compact({ limit: 1000 })) > 0);
  }

  it('stores a snapshot at the append position and reads it back with only the events after it, in one statement', async () => {
    const streamId = uniqueName('acc');
    await store.append({ streamId, expectedPosition: 0, events: events(3) });
    await store.append({ streamId, expectedPosition: 3, events: events(2, 3), snapshot: { state: { upTo: 5 } } });
    await store.append({ streamId, expectedPosition: 5, events: events(2, 5) });

    const query = jest.spyOn(db.dataSource, 'query');
    const read = await store.readStreamFromSnapshot(streamId);
    expect(query).toHaveBeenCalledTimes(1);
    query.mockRestore();

    expect(read.snapshot).toEqual({ position: 5, state: { upTo: 5 } });
    expect(read.events.map((e) => [e.streamId, e.position, e.data])).toEqual([
      [streamId, 6, { n: 5 }],
      [streamId, 7, { n: 6 }],
    ]);
    expect(read.events.every((e) => e.recordedAt instanceof Date && e.type === 'step')).toBe(true);
    const plain = uniqueName('acc');
    await store.append({ streamId: plain, expectedPosition: 0, events: events(2) });
    expect(await store.readStreamFromSnapshot(plain)).toEqual({ events: await store.readStream(plain) });
    expect(await store.readStreamFromSnapshot(uniqueName('acc'))).toEqual({ events: [] });
  });

  it('writes a snapshot only with an append that wins: a conflicting one leaves the snapshot as it was', async () => {
    const streamId = uniqueName('acc');
    await store.append({ streamId, expectedPosition: 0, events: events(2), snapshot: { state: 'at 2' } });
    await expect(store.append({ streamId, expectedPosition: 1, events: events(3), snapshot: { state: 'stale' } })).rejects.toBeInstanceOf(
      StreamConflictError,
    );
    await store.append({ streamId, expectedPosition: 2, events: events(1), snapshot: { state: 'at 3' } });
    expect(await snapshotOf(streamId)).toEqual({ position: 3, state: 'at 3' });
  });

  it('snapshots every N events, and folds from the snapshot and its tail to the state a full fold gives', async () => {
    const streamId = uniqueName('acc');
    const withSnapshots = processor(everyThree);
    const taken: Array<number | undefined> = [];
    for (let i = 1; i <= 10; i += 1) {
      await withSnapshots.process(streamId, { id: `i${i}`, amount: i }, new Date());
      taken.push((await snapshotOf(streamId))?.position);
    }
    expect(taken).toEqual([undefined, undefined, 3, 3, 3, 6, 6, 6, 9, 9]);
    expect(await snapshotOf(streamId)).toEqual({ position: 9, state: { total: 45, seen: ['i1', 'i2', 'i3', 'i4', 'i5', 'i6', 'i7', 'i8', 'i9'] } });

    const fromSnapshot = await withSnapshots.process(streamId, { id: 'i1', amount: 1 }, new Date());
    const fullFold = await processor().process(streamId, { id: 'i1', amount: 1 }, new Date());
    expect(fromSnapshot).toEqual({ events: [], state: { total: 55, seen: Array.from({ length: 10 }, (_, i) => `i${i + 1}`) }, position: 10, conflicts: 0 });
    expect(fullFold).toEqual(fromSnapshot);
  });

  it('folds from what encode kept: the decoded snapshot, not the events before it', async () => {
    const streamId = uniqueName('acc');
    const forgetful = processor({ snapshot: { every: 2, encode: (state) => ({ ...state, seen: [] }), decode: (stored) => stored as State } });
    await forgetful.process(streamId, { id: 'a', amount: 1 }, new Date());
    await forgetful.process(streamId, { id: 'b', amount: 2 }, new Date());
    // 'a' is no longer in the state the snapshot keeps, so it counts again.
    expect((await forgetful.process(streamId, { id: 'a', amount: 1 }, new Date())).state).toEqual({ total: 4, seen: ['a'] });
  });

  it('leaves a stream without a snapshot policy as it was: one read of the whole stream, no snapshot written', async () => {
    const streamId = uniqueName('run');
    const plain = processor();
    const read = jest.spyOn(store, 'readStream');
    const readFromSnapshot = jest.spyOn(store, 'readStreamFromSnapshot');
    for (let i = 0; i < 5; i += 1) await plain.process(streamId, { id: `i${i}`, amount: 1 }, new Date());
    expect(read).toHaveBeenCalledTimes(5);
    expect(readFromSnapshot).not.toHaveBeenCalled();
    read.mockRestore();
    readFromSnapshot.mockRestore();
    expect(await snapshotOf(streamId)).toBeUndefined();
  });

  it('compacts only the events before a snapshot, keeping the one at its position, in batches of at most the limit', async () => {
    await compactAll();
    const covered = uniqueName('acc');
    const uncovered = uniqueName('run');
    await store.append({ streamId: covered, expectedPosition: 0, events: events(6), snapshot: { state: 's6' } });
    await store.append({ streamId: covered, expectedPosition: 6, events: events(2) });
    await store.append({ streamId: uncovered, expectedPosition: 0, events: events(6) });
    const atSnapshot = (await store.readStream(covered)).find((e) => e.position === 6);

    expect(await store.compact({ limit: 3, minAgeMs: 3_600_000 })).toBe(0);
    expect(await store.compact({ limit: 3 })).toBe(3);
    expect(await store.compact({ limit: 3 })).toBe(2);
    expect(await store.compact({ limit: 3 })).toBe(0);

    expect(await positions(covered)).toEqual([6, 7, 8]);
    expect(await positions(uncovered)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await store.readStream(covered))[0]).toEqual(atSnapshot);
    const read = await store.readStreamFromSnapshot(covered);
    expect([read.snapshot, read.events.map((e) => e.position)]).toEqual([{ position: 6, state: 's6' }, [7, 8]]);
  });

  it('still has the database refuse a DELETE of events no snapshot covers, and any UPDATE', async () => {
    const streamId = uniqueName('acc');
    await store.append({ streamId, expectedPosition: 0, events: events(4), snapshot: { state: 's4' } });
    const table = `"${db.schema}".stream_events`;
    await expect(db.dataSource.query(`DELETE FROM ${table} WHERE stream_id = $1 AND position = 4`, [streamId])).rejects.toThrow(
      /append-only: DELETE refused/,
    );
    await expect(db.dataSource.query(`UPDATE ${table} SET type = 'x' WHERE stream_id = $1 AND position = 1`, [streamId])).rejects.toThrow(
      /append-only: UPDATE refused/,
    );
    expect(await positions(streamId)).toEqual([1, 2, 3, 4]);
  });

  it('keeps appends after compaction at the expected position: a stale one conflicts, one ahead conflicts, the right one is gapless', async () => {
    const streamId = uniqueName('acc');
    await store.append({ streamId, expectedPosition: 0, events: events(5), snapshot: { state: 's5' } });
    await compactAll();
    expect(await positions(streamId)).toEqual([5]);

    for (const stale of [0, 1, 4, 6]) {
      await expect(store.append({ streamId, expectedPosition: stale, events: events(1) })).rejects.toBeInstanceOf(StreamConflictError);
    }
    expect(await store.append({ streamId, expectedPosition: 5, events: events(2) })).toEqual({ position: 7 });
    expect(await positions(streamId)).toEqual([5, 6, 7]);

    // Racing writers after compaction: exactly one wins.
    const replica = new EventStore(await db.connect(), db.schema);
    const outcomes = await Promise.allSettled([store, replica, store, replica].map((s) => s.append({ streamId, expectedPosition: 7, events: events(1) })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected' && o.reason instanceof StreamConflictError)).toHaveLength(3);
    expect(await positions(streamId)).toEqual([5, 6, 7, 8]);
  });

  it('gives the same state after compaction, and concurrent processors with snapshots still count every input once', async () => {
    const streamId = uniqueName('acc');
    const second = processor(everyThree, new EventStore(await db.connect(), db.schema));
    const first = processor(everyThree);
    const inputs = Array.from({ length: 20 }, (_, i) => ({ id: `c${i}`, amount: 1 }));
    const steps = await Promise.all(inputs.map((input, i) => (i % 2 === 0 ? first : second).process(streamId, input, new Date())));
    const before = await first.process(streamId, { id: 'c0', amount: 1 }, new Date());
    expect(before.state.total).toBe(20);
    expect(new Set(before.state.seen).size).toBe(20);
    expect(steps.reduce((sum, s) => sum + s.conflicts, 0)).toBeGreaterThan(0);

    await compactAll();
    const snapshot = await snapshotOf(streamId);
    expect(snapshot?.position).toBeGreaterThanOrEqual(18);
    expect((await positions(streamId))[0]).toBe(snapshot?.position);
    expect(await first.process(streamId, { id: 'c0', amount: 1 }, new Date())).toEqual(before);
    const next = await second.process(streamId, { id: 'c20', amount: 1 }, new Date());
    expect(next).toMatchObject({ position: 21, state: { total: 21 } });
  });

  it('runs compaction in the background until stopped, and logs what it deleted', async () => {
    await compactAll();
    const streamId = uniqueName('acc');
    await store.append({ streamId, expectedPosition: 0, events: events(7), snapshot: { state: 's7' } });
    const logs: Array<[string, string, Record<string, unknown> | undefined]> = [];
    const compactor = new StreamCompactor(store, (level, message, fields) => logs.push([level, message, fields]), { intervalMs: 20, batchSize: 4 });
    compactor.start();
    await expectEventually(async () => expect(await positions(streamId)).toEqual([7]));
    await compactor.stop();

    expect(logs).toEqual([['info', expect.stringContaining('compacted'), { deleted: 6 }]]);
  });

  it('logs a failed compaction and goes on', async () => {
    const failing = new EventStore(db.dataSource, db.schema);
    jest.spyOn(failing, 'compact').mockRejectedValueOnce(new Error('connection lost')).mockResolvedValue(0);
    const logs: string[] = [];
    const compactor = new StreamCompactor(failing, (level, message) => logs.push(`${level}: ${message}`), {
      intervalMs: 10,
      retry: { initialDelayMs: 5, maxDelayMs: 5 },
    });
    compactor.start();
    await expectEventually(() => expect((failing.compact as jest.Mock).mock.calls.length).toBeGreaterThanOrEqual(3));
    await compactor.stop();
    expect(logs).toEqual([expect.stringMatching(/^warn: stream compaction failed/)]);
  });
});
