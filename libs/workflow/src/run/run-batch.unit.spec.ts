import { WorkflowNode } from '../definition';
import { handle } from '@herald/decider';
import { createAccumulatorDecider } from './accumulator';
import { AccumulationRequest } from './run-events';
import { AccumulationHarness } from './testing/accumulation-harness';
import { T0, accumulationJoined, at, last, ofType, sendEmail, start, startEvents, types, when, workflow } from './testing/run-builders';

const MINUTE = 60_000;
const batch = (over: Record<string, unknown> = {}): WorkflowNode =>
  ({ node_type: 'batch', name: 'Collect', mode: 'accumulate_all', window_type: 'fixed', fixed_window: '10m', ...over }) as WorkflowNode;
const batched = (harness: AccumulationHarness, runId: string) => ofType(harness.log(runId), 'delivery.requested.v1').map((event) => event.delivery.render_data);

describe('batch node', () => {
  it('given a fixed window, when a run reaches it, then it asks its accumulator to join with the window counted from now', () => {
    const events = startEvents(workflow([batch(), sendEmail()]), { data: { n: 1 } });
    expect(last(events)).toEqual({
      type: 'accumulation.requested.v1',
      path: [0],
      request: { node_type: 'batch', key: '', closes_at: at(10 * MINUTE).toISOString(), mode: 'accumulate_all', retain_count: 10, retain_order: 'first', data: { n: 1 } },
    });
  });

  describe('given accumulate_all over a 10 minute window', () => {
    const definition = workflow([batch(), sendEmail()]);

    it('when three runs arrive within the window, then the first owns the batch, the others are merged, and one send holds all three', () => {
      const harness = new AccumulationHarness(definition);
      const first = harness.trigger('r1', { n: 1 }, T0);
      expect(types(first).slice(-3)).toEqual(['accumulation.requested.v1', 'timer.scheduled.v1', 'accumulation.owned.v1']);
      expect(ofType(first, 'timer.scheduled.v1')[0]).toMatchObject({ due_at: at(10 * MINUTE).toISOString(), purpose: 'accumulation_close' });
      const second = harness.trigger('r2', { n: 2 }, at(MINUTE));
      expect(types(second).slice(-3)).toEqual(['accumulation.requested.v1', 'accumulation.merged.v1', 'run.completed.v1']);
      expect(ofType(second, 'accumulation.merged.v1')[0]).toMatchObject({ batch_id: 'r1', owner_run_id: 'r1' });
      harness.trigger('r3', { n: 3 }, at(9 * MINUTE));
      const close = harness.fire('r1', at(10 * MINUTE));
      expect(types(close)).toEqual(['timer.fired.v1', 'accumulation.closing.v1', 'accumulation.released.v1', 'node.entered.v1', 'delivery.requested.v1', 'run.completed.v1']);
      expect(batched(harness, 'r1')).toEqual([expect.objectContaining({ $batched_events: [{ n: 1 }, { n: 2 }, { n: 3 }], $batched_events_count: 3 })]);
      expect(batched(harness, 'r2')).toEqual([]);
    });

    it('when a run arrives after the window ended, then it opens a new batch: the first window was not extended', () => {
      const harness = new AccumulationHarness(definition);
      harness.trigger('r1', { n: 1 }, T0);
      harness.trigger('r2', { n: 2 }, at(9 * MINUTE));
      const late = harness.trigger('r3', { n: 3 }, at(10 * MINUTE));
      expect(ofType(late, 'accumulation.owned.v1')[0]).toMatchObject({ batch_id: 'r3', closes_at: at(20 * MINUTE).toISOString() });
      harness.fire('r1', at(10 * MINUTE + 5));
      expect(batched(harness, 'r1')[0]).toMatchObject({ $batched_events_count: 2 });
    });
  });

  describe('given accumulate_all and a run cancelled at the node', () => {
    const definition = workflow([batch(), sendEmail()]);

    it('when the owner is cancelled while the window is open, then its log says it left the batch and the earliest merged run sends the rest once at the window end', () => {
      const harness = new AccumulationHarness(definition);
      harness.trigger('r1', { n: 1 }, T0);
      harness.trigger('r2', { n: 2 }, at(MINUTE));
      harness.trigger('r3', { n: 3 }, at(2 * MINUTE));
      const cancelled = harness.cancel('r1', at(3 * MINUTE));
      expect(types(harness.log('r1')).slice(-2)).toEqual(['accumulation.left.v1', 'run.cancelled.v1']);
      expect(ofType(harness.log('r1'), 'accumulation.left.v1')[0]).toEqual({ type: 'accumulation.left.v1', path: [0], batch_id: 'r1' });
      expect(ofType(harness.log('r1'), 'run.cancelled.v1')[0].cancelled_timers).toEqual([ofType(harness.log('r1'), 'timer.scheduled.v1')[0].timer_id]);
      expect(types(cancelled).slice(-3)).toEqual(['accumulation.handed_over.v1', 'timer.scheduled.v1', 'accumulation.owned.v1']);
      expect(ofType(harness.log('r2'), 'accumulation.handed_over.v1')[0]).toEqual({ type: 'accumulation.handed_over.v1', path: [0], batch_id: 'r1', from_run_id: 'r1' });
      expect(ofType(harness.log('r2'), 'timer.scheduled.v1')[0].due_at).toBe(at(10 * MINUTE).toISOString());
      expect(harness.run('r2').status).toBe('running');
      expect(types(harness.trigger('r4', { n: 4 }, at(4 * MINUTE)))).toContain('accumulation.merged.v1');
      harness.fire('r2', at(10 * MINUTE));
      expect(batched(harness, 'r2')).toEqual([expect.objectContaining({ $batched_events: [{ n: 2 }, { n: 3 }, { n: 4 }], $batched_events_count: 3 })]);
      expect([batched(harness, 'r1'), batched(harness, 'r3'), batched(harness, 'r4')]).toEqual([[], [], []]);
    });

    it('when the owner is cancelled and no one else joined, then the batch is empty and the next run owns it until the same end', () => {
      const harness = new AccumulationHarness(definition);
      harness.trigger('r1', { n: 1 }, T0);
      harness.cancel('r1', at(MINUTE));
      expect(types(harness.log('r1')).slice(-2)).toEqual(['accumulation.left.v1', 'run.cancelled.v1']);
      const next = harness.trigger('r2', { n: 2 }, at(2 * MINUTE));
      expect(ofType(next, 'accumulation.owned.v1')[0]).toMatchObject({ batch_id: 'r1', closes_at: at(10 * MINUTE).toISOString() });
      harness.fire('r2', at(10 * MINUTE));
      expect(batched(harness, 'r2')[0]).toMatchObject({ $batched_events: [{ n: 2 }], $batched_events_count: 1 });
    });

    it('when the owner is cancelled twice (a redelivered cancel), then the batch is handed over once', () => {
      const harness = new AccumulationHarness(definition);
      harness.trigger('r1', { n: 1 }, T0);
      harness.trigger('r2', { n: 2 }, at(MINUTE));
      harness.cancel('r1', at(2 * MINUTE));
      expect(harness.cancel('r1', at(3 * MINUTE))).toEqual([]);
      expect(ofType(harness.log('r2'), 'accumulation.handed_over.v1')).toHaveLength(1);
    });
  });

  describe('given flush_leading_item and its owner cancelled', () => {
    it('when the window ends, then the next merged run sends what is left, without the leading item or the cancelled run', () => {
      const harness = new AccumulationHarness(workflow([batch({ mode: 'flush_leading_item' }), sendEmail()]));
      harness.trigger('r1', { n: 1 }, T0);
      harness.trigger('r2', { n: 2 }, at(MINUTE));
      harness.trigger('r3', { n: 3 }, at(2 * MINUTE));
      harness.cancel('r2', at(3 * MINUTE));
      harness.fire('r3', at(10 * MINUTE));
      expect(batched(harness, 'r3')[0]).toMatchObject({ $batched_events: [{ n: 3 }], $batched_events_count: 1 });
    });
  });

  it('given a batch_key, when runs of two keys arrive, then each key has its own batch and send', () => {
    const harness = new AccumulationHarness(workflow([batch({ batch_key: '.project' }), sendEmail()]));
    harness.trigger('a1', { project: 'apollo' }, T0);
    harness.trigger('g1', { project: 'gemini' }, at(1));
    harness.trigger('a2', { project: 'apollo' }, at(2));
    harness.fire('a1', at(10 * MINUTE));
    harness.fire('g1', at(10 * MINUTE));
    expect(batched(harness, 'a1')[0]).toMatchObject({ $batched_events: [{ project: 'apollo' }, { project: 'apollo' }], $batched_events_count: 2 });
    expect(batched(harness, 'g1')[0]).toMatchObject({ $batched_events: [{ project: 'gemini' }], $batched_events_count: 1 });
  });

  describe('given flush_leading_item', () => {
    const definition = workflow([batch({ mode: 'flush_leading_item' }), sendEmail()]);

    it('when runs arrive, then the first is sent at once, the second owns the rest of the window, and the rest is sent when it ends', () => {
      const harness = new AccumulationHarness(definition);
      const leading = harness.trigger('r1', { n: 1 }, T0);
      expect(types(leading).slice(-5)).toEqual(['accumulation.requested.v1', 'accumulation.leading.v1', 'node.entered.v1', 'delivery.requested.v1', 'run.completed.v1']);
      expect(batched(harness, 'r1')[0]).toMatchObject({ $batched_events: [{ n: 1 }], $batched_events_count: 1 });
      const owner = harness.trigger('r2', { n: 2 }, at(2 * MINUTE));
      expect(ofType(owner, 'timer.scheduled.v1')[0].due_at).toBe(at(10 * MINUTE).toISOString());
      expect(types(harness.trigger('r3', { n: 3 }, at(3 * MINUTE)))).toContain('accumulation.merged.v1');
      harness.fire('r2', at(10 * MINUTE));
      expect(batched(harness, 'r2')[0]).toMatchObject({ $batched_events: [{ n: 2 }, { n: 3 }], $batched_events_count: 2 });
    });

    it('when nothing follows the leading item before the window ends, then the next run leads a new batch', () => {
      const harness = new AccumulationHarness(definition);
      harness.trigger('r1', { n: 1 }, T0);
      expect(types(harness.trigger('r2', { n: 2 }, at(11 * MINUTE)))).toContain('accumulation.leading.v1');
    });
  });

  it.each([
    ['first', [{ n: 1 }, { n: 2 }]],
    ['last', [{ n: 4 }, { n: 5 }]],
  ] as const)('given retain_count 2 and retain_order %s, when five runs are batched, then those two are kept and the count says five', (order, kept) => {
    const harness = new AccumulationHarness(workflow([batch({ retain_count: 2, retain_order: order }), sendEmail()]));
    for (const n of [1, 2, 3, 4, 5]) harness.trigger(`r${n}`, { n }, at(n));
    harness.fire('r1', at(10 * MINUTE));
    expect(batched(harness, 'r1')[0]).toMatchObject({ $batched_events: kept, $batched_events_count: 5 });
  });

  it.each([
    ['a dynamic window in seconds', { window_type: 'dynamic', dynamic_window_expr: '.window' }, { window: 120 }, 2 * MINUTE],
    ['a dynamic window as a duration', { window_type: 'dynamic', dynamic_window_expr: '.label' }, { label: '5m' }, 5 * MINUTE],
    [
      'a window relative to a timestamp',
      { window_type: 'relative_to', relative_to: { pivot_expr: '.starts_at', offset_type: 'before', offset_value_type: 'dynamic', offset_value: '.lead' } },
      { starts_at: at(60 * MINUTE).toISOString(), lead: '15m' },
      45 * MINUTE,
    ],
  ])('given %s, when the first run arrives, then the batch closes at its end', (_label, window, data, ms) => {
    const events = startEvents(workflow([batch(window), sendEmail()]), { data });
    expect(ofType(events, 'accumulation.requested.v1')[0].request.closes_at).toBe(at(ms).toISOString());
  });

  it('given a relative window that already ended, when the owner joins, then the batch closes at once with the run alone', () => {
    const relative = { pivot_expr: '.starts_at', offset_type: 'after', offset_value_type: 'fixed', offset_value: '1m' };
    const harness = new AccumulationHarness(workflow([batch({ window_type: 'relative_to', relative_to: relative }), sendEmail()]));
    const events = harness.trigger('r1', { starts_at: at(-MINUTE * 5).toISOString() }, T0);
    expect(types(events)).toContain('accumulation.released.v1');
    expect(batched(harness, 'r1')[0]).toMatchObject({ $batched_events_count: 1 });
  });

  it.each([
    ['a dynamic window that is not a duration', { window_type: 'dynamic', dynamic_window_expr: '"soon"' }, 'dynamic_window_expr gave "soon", not a duration like 1d2h30m10s or a number of seconds'],
    ['a batch_key whose jq fails', { batch_key: 'error("no key")' }, 'batch_key: jq error: no key'],
  ])('given %s, when a run reaches it, then the run fails naming the node', (_label, over, reason) => {
    expect(last(startEvents(workflow([batch(over)])))).toMatchObject({ type: 'run.failed.v1', reason, node: { node_type: 'batch' } });
  });

  it('given a run not waiting at that node, when an accumulator answer arrives, then nothing is decided', () => {
    const started = [[start(workflow([batch(), sendEmail()])), T0]] as const;
    expect(when(started, accumulationJoined([1], { batch_id: 'x', role: 'owner', closes_at: at(1).toISOString() }))).toEqual([]);
  });
});

describe('accumulator stream', () => {
  const accumulator = createAccumulatorDecider();
  const request: AccumulationRequest = { node_type: 'batch', key: '', closes_at: at(MINUTE).toISOString(), mode: 'accumulate_all', retain_count: 10, retain_order: 'first', data: {} };

  it('given a run already joined, when it joins again (a redelivered input), then nothing is appended and its answer stays', () => {
    const first = handle(accumulator, accumulator.initialState(), { type: 'join', run_id: 'r1', request }, T0);
    expect(accumulator.decide({ type: 'join', run_id: 'r1', request }, first.state, at(1))).toEqual([]);
    expect(first.state.joined.r1).toEqual({ batch_id: 'r1', role: 'owner', closes_at: at(MINUTE).toISOString(), owner_run_id: 'r1' });
  });

  it('given a merged run, when it leaves, then its event is taken out and the owner keeps the batch', () => {
    let state = accumulator.initialState();
    for (const [run_id, data] of [['r1', { n: 1 }], ['r2', { n: 2 }], ['r3', { n: 3 }]] as const) {
      state = handle(accumulator, state, { type: 'join', run_id, request: { ...request, data } }, T0).state;
    }
    const left = handle(accumulator, state, { type: 'leave', run_id: 'r2' }, at(1));
    expect(left.events).toEqual([{ type: 'accumulator.left.v1', batch_id: 'r1', run_id: 'r2' }]);
    const closed = handle(accumulator, left.state, { type: 'close', run_id: 'r1', batch_id: 'r1' }, at(MINUTE)).state;
    expect(closed.closed.r1).toMatchObject({ events: [{ n: 1 }, { n: 3 }], count: 2 });
  });

  it('given a closed batch, when its owner leaves, then nothing is appended', () => {
    const opened = handle(accumulator, accumulator.initialState(), { type: 'join', run_id: 'r1', request }, T0).state;
    const closed = handle(accumulator, opened, { type: 'close', run_id: 'r1', batch_id: 'r1' }, at(MINUTE)).state;
    expect(accumulator.decide({ type: 'leave', run_id: 'r1' }, closed, at(MINUTE))).toEqual([]);
    expect(accumulator.decide({ type: 'leave', run_id: 'unknown' }, closed, at(MINUTE))).toEqual([]);
  });

  it('given a closed batch, when its owner closes it again, or another run tries, then nothing is appended', () => {
    const opened = handle(accumulator, accumulator.initialState(), { type: 'join', run_id: 'r1', request }, T0).state;
    expect(accumulator.decide({ type: 'close', run_id: 'r2', batch_id: 'r1' }, opened, at(MINUTE))).toEqual([]);
    const closed = handle(accumulator, opened, { type: 'close', run_id: 'r1', batch_id: 'r1' }, at(MINUTE)).state;
    expect(closed.closed.r1).toMatchObject({ count: 1 });
    expect(accumulator.decide({ type: 'close', run_id: 'r1', batch_id: 'r1' }, closed, at(MINUTE))).toEqual([]);
  });
});
