import { INPUT_LIMITS, storableText } from '@herald/contracts';
import { BatchNode, BranchNode, BranchWaitUntilNode, DelayCondition, DigestNode, FutureEventCondition, HttpFetchNode, HttpWebhookNode, WorkflowNode } from '../definition';
import { digestShouldSend } from '../schedule/batch-content';
import { batchRequest, digestRequest } from './accumulation-request';
import { Decider, assertNever } from '@herald/decider';
import { evaluateComparisons, evaluateConditions } from './conditions';
import { Result, fail, ok } from './evaluate';
import { overriddenActor, overriddenRecipients, overriddenTenant, rateLimitAllows } from './gates';
import { NO_ANSWER_LIMITS, buildRequest, responseEffect } from './http';
import { NodePath, contextReloadTimerId, httpRequestId, nodeAt, pathLabel, timerId } from './node-path';
import { RunPorts } from './ports';
import { RunContext } from './run-context';
import { AccumulationRequest, ComparisonTrace, NodeRef, RunEvent } from './run-events';
import {
  AccumulationClosedInput,
  AccumulationHandedOverInput,
  AccumulationJoinedInput,
  CancelRun,
  DeliveryOutcomeInput,
  FutureEventInput,
  HttpRespondedInput,
  RunInput,
  StartRun,
  TimerFiredInput,
} from './run-inputs';
import { runsRevision } from './interpreter-revision';
import { RunScope, runScope } from './run-scope';
import { AccumulationWaiting, LiveRun, RunState, Waiting, evolveRun, initialRunState } from './run-state';
import { decideRoutingFallback, decideSend } from './send';
import { delayDueAt, waitTimeoutAt } from './timing';

export type RunDecider = Decider<RunInput, RunEvent, RunState>;

/**
 * The workflow run interpreter. `decide` consumes one input and runs the tree as far
 * as it can without waiting: it stops at a timer, an http request, or the end of the
 * run. An input the run cannot use (a duplicate start, a stale timer, an unknown
 * request or delivery) decides nothing, so redelivered inputs are harmless.
 */
export function createRunDecider(ports: RunPorts): RunDecider {
  return {
    initialState: initialRunState,
    evolve: evolveRun,
    decide: (input, state, now) => decideRun(ports, input, state, now),
  };
}

function decideRun(ports: RunPorts, input: RunInput, state: RunState, now: Date): readonly RunEvent[] {
  switch (input.type) {
    case 'start':
      return state.status === 'new' ? start(new Step(ports, state, input.context, now), input) : [];
    case 'timer_fired':
      return isRunning(state) ? timerFired(new Step(ports, state, input.context, now), state, input) : [];
    case 'http_responded':
      return isRunning(state) ? httpResponded(new Step(ports, state, input.context, now), state, input) : [];
    case 'delivery_outcome':
      return deliveryOutcome(state, input, () => new Step(ports, state, input.context, now));
    case 'cancel':
      return isRunning(state) ? cancel(state, input, now) : [];
    case 'future_event':
      return isRunning(state) ? futureEvent(new Step(ports, state, input.context, now), state, input) : [];
    case 'accumulation_joined':
      return isRunning(state) ? accumulationJoined(new Step(ports, state, input.context, now), state, input) : [];
    case 'accumulation_closed':
      return isRunning(state) ? accumulationClosed(new Step(ports, state, input.context, now), state, input) : [];
    case 'accumulation_handed_over':
      return state.status === 'completed' ? accumulationHandedOver(new Step(ports, state, input.context, now), state, input) : [];
    default:
      return assertNever(input);
  }
}

/** The events decided so far, and the state they lead to. */
class Step {
  readonly events: RunEvent[] = [];
  readonly at: string;
  /** The latest scope and the run it was built from: a start asks for it up to three times (overrides, conditions, a batch key). */
  private scoped?: { readonly run: LiveRun; readonly scope: RunScope };

  constructor(
    readonly ports: RunPorts,
    private state: RunState,
    readonly context: RunContext,
    readonly now: Date,
  ) {
    this.at = now.toISOString();
  }

  get run(): LiveRun {
    if (this.state.status === 'new') throw new Error('a run step before run.started.v1'); // a bug in this file, never client input
    return this.state;
  }

  emit(...events: readonly RunEvent[]): void {
    for (const event of events) {
      this.events.push(event);
      this.state = evolveRun(this.state, event);
    }
  }

  fail(reason: string, node?: NodeRef): readonly RunEvent[] {
    // A reason may quote what a run's data or an answer held (a jq error's text): it must be storable, or the failure could never be recorded.
    this.emit({ type: 'run.failed.v1', reason: storableText(reason), ...(node === undefined ? {} : { node }), at: this.at });
    return this.events;
  }

  /** runScope of the run as it is now; rebuilt only when an event changed what it reads (evolve replaces, never mutates). */
  scope(): RunScope {
    const run = this.run;
    const scoped = this.scoped;
    if (scoped && SCOPE_INPUTS.every((key) => scoped.run[key] === run[key])) return scoped.scope;
    const scope = runScope(run, this.context);
    this.scoped = { run, scope };
    return scope;
  }
}

/** What runScope reads of a run (besides the step's context, fixed for the step). */
const SCOPE_INPUTS = ['started', 'actor', 'tenant_id', 'data', 'batched'] as const satisfies ReadonlyArray<keyof LiveRun>;

function isRunning(state: RunState): state is LiveRun {
  return state.status === 'running';
}

// ---- start: overrides, conditions, rate limit

function start(step: Step, input: StartRun): readonly RunEvent[] {
  step.emit({
    type: 'run.started.v1',
    run_id: input.run_id,
    message_id: input.message_id,
    workspace_slug: input.workspace_slug,
    workflow: { slug: input.workflow.slug, version: input.workflow.version },
    definition: input.workflow.definition,
    source: input.source,
    recipient: input.recipient,
    ...(input.actor === undefined ? {} : { actor: input.actor }),
    ...(input.tenant_id === undefined ? {} : { tenant_id: input.tenant_id }),
    ...(input.idempotency_key === undefined ? {} : { idempotency_key: input.idempotency_key }),
    data: input.data,
    attachments: input.attachments,
    started_at: step.at,
    ...(input.interpreter_revision === undefined ? {} : { interpreter_revision: input.interpreter_revision }),
  });
  // A run started for an overridden recipient already carries its parent's overrides.
  return input.source.kind === 'recipient_override' ? admit(step) : applyOverrides(step);
}

function applyOverrides(step: Step): readonly RunEvent[] {
  const { definition } = step.run.started;
  const { expressions } = step.ports;
  if (definition.override_actor_user_expr !== undefined) {
    const actor = overriddenActor(definition.override_actor_user_expr, step.scope(), expressions);
    if (!actor.ok) return step.fail(actor.error);
    step.emit({ type: 'actor.overridden.v1', actor: actor.value });
  }
  let tenantChanged = false;
  if (definition.override_tenant_expr !== undefined) {
    const tenant = overriddenTenant(definition.override_tenant_expr, step.scope(), expressions);
    if (!tenant.ok) return step.fail(tenant.error);
    tenantChanged = tenant.value !== step.run.tenant_id;
    if (tenantChanged) step.emit({ type: 'tenant.overridden.v1', tenant_id: tenant.value });
  }
  const recipients = overriddenRecipients(definition, step.scope(), expressions);
  if (recipients !== undefined) {
    if (!recipients.ok) return step.fail(recipients.error);
    step.emit({ type: 'recipients.overridden.v1', ...recipients.value }, { type: 'run.completed.v1', at: step.at });
    return step.events;
  }
  if (tenantChanged && step.context.tenant?.tenant_id !== step.run.tenant_id) {
    // The context was loaded for the trigger's tenant: wait (no time) for the host to load the new one.
    step.emit({ type: 'timer.scheduled.v1', timer_id: contextReloadTimerId(step.run.started.run_id), due_at: step.at, purpose: 'context_reload' });
    return step.events;
  }
  return admit(step);
}

function admit(step: Step): readonly RunEvent[] {
  const { definition } = step.run.started;
  const conditions = evaluateConditions(definition.conditions ?? [], step.scope(), step.ports.expressions);
  if (!conditions.ok) return step.fail(`conditions: ${conditions.error}`);
  if (!conditions.value.holds) {
    step.emit({ type: 'run.discarded.v1', reason: 'conditions_not_met', detail: describeFailedConditions(conditions.value.evaluations, runsRevision(step.run.started, 2)), at: step.at });
    return step.events;
  }
  const limit = definition.ratelimit;
  if (limit !== undefined && !rateLimitAllows(step.context.recent_admissions ?? [], step.now, limit)) {
    const detail = `at most ${limit.count} runs per ${limit.sliding_window} for one recipient`;
    step.emit({ type: 'run.discarded.v1', reason: 'rate_limited', detail, at: step.at });
    return step.events;
  }
  step.emit({ type: 'run.admitted.v1', at: step.at });
  return advance(step);
}

function describeFailedConditions(evaluations: readonly ComparisonTrace[], withOperands: boolean): string {
  const operands = (trace: ComparisonTrace): string => (withOperands ? ` (${JSON.stringify(trace.left ?? null)} vs ${JSON.stringify(trace.right ?? null)})` : '');
  const failed = evaluations.filter((trace) => !trace.result).map((trace) => `${trace.variable_ns}${trace.variable_ns === '' ? '' : '.'}${trace.variable} ${trace.op}${operands(trace)}`);
  return failed.length === 0 ? 'no condition holds' : `no condition holds (false: ${failed.join(', ')})`;
}

// ---- inputs of a running run

function timerFired(step: Step, run: LiveRun, input: TimerFiredInput): readonly RunEvent[] {
  const waiting = run.waiting;
  if (waiting === undefined || timerOf(waiting) !== input.timer_id) return [];
  step.emit({ type: 'timer.fired.v1', timer_id: input.timer_id });
  switch (waiting.kind) {
    case 'timer':
      return waiting.purpose === 'context_reload' ? admit(step) : advance(step);
    case 'event':
      return waitTimedOut(step, waiting.path);
    case 'accumulation':
      return closeAccumulation(step, waiting);
    case 'http':
      return step.events; // unreachable: timerOf names no timer for an http wait
    default:
      return assertNever(waiting);
  }
}

/** The timer a waiting run would take: delays, a wait-until's maximum wait, a batch owner's window end. */
function timerOf(waiting: Waiting): string | undefined {
  switch (waiting.kind) {
    case 'timer':
    case 'event':
      return waiting.timer_id;
    case 'accumulation':
      return waiting.stage === 'open' ? waiting.timer_id : undefined;
    case 'http':
      return undefined;
    default:
      return assertNever(waiting);
  }
}

function httpResponded(step: Step, run: LiveRun, input: HttpRespondedInput): readonly RunEvent[] {
  const waiting = run.waiting;
  if (waiting?.kind !== 'http' || waiting.request_id !== input.request_id) return [];
  const { response } = input;
  step.emit({
    type: 'http.responded.v1',
    request_id: input.request_id,
    ...(response.kind === 'response' ? { status: response.status } : { error: response.error }),
  });
  const node = nodeAt(run.started.definition.tree, waiting.path);
  if (node?.node_type !== 'httpapi_webhook' && node?.node_type !== 'httpapi_fetch') return step.fail(`no http node at ${pathLabel(waiting.path)}`);
  const effect = responseEffect(node, waiting.target, response, runsRevision(run.started, 3) ? INPUT_LIMITS : NO_ANSWER_LIMITS);
  switch (effect.kind) {
    case 'fail':
      return step.fail(effect.reason, nodeRef(node, waiting.path));
    case 'merge':
      step.emit({ type: 'output.merged.v1', path: waiting.path, ...(effect.key === undefined ? {} : { key: effect.key }), value: effect.value });
      return advance(step);
    case 'nothing':
      return advance(step);
    default:
      return assertNever(effect);
  }
}

/** The statuses that say a delivery will not reach its recipient: smart routing moves on. */
const FAILED_FOR_GOOD: ReadonlyArray<DeliveryOutcomeInput['outcome']['status']> = ['delivery_failure', 'bounced'];

/**
 * Recorded on a finished run too: outcomes keep arriving after the last node. Each status
 * once per delivery. A smart-routing delivery that failed for good is followed by the
 * node's next channel (revision 4), whether or not the run has moved on.
 */
function deliveryOutcome(state: RunState, input: DeliveryOutcomeInput, newStep: () => Step): readonly RunEvent[] {
  if (state.status === 'new') return [];
  const recorded = state.deliveries[input.outcome.delivery_id];
  if (recorded === undefined) return [];
  // A delivery retries several times: each failed attempt once (a redelivered report of the same attempt is not new).
  if (input.outcome.status === 'retrying') {
    const retriesRecorded = recorded.filter((status) => status === 'retrying').length;
    return retriesRecorded < (input.outcome.attempts ?? 1) ? [{ type: 'delivery.outcome_recorded.v1', outcome: input.outcome }] : [];
  }
  if (recorded.includes(input.outcome.status)) return [];
  const outcomeRecorded: RunEvent = { type: 'delivery.outcome_recorded.v1', outcome: input.outcome };
  const failedBefore = recorded.some((status) => FAILED_FOR_GOOD.includes(status));
  if (!FAILED_FOR_GOOD.includes(input.outcome.status) || failedBefore || !runsRevision(state.started, 4)) return [outcomeRecorded];
  const step = newStep();
  step.emit(outcomeRecorded);
  const fallback = decideRoutingFallback({ run: step.run, context: step.context, scope: step.scope(), ports: step.ports, now: step.now }, input.outcome.delivery_id);
  // A fallback that cannot be decided (its template no longer selects) leaves the failure as the outcome; the run is not failed after the fact.
  if (fallback.ok) step.emit(...fallback.value);
  return step.events;
}

function cancel(run: LiveRun, input: CancelRun, now: Date): readonly RunEvent[] {
  const waiting = run.waiting;
  const timer = waiting === undefined ? undefined : timerOf(waiting);
  const cancelled: RunEvent = { type: 'run.cancelled.v1', reason: input.reason, cancelled_timers: timer === undefined ? [] : [timer], at: now.toISOString() };
  // The host drops the run from its wait index on wait.cancelled.v1 and from its batch on accumulation.left.v1; the log says what the run was waiting for.
  switch (waiting?.kind) {
    case 'event':
      return [{ type: 'wait.cancelled.v1', path: waiting.path, event_name: waiting.event_name }, cancelled];
    case 'accumulation':
      return [{ type: 'accumulation.left.v1', path: waiting.path, ...(waiting.stage === 'joining' ? {} : { batch_id: waiting.batch_id }) }, cancelled];
    default:
      return [cancelled];
  }
}

// ---- wait-until

/**
 * A branch_waituntil node waits for its future_event branch's event (accepted after the
 * run got here) under a durable timer for its delay branch. A maximum wait that has
 * already passed takes the delay branch at once.
 */
function waitUntil(step: Step, node: BranchWaitUntilNode, path: NodePath): Result<readonly RunEvent[]> {
  const branches = waitUntilBranches(node);
  if (!branches.ok) return branches;
  const { event, delay } = branches.value;
  const dueAt = waitTimeoutAt(delay.condition.delay_properties, step.scope(), step.ports.expressions, step.now);
  if (!dueAt.ok) return dueAt;
  if (dueAt.value <= step.now.getTime()) return ok([waitEnded(node, path, delay.index, 'timed_out', [])]);
  const timer_id = timerId(step.run.started.run_id, path);
  const due_at = new Date(dueAt.value).toISOString();
  return ok([
    { type: 'timer.scheduled.v1', timer_id, due_at, purpose: 'wait_until' },
    { type: 'wait.started.v1', path, event_name: event.condition.event_name, since: step.at, timer_id, due_at },
  ]);
}

interface WaitUntilBranches {
  readonly event: { readonly index: number; readonly condition: FutureEventCondition };
  readonly delay: { readonly index: number; readonly condition: DelayCondition };
}

/** The validator guarantees this shape; a definition that skipped it fails the run rather than guessing. */
function waitUntilBranches(node: BranchWaitUntilNode): Result<WaitUntilBranches> {
  const conditions = node.branches.map((branch) => branch.conditions[0]);
  const eventIndex = conditions.findIndex((condition) => condition?.type === 'future_event');
  const delayIndex = conditions.findIndex((condition) => condition?.type === 'delay');
  const event = conditions[eventIndex];
  const delay = conditions[delayIndex];
  if (node.branches.length !== 2 || event?.type !== 'future_event' || delay?.type !== 'delay') {
    return fail('a wait-until node needs exactly two branches, one waiting for a future_event and one with the delay');
  }
  return ok({ event: { index: eventIndex, condition: event }, delay: { index: delayIndex, condition: delay } });
}

function waitEnded(
  node: BranchWaitUntilNode,
  path: NodePath,
  index: number,
  outcome: 'future_event' | 'timed_out',
  evaluations: readonly ComparisonTrace[],
  extra: Partial<Pick<Extract<RunEvent, { type: 'wait.ended.v1' }>, 'event' | 'cancelled_timer'>> = {},
): RunEvent {
  const name = node.branches[index].name;
  return { type: 'wait.ended.v1', path, branch_index: index, ...(name === undefined ? {} : { branch_name: name }), outcome, ...extra, evaluations };
}

function waitTimedOut(step: Step, path: NodePath): readonly RunEvent[] {
  const node = nodeAt(step.run.started.definition.tree, path);
  if (node?.node_type !== 'branch_waituntil') return step.fail(`no wait-until node at ${pathLabel(path)}`);
  const branches = waitUntilBranches(node);
  if (!branches.ok) return step.fail(branches.error, nodeRef(node, path));
  step.emit(waitEnded(node, path, branches.value.delay.index, 'timed_out', []));
  return advance(step);
}

/**
 * An event of the name the run waits for resumes it on the future_event branch when it
 * was accepted after the wait began and its event_conditions hold; otherwise nothing
 * is decided and the run keeps waiting.
 */
function futureEvent(step: Step, run: LiveRun, input: FutureEventInput): readonly RunEvent[] {
  const waiting = run.waiting;
  const { event } = input;
  if (waiting?.kind !== 'event' || waiting.event_name !== event.name) return [];
  if (!(Date.parse(event.accepted_at) > Date.parse(waiting.since))) return [];
  const node = nodeAt(run.started.definition.tree, waiting.path);
  if (node?.node_type !== 'branch_waituntil') return step.fail(`no wait-until node at ${pathLabel(waiting.path)}`);
  const branches = waitUntilBranches(node);
  if (!branches.ok) return step.fail(branches.error, nodeRef(node, waiting.path));
  const { index, condition } = branches.value.event;
  const scope = { ...step.scope(), future_event: event.properties };
  const outcome = evaluateComparisons(condition.event_conditions ?? [], scope, step.ports.expressions);
  if (!outcome.ok) return step.fail(`event_conditions: ${outcome.error}`, nodeRef(node, waiting.path));
  if (!outcome.value.holds) return [];
  step.emit(waitEnded(node, waiting.path, index, 'future_event', outcome.value.evaluations, { event, cancelled_timer: waiting.timer_id }));
  return advance(step);
}

// ---- batch and digest

/** The accumulator's answer: the owner waits for the window's end, the leading item goes on, anyone else is merged and ends. */
function accumulationJoined(step: Step, run: LiveRun, input: AccumulationJoinedInput): readonly RunEvent[] {
  const waiting = run.waiting;
  if (waiting?.kind !== 'accumulation' || waiting.stage !== 'joining' || pathLabel(waiting.path) !== pathLabel(input.path)) return [];
  const { joined } = input;
  const path = waiting.path;
  switch (joined.role) {
    case 'leading':
      step.emit({ type: 'accumulation.leading.v1', path, batch_id: joined.batch_id });
      return advance(step);
    case 'merged':
      step.emit({ type: 'accumulation.merged.v1', path, batch_id: joined.batch_id, owner_run_id: joined.owner_run_id ?? joined.batch_id }, { type: 'run.completed.v1', at: step.at });
      return step.events;
    case 'owner':
      return ownAccumulation(step, path, joined.batch_id, joined.closes_at);
    default:
      return assertNever(joined.role);
  }
}

/** A merged run whose batch owner was cancelled takes the batch over and waits for the same window end. */
function accumulationHandedOver(step: Step, run: LiveRun, input: AccumulationHandedOverInput): readonly RunEvent[] {
  const merged = run.merged;
  if (merged === undefined || merged.batch_id !== input.batch_id || pathLabel(merged.path) !== pathLabel(input.path)) return [];
  step.emit({ type: 'accumulation.handed_over.v1', path: merged.path, batch_id: input.batch_id, from_run_id: input.from_run_id });
  return ownAccumulation(step, merged.path, input.batch_id, input.closes_at);
}

function ownAccumulation(step: Step, path: NodePath, batch_id: string, closes_at: string): readonly RunEvent[] {
  if (Date.parse(closes_at) <= step.now.getTime()) {
    step.emit({ type: 'accumulation.owned.v1', path, batch_id, closes_at });
    const waiting = step.run.waiting;
    return waiting?.kind === 'accumulation' ? closeAccumulation(step, waiting) : step.fail(`the batch at ${pathLabel(path)} is not open`);
  }
  const timer_id = timerId(step.run.started.run_id, path);
  step.emit({ type: 'timer.scheduled.v1', timer_id, due_at: closes_at, purpose: 'accumulation_close' }, { type: 'accumulation.owned.v1', path, batch_id, closes_at, timer_id });
  return step.events;
}

function closeAccumulation(step: Step, waiting: AccumulationWaiting): readonly RunEvent[] {
  if (waiting.stage !== 'open') return step.fail(`the batch at ${pathLabel(waiting.path)} is not open`);
  step.emit({ type: 'accumulation.closing.v1', path: waiting.path, batch_id: waiting.batch_id });
  return step.events;
}

/** The closed batch becomes `$batched_events`; a digest below trigger_min_count ends the run unsent. */
function accumulationClosed(step: Step, run: LiveRun, input: AccumulationClosedInput): readonly RunEvent[] {
  const waiting = run.waiting;
  if (waiting?.kind !== 'accumulation' || waiting.stage !== 'closing' || waiting.batch_id !== input.batch_id) return [];
  const path = waiting.path;
  step.emit({ type: 'accumulation.released.v1', path, batch_id: input.batch_id, events: input.events, count: input.count });
  const node = nodeAt(run.started.definition.tree, path);
  if (node?.node_type === 'digest' && !digestShouldSend(input.count, node.trigger_min_count)) {
    step.emit({ type: 'digest.skipped.v1', path, count: input.count, trigger_min_count: node.trigger_min_count ?? 1 }, { type: 'run.completed.v1', at: step.at });
    return step.events;
  }
  return advance(step);
}

function accumulate(request: Result<AccumulationRequest>, path: NodePath): Result<readonly RunEvent[]> {
  return request.ok ? ok([{ type: 'accumulation.requested.v1', path, request: request.value }]) : request;
}

function batchNode(step: Step, node: BatchNode, path: NodePath): Result<readonly RunEvent[]> {
  return accumulate(batchRequest(node, step.run.data, step.scope(), step.ports.expressions, step.now), path);
}

function digestNode(step: Step, node: DigestNode, path: NodePath): Result<readonly RunEvent[]> {
  return accumulate(digestRequest(node, step.run.data, step.scope(), step.ports.expressions, step.context.preferences, step.now), path);
}

// ---- the tree

/** Enters nodes one after another until the run waits, fails or reaches the end. */
function advance(step: Step): readonly RunEvent[] {
  const tree = step.run.started.definition.tree;
  while (step.run.status === 'running' && step.run.waiting === undefined) {
    const path = step.run.next;
    if (path === undefined) {
      step.emit({ type: 'run.completed.v1', at: step.at });
      break;
    }
    const node = nodeAt(tree, path);
    if (node === undefined) return step.fail(`no node at ${pathLabel(path)}`);
    const ref = nodeRef(node, path);
    step.emit({ type: 'node.entered.v1', node: ref });
    const events = executeNode(step, node, path);
    if (!events.ok) return step.fail(events.error, ref);
    step.emit(...events.value);
  }
  return step.events;
}

function executeNode(step: Step, node: WorkflowNode, path: NodePath): Result<readonly RunEvent[]> {
  switch (node.node_type) {
    case 'delay':
      return delay(step, delayDueAt(node, step.scope(), step.ports.expressions, step.now), path);
    case 'branch':
      return branch(step, node, path);
    case 'httpapi_webhook':
    case 'httpapi_fetch':
      return httpRequest(step, node, path);
    case 'send_email':
    case 'send_sms':
    case 'send_whatsapp':
    case 'send_inbox':
    case 'send_mobile_push':
    case 'send_webpush':
    case 'send_slack':
    case 'send_ms_teams':
    case 'send_multi_channel':
    case 'send_smart_channel_routing':
      return decideSend({ node, path, run: step.run, context: step.context, scope: step.scope(), ports: step.ports, now: step.now });
    case 'digest':
      return digestNode(step, node, path);
    case 'batch':
      return batchNode(step, node, path);
    case 'branch_waituntil':
      return waitUntil(step, node, path);
    default:
      return assertNever(node);
  }
}

function delay(step: Step, dueAt: Result<number>, path: NodePath): Result<readonly RunEvent[]> {
  if (!dueAt.ok) return dueAt;
  const due_at = new Date(dueAt.value).toISOString();
  if (dueAt.value <= step.now.getTime()) return ok([{ type: 'delay.elapsed.v1', path, due_at }]);
  return ok([{ type: 'timer.scheduled.v1', timer_id: timerId(step.run.started.run_id, path), due_at, purpose: 'delay' }]);
}

/** The first branch (in order, default aside) whose conditions hold, else the default. */
function branch(step: Step, node: BranchNode, path: NodePath): Result<readonly RunEvent[]> {
  const evaluations: ComparisonTrace[] = [];
  for (const [index, candidate] of node.branches.entries()) {
    const conditions = candidate.conditions ?? [];
    if (candidate.is_default === true || conditions.length === 0) continue;
    const outcome = evaluateConditions(conditions, step.scope(), step.ports.expressions);
    if (!outcome.ok) return fail(`branch ${candidate.name ?? index}: ${outcome.error}`);
    evaluations.push(...outcome.value.evaluations);
    if (outcome.value.holds) return ok([branchTaken(path, index, candidate.name, false, evaluations)]);
  }
  const fallback = node.branches.findIndex((candidate) => candidate.is_default === true);
  if (fallback === -1) return fail('no branch matched and the node has no default branch');
  return ok([branchTaken(path, fallback, node.branches[fallback].name, true, evaluations)]);
}

function branchTaken(path: NodePath, branch_index: number, name: string | undefined, is_default: boolean, evaluations: readonly ComparisonTrace[]): RunEvent {
  return { type: 'branch.taken.v1', path, branch_index, ...(name === undefined ? {} : { branch_name: name }), is_default, evaluations };
}

function httpRequest(step: Step, node: HttpWebhookNode | HttpFetchNode, path: NodePath): Result<readonly RunEvent[]> {
  const request = buildRequest(node, httpRequestId(step.run.started.run_id, path), step.scope(), step.ports.expressions);
  return request.ok ? ok([{ type: 'http.requested.v1', path, request: request.value }]) : request;
}

function nodeRef(node: WorkflowNode, path: NodePath): NodeRef {
  return { path, label: pathLabel(path), name: node.name, node_type: node.node_type };
}
