import { WorkflowNode } from '../definition';
import { RUN_ID, T0, at, last, ofType, sendEmail, start, startEvents, timerFired, types, when, workflow } from './testing/run-builders';

const delay = (over: Record<string, unknown>): WorkflowNode => ({ node_type: 'delay', name: 'Wait', ...over }) as WorkflowNode;
const HOUR = 3_600_000;

describe('delay node', () => {
  describe('given a fixed delay of 1h30m', () => {
    const definition = workflow([delay({ delay_type: 'fixed', duration: '1h30m' }), sendEmail()]);

    it('when the run starts, then it schedules a timer 1h30m ahead and waits', () => {
      const events = startEvents(definition);
      expect(types(events)).toEqual(['run.started.v1', 'run.admitted.v1', 'node.entered.v1', 'timer.scheduled.v1']);
      expect(last(events)).toEqual({ type: 'timer.scheduled.v1', timer_id: `${RUN_ID}:timer:0`, due_at: at(1.5 * HOUR).toISOString(), purpose: 'delay' });
    });

    it('when the timer fires, then the run goes on to the next node and completes', () => {
      const events = when([[start(definition), T0]], timerFired(`${RUN_ID}:timer:0`), at(1.5 * HOUR));
      expect(types(events)).toEqual(['timer.fired.v1', 'node.entered.v1', 'delivery.requested.v1', 'run.completed.v1']);
    });

    it('when another timer fires, or the same one again, then nothing is decided', () => {
      expect(when([[start(definition), T0]], timerFired('other'), at(HOUR * 2))).toEqual([]);
      const fired = [[start(definition), T0], [timerFired(`${RUN_ID}:timer:0`), at(1.5 * HOUR)]] as const;
      expect(when(fired, timerFired(`${RUN_ID}:timer:0`), at(2 * HOUR))).toEqual([]);
    });
  });

  it.each([
    ['a duration text', '"2h"', 2 * HOUR],
    ['a number of seconds', '.wait_seconds', 90_000],
    ['a numeric text of seconds', '"60"', 60_000],
  ])('given a dynamic delay yielding %s, when the run starts, then the timer is due after it', (_label, expression, ms) => {
    const events = startEvents(workflow([delay({ delay_type: 'dynamic', duration: expression })]), { data: { wait_seconds: 90 } });
    expect(ofType(events, 'timer.scheduled.v1')[0].due_at).toBe(at(ms).toISOString());
  });

  describe('given a relative_to delay', () => {
    const relative = (over: Record<string, unknown>): WorkflowNode =>
      delay({ delay_type: 'relative_to', relative_to: { pivot_expr: '.meeting_at', offset_type: 'before', offset_value_type: 'fixed', offset_value: '15m', ...over } });
    const data = { meeting_at: at(2 * HOUR).toISOString(), lead: '30m' };

    it.each([
      ['15m before the pivot', {}, 2 * HOUR - 900_000],
      ['15m after the pivot', { offset_type: 'after' }, 2 * HOUR + 900_000],
      ['a jq offset before the pivot', { offset_value_type: 'dynamic', offset_value: '.lead' }, 2 * HOUR - 1_800_000],
    ])('when the run starts, then the timer is due %s', (_label, over, ms) => {
      const events = startEvents(workflow([relative(over)]), { data });
      expect(ofType(events, 'timer.scheduled.v1')[0].due_at).toBe(at(ms).toISOString());
    });

    it('when the pivot is given as epoch seconds, then it is read as such', () => {
      const events = startEvents(workflow([relative({})]), { data: { meeting_at: at(2 * HOUR).getTime() / 1000 } });
      expect(ofType(events, 'timer.scheduled.v1')[0].due_at).toBe(at(2 * HOUR - 900_000).toISOString());
    });

    it('when the due time has passed, then the delay fires at once and the run goes on', () => {
      const events = startEvents(workflow([relative({}), sendEmail()]), { data: { meeting_at: at(-HOUR).toISOString() } });
      expect(types(events)).toEqual([
        'run.started.v1',
        'run.admitted.v1',
        'node.entered.v1',
        'delay.elapsed.v1',
        'node.entered.v1',
        'delivery.requested.v1',
        'run.completed.v1',
      ]);
      expect(ofType(events, 'delay.elapsed.v1')[0]).toEqual({ type: 'delay.elapsed.v1', path: [0], due_at: at(-HOUR - 900_000).toISOString() });
    });
  });

  it('given a due time at the last millisecond of year 9999, when the run starts, then its timer is scheduled', () => {
    const lastStorable = '9999-12-31T23:59:59.999Z';
    const node = delay({ delay_type: 'relative_to', relative_to: { pivot_expr: `"${lastStorable}"`, offset_type: 'after', offset_value_type: 'fixed', offset_value: '0s' } });
    expect(ofType(startEvents(workflow([node])), 'timer.scheduled.v1')[0].due_at).toBe(lastStorable);
  });

  it.each([
    ['a dynamic duration that is not one', { delay_type: 'dynamic', duration: '"soon"' }, 'duration gave "soon", not a duration like 1d2h30m10s or a number of seconds'],
    ['a negative number of seconds', { delay_type: 'dynamic', duration: '-5' }, 'duration gave -5, not a duration like 1d2h30m10s or a number of seconds'],
    ['a missing dynamic value', { delay_type: 'dynamic', duration: '.nothing' }, 'duration gave null, not a duration like 1d2h30m10s or a number of seconds'],
    ['a jq error', { delay_type: 'dynamic', duration: 'error("boom")' }, 'duration: jq error: boom'],
    ['a filter with no output', { delay_type: 'dynamic', duration: 'empty' }, 'duration: jq filter "empty" produced no output'],
    [
      'a dynamic duration ending after year 9999 (no timer can be stored for it)',
      { delay_type: 'dynamic', duration: '400000000000' },
      'the due time +014700-08-30T01:06:40.000Z is out of range: a timer can be due at 9999-12-31T23:59:59.999Z at the latest',
    ],
    [
      'a delay_till pivot after year 9999 (epoch seconds)',
      { delay_type: 'relative_to', relative_to: { pivot_expr: '253402300800', offset_type: 'after', offset_value_type: 'fixed', offset_value: '1h' } },
      'the due time +010000-01-01T01:00:00.000Z is out of range: a timer can be due at 9999-12-31T23:59:59.999Z at the latest',
    ],
    [
      'a pivot that is not a timestamp',
      { delay_type: 'relative_to', relative_to: { pivot_expr: '"later"', offset_type: 'after', offset_value_type: 'fixed', offset_value: '1h' } },
      'relative_to.pivot_expr gave "later", not a timestamp (ISO 8601 or epoch seconds)',
    ],
    [
      'a fixed offset that is not a duration',
      { delay_type: 'relative_to', relative_to: { pivot_expr: '"2025-03-02T00:00:00Z"', offset_type: 'after', offset_value_type: 'fixed', offset_value: '1 hour' } },
      'relative_to.offset_value "1 hour" is not a duration like 1d2h30m10s',
    ],
  ])('given %s, when the run starts, then it fails naming the node and the reason', (_label, fields, reason) => {
    const events = startEvents(workflow([delay(fields)]));
    expect(last(events)).toEqual({
      type: 'run.failed.v1',
      reason,
      node: { path: [0], label: 'nodes[0]', name: 'Wait', node_type: 'delay' },
      at: T0.toISOString(),
    });
  });
});
