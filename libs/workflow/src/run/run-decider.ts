import { BranchNode, HttpFetchNode, HttpWebhookNode, WorkflowNode } from '../definition';
import { Decider, assertNever } from '../decider';
import { evaluateConditions } from './conditions';
import { Result, fail, ok } from './evaluate';
import { overriddenActor, overriddenRecipients, overriddenTenant, rateLimitAllows } from './gates';
import { buildRequest, responseEffect } from './http';
import { NodePath, contextReloadTimerId, httpRequestId, nodeAt, pathLabel, timerId } from './node-path';
import { RunPorts } from './ports';
import { RunContext } from './run-context';
import { ComparisonTrace, NodeRef, RunEvent } from './run-events';
import { CancelRun, DeliveryOutcomeInput, HttpRespondedInput, RunInput, StartRun, TimerFiredInput } from './run-inputs';
import { runScope } from './run-scope';
import { LiveRun, RunState, evolveRun, initialRunState } from './run-state';
import { decideSend } from './send';
import { delayDueAt } from './timing';

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
      return deliveryOutcome(state, input);
    case 'cancel':
      return isRunning(state) ? cancel(state, input, now) : [];
    default:
      return assertNever(input);
  }
}

/** The events decided so far, and the state they lead to. */
class Step {
  readonly events: RunEvent[] = [];

  constructor(
    readonly ports: RunPorts,
    private state: RunState,
    readonly context: RunContext,
    readonly now: Date,
  ) {}

  get run(): LiveRun {
    if (this.state.status === 'new') throw new Error('a run step before run.started.v1'); // a bug in this file, never client input
    return this.state;
  }

  get at(): string {
    return this.now.toISOString();
  }

  emit(...events: readonly RunEvent[]): void {
    for (const event of events) {
      this.events.push(event);
      this.state = evolveRun(this.state, event);
    }
  }

  fail(reason: string, node?: NodeRef): readonly RunEvent[] {
    this.emit({ type: 'run.failed.v1', reason, ...(node === undefined ? {} : { node }), at: this.at });
    return this.events;
  }

  scope() {
    return runScope(this.run, this.context);
  }
}

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
    step.emit({ type: 'run.discarded.v1', reason: 'conditions_not_met', detail: describeFailedConditions(conditions.value.evaluations), at: step.at });
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

function describeFailedConditions(evaluations: readonly ComparisonTrace[]): string {
  const failed = evaluations.filter((trace) => !trace.result).map((trace) => `${trace.variable_ns}${trace.variable_ns === '' ? '' : '.'}${trace.variable} ${trace.op}`);
  return failed.length === 0 ? 'no condition holds' : `no condition holds (false: ${failed.join(', ')})`;
}

// ---- inputs of a running run

function timerFired(step: Step, run: LiveRun, input: TimerFiredInput): readonly RunEvent[] {
  const waiting = run.waiting;
  if (waiting?.kind !== 'timer' || waiting.timer_id !== input.timer_id) return [];
  step.emit({ type: 'timer.fired.v1', timer_id: input.timer_id });
  switch (waiting.purpose) {
    case 'context_reload':
      return admit(step);
    case 'delay':
      return advance(step);
    default:
      return assertNever(waiting.purpose);
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
  const effect = responseEffect(node, waiting.target, response);
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

/** Recorded on a finished run too: outcomes keep arriving after the last node. Each status once per delivery. */
function deliveryOutcome(state: RunState, input: DeliveryOutcomeInput): readonly RunEvent[] {
  if (state.status === 'new') return [];
  const recorded = state.deliveries[input.outcome.delivery_id];
  if (recorded === undefined || recorded.includes(input.outcome.status)) return [];
  return [{ type: 'delivery.outcome_recorded.v1', outcome: input.outcome }];
}

function cancel(run: LiveRun, input: CancelRun, now: Date): readonly RunEvent[] {
  const timers = run.waiting?.kind === 'timer' ? [run.waiting.timer_id] : [];
  return [{ type: 'run.cancelled.v1', reason: input.reason, cancelled_timers: timers, at: now.toISOString() }];
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
    case 'batch':
    case 'branch_waituntil':
      // Issue 8: these need accumulators and future events the run does not have yet.
      return fail(`node type ${node.node_type} is not supported yet`);
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
