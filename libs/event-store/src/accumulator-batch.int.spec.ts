import { AccumulationRequest, AccumulatorEvent, AccumulatorInput, AccumulatorState, accumulatorSnapshotCodec, createAccumulatorDecider } from '@herald/workflow';
import { databaseTargets } from '@herald/testing';
import { EventStore } from './event-store';
import { StreamProcessor } from './stream-processor';
import { EventStoreTestDatabase } from './testing/event-store-test-database';

/**
 * The batch and digest accumulator as the engine hosts it: every run of a consumed batch
 * that reaches its batch node asks at once (`processBatch`), so many joins of one batch
 * key are decided in order in memory and appended together.
 */
describe.each(databaseTargets())('accumulators in batches ($kind)', (target) => {
  let db: EventStoreTestDatabase;
  let store: EventStore;
  let accumulators: StreamProcessor<AccumulatorInput, AccumulatorEvent, AccumulatorState>;

  const join = (runId: string, closesAt: Date, n = 0): AccumulatorInput => ({ type: 'join', run_id: runId, request: request(closesAt, { n }) });

  beforeAll(async () => {
    db = await EventStoreTestDatabase.open(target);
    store = new EventStore(db.dataSource, db.schema);
    accumulators = new StreamProcessor(
      store,
      createAccumulatorDecider(),
      { toStored: (event) => ({ type: event.type, data: event }), fromStored: (recorded) => recorded.data as AccumulatorEvent },
      () => ({}),
      { snapshot: { every: 50, ...accumulatorSnapshotCodec } },
    );
  });
  afterAll(() => db?.dispose());

  it('decides 60 joins of one batch key in one append: the first owns, the rest merge in order, and a redelivered batch gets the same answers', async () => {
    const now = new Date();
    const closesAt = new Date(now.getTime() + 600_000);
    const runs = Array.from({ length: 60 }, (_, i) => `run-${i}`);
    const items = runs.map((runId, i) => ({ streamId: 'batch:one', input: join(runId, new Date(closesAt.getTime() + i * 1000), i) }));
    const first = (await accumulators.processBatch(items, now)).get('batch:one');
    expect(first).toMatchObject({ position: 61, conflicts: 0 });
    const answers = runs.map((runId) => first?.state.joined[runId]);
    // One window: the opener's, never extended by the later requests' own ends.
    expect(answers.map((a) => [a?.role, a?.batch_id, a?.closes_at])).toEqual(
      runs.map((_, i) => [i === 0 ? 'owner' : 'merged', 'run-0', closesAt.toISOString()]),
    );
    const recorded = await store.readStreamFromSnapshot('batch:one');
    expect(recorded.snapshot?.position).toBe(61);
    expect(new Set((await store.readStream('batch:one')).map((e) => e.recordedAt.getTime())).size).toBe(1);

    // Redelivered (a crash before the runs' append): nothing appended, the same answers.
    const again = (await accumulators.processBatch(items, new Date(now.getTime() + 1000))).get('batch:one');
    expect(again).toMatchObject({ events: [], position: 61 });
    expect(runs.map((runId) => again?.state.joined[runId])).toEqual(answers);

    // The owner's close, with a late join behind it in the same batch: the close holds the 60, the late run opens the next batch.
    const closed = (
      await accumulators.processBatch(
        [
          { streamId: 'batch:one', input: { type: 'close', run_id: 'run-0', batch_id: 'run-0' } },
          { streamId: 'batch:one', input: join('run-late', new Date(closesAt.getTime() + 600_000)) },
        ],
        new Date(closesAt.getTime() + 1),
      )
    ).get('batch:one');
    expect(closed?.state.closed['run-0']).toMatchObject({ count: 60 });
    expect(closed?.state.joined['run-late']).toMatchObject({ role: 'owner', batch_id: 'run-late' });
  });

  it('decides again only the accumulator that lost a race: a join that raced a close lands in the next batch', async () => {
    const now = new Date();
    const closesAt = new Date(now.getTime() + 60_000);
    await accumulators.processBatch([{ streamId: 'batch:raced', input: join('owner', closesAt) }], now);
    // What a replica read before another writer (the owner's close, through the timers' consumer) appended.
    const stale = await accumulators.loadMany(['batch:raced', 'batch:calm']);
    // Decided on the stale view, the join would merge into the owner's batch; on the stream as it is, it opens the next one.
    const atClose = now;
    await accumulators.processBatch([{ streamId: 'batch:raced', input: { type: 'close', run_id: 'owner', batch_id: 'owner' } }], atClose);
    const steps = await accumulators.processBatch(
      [
        { streamId: 'batch:raced', input: join('joiner', new Date(closesAt.getTime() + 60_000)) },
        { streamId: 'batch:calm', input: join('calm', closesAt) },
      ],
      atClose,
      { loaded: stale },
    );
    expect(steps.get('batch:raced')).toMatchObject({ conflicts: 1, position: 5 });
    expect(steps.get('batch:raced')?.state.closed['owner']).toMatchObject({ count: 1 });
    expect(steps.get('batch:raced')?.state.joined['joiner']).toMatchObject({ role: 'owner', batch_id: 'joiner' });
    expect(steps.get('batch:calm')).toMatchObject({ conflicts: 0, position: 2 });
    expect((await store.readStream('batch:calm')).map((e) => e.type)).toEqual(['accumulator.opened.v1', 'accumulator.joined.v1']);
  });
});

function request(closesAt: Date, data: Record<string, number>): AccumulationRequest {
  return { node_type: 'batch', key: '', closes_at: closesAt.toISOString(), mode: 'accumulate_all', retain_count: 100, retain_order: 'first', data };
}
