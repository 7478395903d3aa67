import { Decider } from '@herald/workflow';
import { databaseTargets } from '@herald/testing';
import { EventStore } from './event-store';
import { StreamProcessor } from './stream-processor';
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
        { toStored: (e) => ({ type: e.type, data: e }), fromStored: (r) => r.data as Event },
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
});

