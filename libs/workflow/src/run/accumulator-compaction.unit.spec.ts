import { handle } from '@herald/decider';
import { AccumulatorInput, AccumulatorState, accumulatorSnapshotCodec, compactAccumulatorState, createAccumulatorDecider } from './accumulator';
import { AccumulationRequest } from './run-events';
import { T0 } from './testing/run-builders';

const MINUTE = 60_000;
const accumulator = createAccumulatorDecider();
const at = (minutes: number): Date => new Date(T0.getTime() + minutes * MINUTE);

function request(openedAt: number, mode: AccumulationRequest['mode'], n: number): AccumulationRequest {
  return { node_type: 'batch', key: '', closes_at: at(openedAt + 1).toISOString(), mode, retain_count: 10, retain_order: 'first', data: { n } };
}

/** Applies inputs in order; every one must be decided the same on both states, which then move on together. */
function feedBoth(full: AccumulatorState, compacted: AccumulatorState, inputs: ReadonlyArray<readonly [AccumulatorInput, Date]>) {
  let [f, c] = [full, compacted];
  for (const [input, now] of inputs) {
    const [onFull, onCompacted] = [handle(accumulator, f, input, now), handle(accumulator, c, input, now)];
    expect({ input, events: onCompacted.events }).toEqual({ input, events: onFull.events });
    [f, c] = [onFull.state, onCompacted.state];
  }
  return { full: f, compacted: c };
}

/**
 * Batch i opens at minute 2i and closes a minute later: mostly accumulate_all with two
 * merged runs (every fifth loses one to a leave), every seventh a flush_leading_item
 * batch that only ever holds its leading item and is dropped when the next one opens.
 */
function history(batches: number): AccumulatorState {
  let state = accumulator.initialState();
  const step = (input: AccumulatorInput, now: Date): void => {
    state = handle(accumulator, state, input, now).state;
  };
  for (let i = 0; i < batches; i += 1) {
    const t = 2 * i;
    if (i % 7 === 3) {
      step({ type: 'join', run_id: `b${i}-lead`, request: request(t, 'flush_leading_item', i) }, at(t));
      continue;
    }
    for (const member of ['owner', 'm1', 'm2']) step({ type: 'join', run_id: `b${i}-${member}`, request: request(t, 'accumulate_all', i) }, at(t));
    if (i % 5 === 0) step({ type: 'leave', run_id: `b${i}-m1` }, at(t + 0.5));
    step({ type: 'close', run_id: `b${i}-owner`, batch_id: `b${i}-owner` }, at(t + 1));
  }
  return state;
}

describe('accumulator snapshot compaction', () => {
  const batches = 300;
  const full = history(batches);
  // Through JSON as a snapshot goes through jsonb (which does not keep key order).
  const snapshot = accumulatorSnapshotCodec.decode(JSON.parse(JSON.stringify(accumulatorSnapshotCodec.encode(full))));

  it('given a long history, when compacted, then it keeps the newest 50 finished batches and only their joins, closes and leaves', () => {
    expect(Object.keys(full.closed).length).toBeGreaterThan(250);
    const newest = Array.from({ length: batches }, (_, i) => i).slice(-50);
    const newestIds = newest.map((i) => (i % 7 === 3 ? `b${i}-lead` : `b${i}-owner`));
    expect(Object.keys(snapshot.closed).sort()).toEqual(newestIds.filter((id) => id.endsWith('-owner')).sort());
    expect(new Set(Object.values(snapshot.joined).map((j) => j.batch_id))).toEqual(new Set(newestIds));
    expect(Object.keys(snapshot.joined)).toHaveLength(Object.values(full.joined).filter((j) => newestIds.includes(j.batch_id)).length);
    expect(Object.values(snapshot.left).every((l) => newestIds.includes(l.batch_id))).toBe(true);
    expect(Object.keys(snapshot.left).length).toBeGreaterThan(0);
    expect(snapshot.current).toBe(full.current);
    expect(JSON.stringify(snapshot).length).toBeLessThan(JSON.stringify(full).length / 4);
  });

  it('given a compacted state, then the answers the host reads for a repeated join, close or leave of a kept batch are the same', () => {
    const last = batches - 1;
    expect(snapshot.joined[`b${last}-m2`]).toEqual(full.joined[`b${last}-m2`]);
    expect(snapshot.closed[`b${last}-owner`]).toEqual(full.closed[`b${last}-owner`]);
    expect(snapshot.left['b295-m1']).toEqual(full.left['b295-m1']);
    expect(snapshot.joined['b297-lead']).toEqual(full.joined['b297-lead']);
  });

  it('given a compacted state, when live runs join, close, leave and repeat themselves, then every decision is the one on the full state', () => {
    const t = 2 * batches;
    const opener = request(t, 'accumulate_all', 1000);
    const { full: after, compacted } = feedBoth(full, snapshot, [
      // Repeats of what kept batches already hold: nothing new.
      [{ type: 'join', run_id: `b${batches - 1}-m1`, request: opener }, at(t)],
      [{ type: 'join', run_id: 'b297-lead', request: opener }, at(t)],
      [{ type: 'close', run_id: `b${batches - 1}-owner`, batch_id: `b${batches - 1}-owner` }, at(t)],
      [{ type: 'leave', run_id: 'b295-m1' }, at(t)],
      [{ type: 'leave', run_id: 'b295-owner' }, at(t)],
      // A new batch: opened, joined, left by its owner (handed on), joined again, closed by the successor.
      [{ type: 'join', run_id: 'new-owner', request: opener }, at(t)],
      [{ type: 'join', run_id: 'new-m1', request: opener }, at(t + 0.1)],
      [{ type: 'join', run_id: 'new-m2', request: opener }, at(t + 0.2)],
      [{ type: 'join', run_id: 'new-owner', request: opener }, at(t + 0.3)],
      [{ type: 'leave', run_id: 'new-owner' }, at(t + 0.4)],
      [{ type: 'leave', run_id: 'new-owner' }, at(t + 0.5)],
      [{ type: 'close', run_id: 'new-owner', batch_id: 'new-owner' }, at(t + 1)],
      [{ type: 'close', run_id: 'new-m1', batch_id: 'new-owner' }, at(t + 1)],
      [{ type: 'close', run_id: 'new-m1', batch_id: 'new-owner' }, at(t + 1)],
      // A join after the window opens the next batch; a leading item in flush mode.
      [{ type: 'join', run_id: 'late', request: request(t + 2, 'flush_leading_item', 1001) }, at(t + 2)],
      [{ type: 'join', run_id: 'later', request: request(t + 2, 'flush_leading_item', 1002) }, at(t + 2.5)],
      [{ type: 'leave', run_id: 'later' }, at(t + 2.6)],
    ]);
    expect(compacted.closed['new-owner']).toEqual(after.closed['new-owner']);
    expect(compacted.open).toEqual(after.open);
    // Both states compact to the same snapshot: compaction commutes with what comes next.
    expect(compactAccumulatorState(compacted)).toEqual(compactAccumulatorState(after));
  });

  it('given an open batch with an unowned leading item, when compacted, then it stays open and is dropped the same way later', () => {
    const leading = handle(accumulator, full, { type: 'join', run_id: 'lead', request: request(2 * batches, 'flush_leading_item', 1) }, at(2 * batches)).state;
    const compacted = compactAccumulatorState(leading);
    expect(compacted.open).toEqual(leading.open);
    feedBoth(leading, compacted, [
      [{ type: 'join', run_id: 'lead', request: request(2 * batches, 'flush_leading_item', 1) }, at(2 * batches + 0.5)],
      [{ type: 'join', run_id: 'next', request: request(2 * batches + 2, 'flush_leading_item', 2) }, at(2 * batches + 2)],
      [{ type: 'join', run_id: 'owner', request: request(2 * batches + 2, 'flush_leading_item', 3) }, at(2 * batches + 2.1)],
      [{ type: 'close', run_id: 'owner', batch_id: 'next' }, at(2 * batches + 3)],
    ]);
  });

  it('given a batch older than the kept ones, when one of its runs joins again, then it is taken as a new run (the limit of compaction)', () => {
    const repeat: AccumulatorInput = { type: 'join', run_id: 'b0-m1', request: request(2 * batches, 'accumulate_all', 0) };
    expect(snapshot.joined['b0-m1']).toBeUndefined();
    expect(accumulator.decide(repeat, full, at(2 * batches))).toEqual([]);
    expect(accumulator.decide(repeat, snapshot, at(2 * batches))).not.toEqual([]);
  });

  it('given a short history, when compacted, then nothing is dropped', () => {
    const short = history(20);
    expect(compactAccumulatorState(short)).toBe(short);
    expect(compactAccumulatorState(full, 1000)).toBe(full);
  });

  it('refuses to decode a snapshot that is not an accumulator state', () => {
    expect(() => accumulatorSnapshotCodec.decode({ open: [] })).toThrow(/not an accumulator state/);
    expect(() => accumulatorSnapshotCodec.decode(null)).toThrow(/not an accumulator state/);
    expect(accumulatorSnapshotCodec.decode({ open: {}, joined: {}, closed: {}, left: {} })).toEqual(accumulator.initialState());
  });
});
