import { DeliveryOutcome, JsonRecord, UserRecipient } from '@herald/contracts';
import { WorkflowDefinition, WorkflowNode } from '../../definition';
import { RecordedStep, handle } from '@herald/decider';
import { AccumulatorJoined } from '../accumulator';
import { NodePath } from '../node-path';
import { RunPorts } from '../ports';
import { RunContext, TemplateVariant } from '../run-context';
import { RunDecider, createRunDecider } from '../run-decider';
import { RunEvent } from '../run-events';
import { HttpResponse, RunInput, StartRun } from '../run-inputs';
import { RunState } from '../run-state';
import { fakeExpressions } from './fake-expressions';
import { simplePreferencePolicy } from './simple-preference-policy';

/**
 * Builders for given/when/then tests of the run decider: a valid run of the
 * `welcome` workflow for user `u1`, each part overridable.
 */

export const RUN_ID = 'run-1';
export const T0 = new Date('2025-03-01T10:00:00.000Z');
export const at = (offsetMs: number): Date => new Date(T0.getTime() + offsetMs);

export const ports: RunPorts = { expressions: fakeExpressions, preferences: simplePreferencePolicy };
export const decider: RunDecider = createRunDecider(ports);

export const workflow = (nodes: readonly WorkflowNode[], over: Partial<WorkflowDefinition> = {}): WorkflowDefinition => ({
  name: 'Welcome',
  category: 'transactional',
  trigger_type: 'api',
  tree: { nodes },
  ...over,
});

export const variant = (over: Partial<TemplateVariant> = {}): TemplateVariant => ({
  id: 'default-email',
  channel: 'email',
  locale: 'en',
  seq_no: 1,
  content: { subject: 'Hi {{name}}', html: '<p>Hello</p>' },
  ...over,
});

export const context = (over: Partial<RunContext> = {}): RunContext => ({
  recipient_profile: { properties: { plan: 'pro' }, channels: { email: ['stored@example.com'] }, locale: 'en' },
  preferences: {},
  templates: { welcome: { slug: 'welcome', variants: [variant()] } },
  ...over,
});

export const user = (over: Partial<UserRecipient> = {}): UserRecipient => ({
  kind: 'user',
  distinct_id: 'u1',
  is_transient: false,
  inline: true,
  channels: {},
  properties: { name: 'Ada' },
  ...over,
});

export const start = (definition: WorkflowDefinition, over: Partial<StartRun> = {}): StartRun => ({
  type: 'start',
  run_id: RUN_ID,
  message_id: 'msg-1',
  workspace_slug: 'staging',
  workflow: { slug: 'welcome', version: 3, definition },
  source: { kind: 'trigger' },
  recipient: user(),
  data: { order: { id: 'o-1', total: 42 } },
  attachments: [],
  context: context(),
  ...over,
});

export const timerFired = (timer_id: string, ctx: RunContext = context()): RunInput => ({ type: 'timer_fired', timer_id, context: ctx });

export const httpResponded = (request_id: string, response: HttpResponse, ctx: RunContext = context()): RunInput => ({
  type: 'http_responded',
  request_id,
  response,
  context: ctx,
});

export const futureEvent = (name: string, properties: JsonRecord, acceptedAt: Date, ctx: RunContext = context()): RunInput => ({
  type: 'future_event',
  event: { message_id: `event-${acceptedAt.getTime()}`, name, accepted_at: acceptedAt.toISOString(), properties },
  context: ctx,
});

export const accumulationJoined = (path: NodePath, joined: AccumulatorJoined, ctx: RunContext = context()): RunInput => ({ type: 'accumulation_joined', path, joined, context: ctx });

export const accumulationClosed = (path: NodePath, batch_id: string, events: readonly JsonRecord[], count = events.length, ctx: RunContext = context()): RunInput => ({
  type: 'accumulation_closed',
  path,
  batch_id,
  events,
  count,
  context: ctx,
});

export const cancel = (reason = 'cancelled by the client'): RunInput => ({ type: 'cancel', reason, context: context() });

export const outcome = (delivery_id: string, over: Partial<DeliveryOutcome> = {}): RunInput => ({
  type: 'delivery_outcome',
  outcome: {
    delivery_id,
    run_id: RUN_ID,
    message_id: 'msg-1',
    workspace_slug: 'staging',
    channel: 'email',
    status: 'delivered',
    at: T0.toISOString(),
    ...over,
  },
  context: context(),
});

/** Given these inputs happened (each at its time), the state they lead to and every event so far. */
export function given(steps: readonly (readonly [RunInput, Date])[]): { state: RunState; events: RunEvent[]; history: RecordedStep<RunInput, RunEvent>[] } {
  let state = decider.initialState();
  const events: RunEvent[] = [];
  const history: RecordedStep<RunInput, RunEvent>[] = [];
  for (const [input, now] of steps) {
    const decision = handle(decider, state, input, now);
    state = decision.state;
    events.push(...decision.events);
    history.push({ input, at: now, decided: decision.events });
  }
  return { state, events, history };
}

/** When `input` arrives after the given inputs: the events decided. */
export function when(previous: readonly (readonly [RunInput, Date])[], input: RunInput, now: Date = T0): readonly RunEvent[] {
  return decider.decide(input, given(previous).state, now);
}

/** The events a fresh run decides on start. */
export const startEvents = (definition: WorkflowDefinition, over: Partial<StartRun> = {}, now: Date = T0): readonly RunEvent[] =>
  decider.decide(start(definition, over), decider.initialState(), now);

export const ofType = <T extends RunEvent['type']>(events: readonly RunEvent[], type: T): Extract<RunEvent, { type: T }>[] =>
  events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);

export const types = (events: readonly RunEvent[]): string[] => events.map((event) => event.type);

/** The last event, which says how a decision ended. */
export const last = (events: readonly RunEvent[]): RunEvent => events[events.length - 1];

export const sendEmail = (over: JsonRecord = {}): WorkflowNode => ({ node_type: 'send_email', name: 'Email', template: 'welcome', ...over }) as WorkflowNode;
