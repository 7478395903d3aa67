import { JsonRecord } from '@herald/contracts';
import { ComparisonOp, WorkflowNode } from '../definition';
import { RUN_ID, T0, at, cancel, futureEvent, last, ofType, sendEmail, start, startEvents, timerFired, types, when, workflow } from './testing/run-builders';

const HOUR = 3_600_000;
const TIMER = `${RUN_ID}:timer:0`;

interface EventCondition {
  readonly variable_ns?: string;
  readonly variable: string;
  readonly op: ComparisonOp;
  readonly value?: string;
}

const waitUntil = (eventConditions: readonly EventCondition[] = [], delay: JsonRecord = { delay_type: 'fixed', value: '1h' }): WorkflowNode =>
  ({
    node_type: 'branch_waituntil',
    name: 'Paid?',
    branches: [
      { name: 'paid', is_default: false, conditions: [{ type: 'future_event', event_name: 'order_paid', event_conditions: eventConditions }], nodes: [sendEmail({ name: 'Thanks' })] },
      { name: 'unpaid', is_default: true, conditions: [{ type: 'delay', delay_properties: delay }], nodes: [sendEmail({ name: 'Reminder' })] },
    ],
  }) as WorkflowNode;

const sentNode = (events: readonly unknown[]): string[] =>
  ofType(events as Parameters<typeof ofType>[0], 'delivery.requested.v1').map((event) => event.delivery.node_name);

describe('wait-until node', () => {
  describe('given a wait for order_paid of at most 1h', () => {
    const definition = workflow([waitUntil()]);
    const started = [[start(definition), T0]] as const;

    it('when the run reaches it, then it schedules the maximum wait and records what it waits for since when', () => {
      const events = startEvents(definition);
      expect(types(events)).toEqual(['run.started.v1', 'run.admitted.v1', 'node.entered.v1', 'timer.scheduled.v1', 'wait.started.v1']);
      expect(ofType(events, 'timer.scheduled.v1')[0]).toEqual({ type: 'timer.scheduled.v1', timer_id: TIMER, due_at: at(HOUR).toISOString(), purpose: 'wait_until' });
      expect(last(events)).toEqual({ type: 'wait.started.v1', path: [0], event_name: 'order_paid', since: T0.toISOString(), timer_id: TIMER, due_at: at(HOUR).toISOString() });
    });

    it('when the event arrives, then the run takes the future_event branch, deletes the timer and goes on', () => {
      const events = when(started, futureEvent('order_paid', { amount: 5 }, at(60_000)), at(61_000));
      expect(types(events)).toEqual(['wait.ended.v1', 'node.entered.v1', 'delivery.requested.v1', 'run.completed.v1']);
      expect(events[0]).toMatchObject({ outcome: 'future_event', branch_index: 0, branch_name: 'paid', cancelled_timer: TIMER, event: { name: 'order_paid', properties: { amount: 5 } } });
      expect(sentNode(events)).toEqual(['Thanks']);
    });

    it('when an event of another name arrives, then the run keeps waiting', () => {
      expect(when(started, futureEvent('order_shipped', {}, at(60_000)), at(61_000))).toEqual([]);
    });

    it.each([
      ['before the run reached the node', -1_000],
      ['at the very instant it did', 0],
    ])('when the event was accepted %s, then it does not count', (_label, offset) => {
      expect(when(started, futureEvent('order_paid', {}, at(offset)), at(5_000))).toEqual([]);
    });

    it('when the maximum wait passes, then the run takes the delay branch', () => {
      const events = when(started, timerFired(TIMER), at(HOUR));
      expect(types(events)).toEqual(['timer.fired.v1', 'wait.ended.v1', 'node.entered.v1', 'delivery.requested.v1', 'run.completed.v1']);
      expect(events[1]).toEqual({ type: 'wait.ended.v1', path: [0], branch_index: 1, branch_name: 'unpaid', outcome: 'timed_out', evaluations: [] });
      expect(sentNode(events)).toEqual(['Reminder']);
    });

    it('when the event arrives after the run timed out, or a second time, then nothing more is decided', () => {
      const timedOut = [...started, [timerFired(TIMER), at(HOUR)]] as const;
      expect(when(timedOut, futureEvent('order_paid', {}, at(HOUR + 1)), at(HOUR + 2))).toEqual([]);
      const resumed = [...started, [futureEvent('order_paid', {}, at(10)), at(20)]] as const;
      expect(when(resumed, futureEvent('order_paid', {}, at(30)), at(40))).toEqual([]);
      expect(when(resumed, timerFired(TIMER), at(HOUR))).toEqual([]);
    });

    it('when the run is cancelled while waiting, then its log says it stopped waiting and its timer goes', () => {
      const events = when(started, cancel('order refunded'), at(1_000));
      expect(events).toEqual([
        { type: 'wait.cancelled.v1', path: [0], event_name: 'order_paid' },
        { type: 'run.cancelled.v1', reason: 'order refunded', cancelled_timers: [TIMER], at: at(1_000).toISOString() },
      ]);
      expect(when([...started, [cancel(), at(1_000)]], futureEvent('order_paid', {}, at(2_000)), at(2_000))).toEqual([]);
    });
  });

  describe('given event_conditions on the event', () => {
    const properties = { amount: 120, currency: 'EUR', tags: ['vip', 'eu'], note: '', paid_at: '2025-03-01T10:30:00Z' };

    it.each([
      ['==', 'currency', 'EUR', true],
      ['==', 'currency', 'USD', false],
      ['!=', 'currency', 'USD', true],
      ['>', 'amount', '100', true],
      ['>', 'amount', '120', false],
      ['<', 'amount', '100', false],
      ['>=', 'amount', '120', true],
      ['<=', 'amount', '119', false],
      ['EMPTY', 'note', undefined, true],
      ['EMPTY', 'currency', undefined, false],
      ['NON_EMPTY', 'currency', undefined, true],
      ['NON_EMPTY', 'missing', undefined, false],
      ['CONTAINS', 'tags', 'vip', true],
      ['CONTAINS', 'currency', 'US', false],
      ['NOT_CONTAINS', 'tags', 'us', true],
      ['NOT_CONTAINS', 'tags', 'eu', false],
      ['DATETIME_EQUALS', 'paid_at', '2025-03-01T11:30:00+01:00', true],
      ['DATETIME_LT', 'paid_at', '2025-03-01T10:00:00Z', false],
      ['DATETIME_GT', 'paid_at', '2025-03-01T10:00:00Z', true],
    ] as const)('$future_event.%s: %s against %s resumes the run: %s', (op, variable, value, resumes) => {
      const condition = { variable_ns: '$future_event', variable, op, ...(value === undefined ? {} : { value }) };
      const events = when([[start(workflow([waitUntil([condition])])), T0]], futureEvent('order_paid', properties, at(1_000)), at(1_000));
      expect(types(events).includes('wait.ended.v1')).toBe(resumes);
      if (resumes) expect(ofType(events, 'wait.ended.v1')[0].evaluations).toEqual([expect.objectContaining({ variable_ns: '$future_event', variable, op, result: true })]);
    });

    it('when the conditions also read the payload, the recipient, the actor and the tenant, then all of them must hold', () => {
      const conditions = [
        { variable_ns: '', variable: 'order.id', op: '==', value: 'o-1' },
        { variable_ns: '$recipient', variable: 'plan', op: '==', value: 'pro' },
        { variable_ns: '$actor', variable: 'distinct_id', op: 'EMPTY' },
        { variable_ns: '$tenant', variable: 'tenant_id', op: 'EMPTY' },
        { variable_ns: '$future_event', variable: 'order_id', op: '==', value: 'o-1' },
      ] as const;
      const started = [[start(workflow([waitUntil(conditions)])), T0]] as const;
      expect(types(when(started, futureEvent('order_paid', { order_id: 'o-2' }, at(1_000)), at(1_000)))).toEqual([]);
      const events = when(started, futureEvent('order_paid', { order_id: 'o-1' }, at(1_000)), at(1_000));
      expect(ofType(events, 'wait.ended.v1')[0].evaluations.map((trace) => trace.result)).toEqual([true, true, true, true, true]);
    });

    it('when a non-matching event came first, then the run still waits for a matching one', () => {
      const node = waitUntil([{ variable_ns: '$future_event', variable: 'amount', op: '>', value: '100' }]);
      const steps = [
        [start(workflow([node])), T0],
        [futureEvent('order_paid', { amount: 50 }, at(1_000)), at(1_000)],
      ] as const;
      expect(types(when(steps, futureEvent('order_paid', { amount: 150 }, at(2_000)), at(2_000)))[0]).toBe('wait.ended.v1');
    });
  });

  describe('given other kinds of maximum wait', () => {
    it('when the delay is dynamic, then the timer is due after what jq gave', () => {
      const events = startEvents(workflow([waitUntil([], { delay_type: 'dynamic', value: '.wait' })]), { data: { wait: '2h' } });
      expect(ofType(events, 'wait.started.v1')[0].due_at).toBe(at(2 * HOUR).toISOString());
    });

    it('when the delay is relative to a timestamp, then the timer is due at the pivot moved by the offset', () => {
      const relative = { pivot_expr: '.due', offset_type: 'before', offset_value_type: 'fixed', offset_value: '30m' };
      const events = startEvents(workflow([waitUntil([], { delay_type: 'relative_to', relative_to: relative })]), { data: { due: at(3 * HOUR).toISOString() } });
      expect(ofType(events, 'timer.scheduled.v1')[0].due_at).toBe(at(2.5 * HOUR).toISOString());
    });

    it('when the maximum wait has already passed, then the run takes the delay branch at once', () => {
      const relative = { pivot_expr: '.due', offset_type: 'after', offset_value_type: 'fixed', offset_value: '1m' };
      const events = startEvents(workflow([waitUntil([], { delay_type: 'relative_to', relative_to: relative })]), { data: { due: at(-HOUR).toISOString() } });
      expect(types(events)).toEqual(['run.started.v1', 'run.admitted.v1', 'node.entered.v1', 'wait.ended.v1', 'node.entered.v1', 'delivery.requested.v1', 'run.completed.v1']);
      expect(ofType(events, 'wait.ended.v1')[0].outcome).toBe('timed_out');
    });

    it('when the maximum wait ends after year 9999, then the run fails naming the node instead of scheduling a timer that cannot be stored', () => {
      const events = startEvents(workflow([waitUntil([], { delay_type: 'dynamic', value: '.wait_seconds' })]), { data: { wait_seconds: 400_000_000_000 } });
      expect(ofType(events, 'timer.scheduled.v1')).toEqual([]);
      expect(last(events)).toMatchObject({
        type: 'run.failed.v1',
        reason: 'the due time +014700-08-30T01:06:40.000Z is out of range: a timer can be due at 9999-12-31T23:59:59.999Z at the latest',
        node: { node_type: 'branch_waituntil' },
      });
    });

    it('when the dynamic delay is not a duration, then the run fails naming the node', () => {
      const events = startEvents(workflow([waitUntil([], { delay_type: 'dynamic', value: '"soon"' })]));
      expect(last(events)).toMatchObject({ type: 'run.failed.v1', reason: 'delay_properties.value gave "soon", not a duration like 1d2h30m10s or a number of seconds', node: { node_type: 'branch_waituntil' } });
    });
  });
});
