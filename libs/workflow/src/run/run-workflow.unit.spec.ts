import { EventAccepted, TriggerAccepted } from '@herald/contracts';
import { ExpressionCondition, WorkflowNode } from '../definition';
import { rateLimitAllows } from './gates';
import { INTERPRETER_REVISION } from './interpreter-revision';
import { createRunDecider } from './run-decider';
import { startFromEvent, startFromTrigger } from './run-inputs';
import {
  RUN_ID,
  T0,
  at,
  cancel,
  context,
  decider,
  given,
  last,
  ofType,
  outcome,
  ports,
  sendEmail,
  start,
  startEvents,
  timerFired,
  types,
  user,
  when,
  workflow,
} from './testing/run-builders';

const onlyIf = (variable_ns: '' | '$recipient' | '$tenant', variable: string, value: string): ExpressionCondition => ({
  type: 'expression_v1',
  expression_v1: { op: 'AND', args: [{ variable_ns, variable, op: '==', value }] },
});
const delay1h: WorkflowNode = { node_type: 'delay', name: 'Wait', delay_type: 'fixed', duration: '1h' };

describe('workflow-level rules', () => {
  describe('conditions', () => {
    it('given conditions that hold, then the run is admitted and runs', () => {
      const events = startEvents(workflow([sendEmail()], { conditions: [onlyIf('$recipient', 'plan', 'pro')] }));
      expect(types(events)).toEqual(['run.started.v1', 'run.admitted.v1', 'node.entered.v1', 'delivery.requested.v1', 'run.completed.v1']);
    });

    it('given conditions that all fail, then the run is discarded with the reason', () => {
      const events = startEvents(workflow([sendEmail()], { conditions: [onlyIf('', 'order.total', '1'), onlyIf('$tenant', 'tenant_id', 'acme')] }));
      expect(events.slice(1)).toEqual([
        { type: 'run.discarded.v1', reason: 'conditions_not_met', detail: 'no condition holds (false: order.total ==, $tenant.tenant_id ==)', at: T0.toISOString() },
      ]);
    });

    it('given any one condition holds, then the run is admitted', () => {
      const events = startEvents(workflow([sendEmail()], { conditions: [onlyIf('', 'order.total', '1'), onlyIf('', 'order.total', '42')] }));
      expect(types(events)).toContain('run.admitted.v1');
    });
  });

  describe('rate limit', () => {
    const limit = { count: 2, sliding_window: '1h' };

    it.each([
      ['no earlier runs', [], true],
      ['one run in the window', ['2025-03-01T09:30:00Z'], true],
      ['two runs in the window', ['2025-03-01T09:30:00Z', '2025-03-01T09:59:59Z'], false],
      ['two runs, one just outside the window', ['2025-03-01T09:00:00Z', '2025-03-01T09:59:59Z'], true],
      ['runs with unreadable times', ['yesterday', 'soon', '2025-03-01T09:59:59Z'], true],
      ['runs after now', ['2025-03-01T10:30:00Z', '2025-03-01T10:40:00Z'], true],
    ])('given %s, then rateLimitAllows is %s', (_label, previous, allows) => {
      expect(rateLimitAllows(previous, T0, limit)).toBe(allows);
    });

    it('given the limit is reached, when a run starts, then it is discarded as rate limited', () => {
      const events = startEvents(workflow([sendEmail()], { ratelimit: limit }), {
        context: context({ recent_admissions: ['2025-03-01T09:30:00Z', '2025-03-01T09:45:00Z'] }),
      });
      expect(last(events)).toEqual({ type: 'run.discarded.v1', reason: 'rate_limited', detail: 'at most 2 runs per 1h for one recipient', at: T0.toISOString() });
    });
  });

  describe('overrides', () => {
    it('given override_actor_user_expr, then the actor changes and $actor reads it', () => {
      const events = startEvents(workflow([sendEmail()], { override_actor_user_expr: '.by' }), { data: { by: { distinct_id: 'boss', title: 'CEO' } } });
      expect(events[1]).toEqual({ type: 'actor.overridden.v1', actor: user({ distinct_id: 'boss', inline: false, properties: { title: 'CEO' } }) });
      expect(ofType(events, 'delivery.requested.v1')[0].delivery.render_data.$actor).toEqual({ title: 'CEO', distinct_id: 'boss' });
    });

    it('given override_tenant_expr naming a tenant the context has, then the run goes on with it', () => {
      const events = startEvents(workflow([sendEmail()], { override_tenant_expr: '.tenant' }), {
        data: { tenant: 'acme' },
        context: context({ tenant: { tenant_id: 'acme', properties: { color: 'red' } } }),
      });
      expect(types(events).slice(0, 3)).toEqual(['run.started.v1', 'tenant.overridden.v1', 'run.admitted.v1']);
      expect(ofType(events, 'delivery.requested.v1')[0].delivery).toMatchObject({ tenant_id: 'acme', render_data: { $tenant: { color: 'red', tenant_id: 'acme' } } });
    });

    it('given override_tenant_expr naming another tenant, then the run waits for a fresh context and admits on it', () => {
      const definition = workflow([sendEmail()], { override_tenant_expr: '.tenant', conditions: [onlyIf('$tenant', 'color', 'blue')] });
      const startInput = start(definition, { data: { tenant: 'globex' } });
      const events = decider.decide(startInput, decider.initialState(), T0);
      expect(events.slice(1)).toEqual([
        { type: 'tenant.overridden.v1', tenant_id: 'globex' },
        { type: 'timer.scheduled.v1', timer_id: `${RUN_ID}:timer:context`, due_at: T0.toISOString(), purpose: 'context_reload' },
      ]);
      const fresh = context({ tenant: { tenant_id: 'globex', properties: { color: 'blue' } } });
      const resumed = when([[startInput, T0]], timerFired(`${RUN_ID}:timer:context`, fresh), at(10));
      expect(types(resumed)).toEqual(['timer.fired.v1', 'run.admitted.v1', 'node.entered.v1', 'delivery.requested.v1', 'run.completed.v1']);
    });

    it('given override_recipients_user_expr, then the run lists the recipients and completes', () => {
      const events = startEvents(workflow([sendEmail()], { override_recipients_type: 'user', override_recipients_user_expr: '.watchers' }), {
        data: { watchers: ['u2', { distinct_id: 'u3', role: 'lead' }] },
      });
      expect(events.slice(1)).toEqual([
        { type: 'recipients.overridden.v1', recipients: [user({ distinct_id: 'u2', inline: false, properties: {} }), user({ distinct_id: 'u3', inline: false, properties: { role: 'lead' } })] },
        { type: 'run.completed.v1', at: T0.toISOString() },
      ]);
    });

    it('given override_recipients_single_object_fields_expr as jq per field, then one object recipient with its depth', () => {
      const events = startEvents(
        workflow([sendEmail()], {
          override_recipients_type: 'single_object_fields',
          override_recipients_single_object_fields_expr: { id: '.team', object_type: '"teams"', '$object_subscriptions_query.depth': '"1"' },
        }),
        { data: { team: 'eng' } },
      );
      expect(events[1]).toEqual({
        type: 'recipients.overridden.v1',
        recipients: [{ kind: 'object', object_type: 'teams', id: 'eng', inline: false, channels: {}, properties: {} }],
        object_subscriptions_depth: 1,
      });
    });

    it('given override_recipients_single_object_fields_expr as one jq filter, then one object recipient', () => {
      const events = startEvents(
        workflow([sendEmail()], { override_recipients_type: 'single_object_fields', override_recipients_single_object_fields_expr: '.object' }),
        { data: { object: { id: 42, object_type: 'teams' } } },
      );
      expect(ofType(events, 'recipients.overridden.v1')[0].recipients).toEqual([{ kind: 'object', object_type: 'teams', id: '42', inline: false, channels: {}, properties: {} }]);
    });

    it('given a run started for an overridden recipient, then overrides are not applied again', () => {
      const definition = workflow([sendEmail()], { override_recipients_type: 'user', override_recipients_user_expr: '.watchers', override_actor_user_expr: '.by' });
      const events = startEvents(definition, { source: { kind: 'recipient_override', parent_run_id: 'run-0' } });
      expect(types(events)).toEqual(['run.started.v1', 'run.admitted.v1', 'node.entered.v1', 'delivery.requested.v1', 'run.completed.v1']);
    });

    it.each([
      ['an actor expression yielding a number', { override_actor_user_expr: '.n' }, 'override_actor_user_expr gave 5, not a distinct_id or an object with one'],
      ['a tenant expression yielding nothing', { override_tenant_expr: 'empty' }, 'override_tenant_expr: jq filter "empty" produced no output'],
      ['a tenant expression yielding null', { override_tenant_expr: '.missing' }, 'override_tenant_expr gave null, not a tenant id'],
      [
        'a recipients expression yielding an object without distinct_id',
        { override_recipients_type: 'user' as const, override_recipients_user_expr: '.bad' },
        'override_recipients_user_expr gave {"id":1}, not a distinct_id or an object with one',
      ],
      [
        'an object depth out of range',
        { override_recipients_type: 'single_object_fields' as const, override_recipients_single_object_fields_expr: { id: '"x"', object_type: '"teams"', '$object_subscriptions_query.depth': '7' } },
        'override_recipients_single_object_fields_expr.$object_subscriptions_query.depth gave 7, not 0, 1 or 2',
      ],
      ['a jq error', { override_actor_user_expr: 'error("no actor")' }, 'override_actor_user_expr: jq error: no actor'],
    ])('given %s, then the run fails with the reason and no node', (_label, over, reason) => {
      const events = startEvents(workflow([sendEmail()], over), { data: { n: 5, bad: [{ id: 1 }] } });
      expect(last(events)).toEqual({ type: 'run.failed.v1', reason, at: T0.toISOString() });
    });
  });

  describe('cancellation', () => {
    const definition = workflow([delay1h, sendEmail()]);

    it('given a run waiting on a timer, when it is cancelled, then the timer is listed for cancellation', () => {
      expect(when([[start(definition), T0]], cancel('user unsubscribed'), at(5))).toEqual([
        { type: 'run.cancelled.v1', reason: 'user unsubscribed', cancelled_timers: [`${RUN_ID}:timer:0`], at: at(5).toISOString() },
      ]);
    });

    it('given a cancelled run, when its timer fires or it is cancelled again, then nothing is decided', () => {
      const cancelled = [[start(definition), T0], [cancel(), at(5)]] as const;
      expect(when(cancelled, timerFired(`${RUN_ID}:timer:0`), at(3_600_000))).toEqual([]);
      expect(when(cancelled, cancel(), at(10))).toEqual([]);
    });
  });

  it('given a run already started, when the start is redelivered, then nothing is decided', () => {
    expect(when([[start(workflow([delay1h])), T0]], start(workflow([delay1h])), at(1))).toEqual([]);
  });

  describe('delivery outcomes', () => {
    const completed = [[start(workflow([sendEmail()])), T0]] as const;
    const deliveryId = `${RUN_ID}:delivery:0:email`;

    it('given a completed run, when an outcome of its delivery arrives, then it is recorded', () => {
      expect(when(completed, outcome(deliveryId))).toEqual([{ type: 'delivery.outcome_recorded.v1', outcome: (outcome(deliveryId) as { outcome: unknown }).outcome }]);
    });

    it('given the same status already recorded, or an unknown delivery, then nothing is decided', () => {
      expect(when([...completed, [outcome(deliveryId), at(1)]], outcome(deliveryId, { at: at(2).toISOString() }))).toEqual([]);
      expect(when(completed, outcome('someone-else'))).toEqual([]);
    });

    it('given a delivery being retried, then each failed attempt is recorded once, a redelivered report of it not again', () => {
      const retrying = (attempts: number) => outcome(deliveryId, { status: 'retrying', attempts, error: { message: 'smtp: 421', retryable: true } });
      expect(when(completed, retrying(1))).toHaveLength(1);
      const afterFirst = [...completed, [retrying(1), at(1)]] as const;
      expect(when(afterFirst, retrying(1), at(2))).toEqual([]);
      expect(when(afterFirst, retrying(2), at(2))).toEqual([{ type: 'delivery.outcome_recorded.v1', outcome: (retrying(2) as { outcome: unknown }).outcome }]);
    });

    it('given a later status, then it is recorded too and folded into the state', () => {
      const { state } = given([...completed, [outcome(deliveryId), at(1)], [outcome(deliveryId, { status: 'seen' }), at(2)]]);
      expect(state.status === 'completed' && state.deliveries[deliveryId]).toEqual(['delivered', 'seen']);
    });
  });

  describe('start inputs from accepted messages', () => {
    const ids = { run_id: RUN_ID, workflow: { slug: 'welcome', version: 3, definition: workflow([sendEmail()]) }, context: context() };

    it('startFromTrigger carries the trigger over', () => {
      const trigger: TriggerAccepted = {
        message_id: 'm1',
        recipient_index: 0,
        recipient_count: 1,
        workspace_slug: 'staging',
        workflow: 'welcome',
        recipient: user(),
        actor: user({ distinct_id: 'a1' }),
        data: { x: 1 },
        attachments: [],
        tenant_id: 'acme',
        accepted_via: 'api',
        accepted_at: T0.toISOString(),
      };
      expect(startFromTrigger(trigger, ids)).toEqual({
        type: 'start',
        run_id: RUN_ID,
        message_id: 'm1',
        workspace_slug: 'staging',
        workflow: ids.workflow,
        source: { kind: 'trigger' },
        recipient: trigger.recipient,
        actor: trigger.actor,
        data: { x: 1 },
        attachments: [],
        tenant_id: 'acme',
        interpreter_revision: INTERPRETER_REVISION,
        context: ids.context,
      });
    });

    it('startFromEvent makes the event user the recipient and its properties the data', () => {
      const event: EventAccepted = {
        message_id: 'm2',
        workspace_slug: 'staging',
        distinct_id: 'u9',
        event: 'order_shipped',
        properties: { order: 7 },
        attachments: [],
        accepted_via: 'kafka',
        accepted_at: T0.toISOString(),
      };
      expect(startFromEvent(event, ids)).toMatchObject({
        source: { kind: 'event', event: 'order_shipped' },
        recipient: { kind: 'user', distinct_id: 'u9', inline: false, channels: {}, properties: {} },
        data: { order: 7 },
        interpreter_revision: INTERPRETER_REVISION,
      });
    });
  });
});

describe('robustness', () => {
  it('given an expression engine that throws, then the run fails instead of decide throwing', () => {
    const throwing = createRunDecider({
      preferences: ports.preferences,
      expressions: {
        ...ports.expressions,
        jq: () => {
          throw new Error('engine crashed');
        },
      },
    });
    const events = throwing.decide(start(workflow([{ node_type: 'delay', name: 'Wait', delay_type: 'dynamic', duration: '.x' }])), throwing.initialState(), T0);
    expect(last(events)).toMatchObject({ type: 'run.failed.v1', reason: 'duration: jq error: engine crashed' });
  });

  it('keeps every decided event plain JSON', () => {
    const events = startEvents(workflow([sendEmail()]));
    expect(JSON.parse(JSON.stringify(events))).toEqual(events);
  });
});
