import { Channel } from '@herald/contracts';
import { WorkflowDefinition, WorkflowNode, WorkflowTree } from '../definition';
import { handle } from '@herald/decider';
import { NodePath, httpRequestId, pathKey, pathLabel } from './node-path';
import { RunDecider } from './run-decider';
import { RunEvent } from './run-events';
import { CancelRun, FutureEventInput, HttpResponse, RunInput, StartRun } from './run-inputs';
import { LiveStatus, RunState } from './run-state';

/**
 * What-if replay (issue 19): a recorded run's inputs fed to another definition (a draft,
 * or any version), with nothing sent and no timer set. Time is simulated: a timer fires at
 * its due time, recorded cancels and events arrive at their recorded times, recorded HTTP
 * responses are reused (matched by request id, else by the node's name), and a batch or
 * digest is assumed to hold what the recorded run's held (or this run alone).
 *
 * A draft is judged against the run's own definition replayed the same way (the
 * baseline), not against the log's wall-clock times, so what differs is the draft's doing
 * and an unchanged draft differs in nothing.
 */

/** One input of a run as recorded, at the time it was decided. */
export interface RecordedRunInput {
  readonly input: RunInput;
  readonly at: Date;
}

export interface RecordedRun {
  readonly start: StartRun;
  readonly started_at: Date;
  /** Later inputs in recorded order; timer firings are simulated, so recorded `timer_fired` inputs are not needed. */
  readonly later: readonly RecordedRunInput[];
}

export interface ReplayedSend {
  readonly node: string;
  readonly path: string;
  readonly channel: Channel;
  readonly template: string;
  readonly at: string;
}

export interface ReplayedBranch {
  readonly node: string;
  readonly branch_index: number;
  readonly branch_name?: string;
}

export interface ReplayedDelay {
  readonly node: string;
  readonly due_at: string;
}

export type ReplayNote =
  /** The run reached an HTTP node the recorded run never called: the replay stops there (nothing is called). */
  | { readonly kind: 'no_recorded_response'; readonly node: string; readonly path: string }
  /** The recorded run never reached this batch or digest: the replay assumes the run alone in its batch. */
  | { readonly kind: 'accumulation_assumed'; readonly node: string; readonly path: string }
  /** The replay stopped after this many steps (a guard; a tree has no loops). */
  | { readonly kind: 'step_limit'; readonly steps: number };

/** Where the replayed run ended: its status, or `stopped` when a note says why it could not go on. */
export type ReplayStatus = LiveStatus | 'stopped';

export interface ReplayedRun {
  readonly run_id: string;
  readonly status: ReplayStatus;
  readonly events: readonly RunEvent[];
  readonly sends: readonly ReplayedSend[];
  readonly branches: readonly ReplayedBranch[];
  readonly delays: readonly ReplayedDelay[];
  readonly notes: readonly ReplayNote[];
}

const MAX_REPLAY_STEPS = 1_000;

/** Replays `recorded` under `definition` (the run's own when absent). Pure: the decider's ports are its only helpers. */
export function replayRun(decider: RunDecider, recorded: RecordedRun, definition: WorkflowDefinition = recorded.start.workflow.definition): ReplayedRun {
  const start: StartRun = { ...recorded.start, workflow: { ...recorded.start.workflow, definition } };
  const responses = recordedResponses(recorded, definition);
  const arrivals = recorded.later
    .filter((step): step is { input: CancelRun | FutureEventInput; at: Date } => step.input.type === 'cancel' || step.input.type === 'future_event')
    .slice()
    .sort((a, b) => a.at.getTime() - b.at.getTime());
  const recordedAccumulations = recorded.later.filter((step) => step.input.type === 'accumulation_joined' || step.input.type === 'accumulation_closed');
  const events: RunEvent[] = [];
  const notes: ReplayNote[] = [];
  const timers = new Map<string, number>();
  let context = recorded.start.context;
  let now = recorded.started_at;
  let state: RunState = decider.initialState();

  const feed = (input: RunInput, at: Date): void => {
    now = at;
    const decision = handle(decider, state, input, at);
    state = decision.state;
    for (const event of decision.events) {
      events.push(event);
      if (event.type === 'timer.scheduled.v1') timers.set(event.timer_id, Date.parse(event.due_at));
    }
  };

  feed(start, now);
  for (let steps = 0; state.status === 'running'; steps += 1) {
    if (steps >= MAX_REPLAY_STEPS) {
      notes.push({ kind: 'step_limit', steps });
      break;
    }
    const waiting = state.waiting;
    const arrival = arrivals[0];
    if (waiting === undefined) break; // running and not waiting is not a state decide leaves behind
    if (waiting.kind === 'http') {
      const response = responses.get(waiting.request_id);
      if (response === undefined) {
        notes.push({ kind: 'no_recorded_response', node: nodeName(definition.tree, waiting.path), path: pathLabel(waiting.path) });
        break;
      }
      feed({ type: 'http_responded', request_id: waiting.request_id, response, context }, now);
      continue;
    }
    if (waiting.kind === 'accumulation' && waiting.stage !== 'open') {
      const answer = accumulationAnswer(waiting, recordedAccumulations, context, notes, definition.tree);
      feed(answer, now);
      continue;
    }
    const timerId = waiting.timer_id;
    const due = timerId === undefined ? undefined : timers.get(timerId);
    if (arrival !== undefined && (due === undefined || arrival.at.getTime() < due)) {
      arrivals.shift();
      context = arrival.input.context;
      feed(arrival.input, new Date(Math.max(arrival.at.getTime(), now.getTime())));
      continue;
    }
    if (timerId === undefined || due === undefined) break; // waiting for what the recording never brought
    feed({ type: 'timer_fired', timer_id: timerId, context }, new Date(Math.max(due, now.getTime())));
  }

  return {
    run_id: recorded.start.run_id,
    status: notes.some((note) => note.kind !== 'accumulation_assumed') ? 'stopped' : state.status === 'new' ? 'failed' : state.status,
    events,
    ...outcomesOf(events),
    notes,
  };
}

/** Sends, branches taken and delays of a run's events, each named by its node. */
export function outcomesOf(events: readonly RunEvent[]): Pick<ReplayedRun, 'sends' | 'branches' | 'delays'> {
  const sends: ReplayedSend[] = [];
  const branches: ReplayedBranch[] = [];
  const delays: ReplayedDelay[] = [];
  let entered = '';
  for (const event of events) {
    if (event.type === 'node.entered.v1') entered = event.node.name;
    else if (event.type === 'delivery.requested.v1') {
      const { delivery } = event;
      sends.push({ node: delivery.node_name, path: pathLabel(event.path), channel: delivery.channel, template: delivery.template.slug, at: delivery.requested_at });
    } else if (event.type === 'branch.taken.v1' || event.type === 'wait.ended.v1') {
      branches.push({ node: entered, branch_index: event.branch_index, ...(event.branch_name === undefined ? {} : { branch_name: event.branch_name }) });
    } else if ((event.type === 'timer.scheduled.v1' && event.purpose === 'delay') || event.type === 'delay.elapsed.v1') {
      delays.push({ node: entered, due_at: event.due_at });
    }
  }
  return { sends, branches, delays };
}

export type ReplayChange =
  | { readonly kind: 'send_added'; readonly send: ReplayedSend }
  | { readonly kind: 'send_dropped'; readonly send: ReplayedSend }
  | { readonly kind: 'send_moved'; readonly send: ReplayedSend; readonly from: string; readonly by_ms: number }
  | { readonly kind: 'branch_changed'; readonly node: string; readonly from?: ReplayedBranch; readonly to?: ReplayedBranch }
  | { readonly kind: 'delay_moved'; readonly node: string; readonly from?: string; readonly to?: string }
  | { readonly kind: 'status_changed'; readonly from: ReplayStatus; readonly to: ReplayStatus };

/**
 * What a draft changes in one run. Sends are matched by node name, channel and template
 * (in order of occurrence), so a node moved in the tree is the same send; branches and
 * delays by node name.
 */
export function diffReplay(original: ReplayedRun, replayed: ReplayedRun): readonly ReplayChange[] {
  const changes: ReplayChange[] = [];
  if (original.status !== replayed.status) changes.push({ kind: 'status_changed', from: original.status, to: replayed.status });
  changes.push(...diffBy(original.branches, replayed.branches, (b) => b.node, (from, to) => (sameBranch(from, to) ? undefined : { kind: 'branch_changed', node: (from ?? to)?.node ?? '', ...(from ? { from } : {}), ...(to ? { to } : {}) })));
  changes.push(...diffBy(original.delays, replayed.delays, (d) => d.node, (from, to) => (from?.due_at === to?.due_at ? undefined : { kind: 'delay_moved', node: (from ?? to)?.node ?? '', ...(from ? { from: from.due_at } : {}), ...(to ? { to: to.due_at } : {}) })));
  changes.push(
    ...diffBy(original.sends, replayed.sends, (s) => `${s.node}\u0000${s.channel}\u0000${s.template}`, (from, to): ReplayChange | undefined => {
      if (from === undefined) return to && { kind: 'send_added', send: to };
      if (to === undefined) return { kind: 'send_dropped', send: from };
      const by_ms = Date.parse(to.at) - Date.parse(from.at);
      return by_ms === 0 ? undefined : { kind: 'send_moved', send: to, from: from.at, by_ms };
    }),
  );
  return changes;
}

export interface ReplaySummary {
  readonly runs: number;
  readonly runs_changed: number;
  readonly runs_stopped: number;
  readonly sends_before: number;
  readonly sends_after: number;
  readonly changes: Readonly<Record<ReplayChange['kind'], number>>;
  /** Sends per channel and template, before and after: `email:welcome`. */
  readonly sends_by_channel: Readonly<Record<string, { readonly before: number; readonly after: number }>>;
}

export interface RunReplayResult {
  readonly run_id: string;
  readonly baseline: ReplayedRun;
  readonly replayed: ReplayedRun;
  readonly changes: readonly ReplayChange[];
}

/** The baseline (the run's own definition) and the draft's replay of one recorded run, and their differences. */
export function whatIf(decider: RunDecider, recorded: RecordedRun, definition: WorkflowDefinition): RunReplayResult {
  const baseline = replayRun(decider, recorded);
  const replayed = replayRun(decider, recorded, definition);
  return { run_id: recorded.start.run_id, baseline, replayed, changes: diffReplay(baseline, replayed) };
}

export function summarizeReplay(results: readonly RunReplayResult[]): ReplaySummary {
  const changes: Record<ReplayChange['kind'], number> = { send_added: 0, send_dropped: 0, send_moved: 0, branch_changed: 0, delay_moved: 0, status_changed: 0 };
  const byChannel: Record<string, { before: number; after: number }> = {};
  const count = (sends: readonly ReplayedSend[], side: 'before' | 'after'): void => {
    for (const send of sends) (byChannel[`${send.channel}:${send.template}`] ??= { before: 0, after: 0 })[side] += 1;
  };
  let sendsBefore = 0;
  let sendsAfter = 0;
  for (const result of results) {
    for (const change of result.changes) changes[change.kind] += 1;
    count(result.baseline.sends, 'before');
    count(result.replayed.sends, 'after');
    sendsBefore += result.baseline.sends.length;
    sendsAfter += result.replayed.sends.length;
  }
  return {
    runs: results.length,
    runs_changed: results.filter((result) => result.changes.length > 0).length,
    runs_stopped: results.filter((result) => result.replayed.status === 'stopped').length,
    sends_before: sendsBefore,
    sends_after: sendsAfter,
    changes,
    sends_by_channel: byChannel,
  };
}

/** One event of a run's log with the time its step was appended. */
export interface LoggedRunEvent {
  readonly event: RunEvent;
  readonly at: Date;
}

/**
 * The inputs of a run rebuilt from its log: the engine records decisions, not inputs, but
 * every input a replay needs left its trace. The start is `run.started.v1`; an HTTP
 * answer is `http.responded.v1` with the body `output.merged.v1` kept; a cancel, a
 * resuming event and the accumulator's answers are their events. The log does not hold
 * the context the host loaded, so the caller gives one (for every input).
 */
export function recordedRunOf(log: readonly LoggedRunEvent[], context: StartRun['context']): RecordedRun | undefined {
  const first = log[0];
  if (first?.event.type !== 'run.started.v1') return undefined;
  const started = first.event;
  const start: StartRun = {
    type: 'start',
    run_id: started.run_id,
    message_id: started.message_id,
    workspace_slug: started.workspace_slug,
    workflow: { ...started.workflow, definition: started.definition },
    source: started.source,
    recipient: started.recipient,
    ...(started.actor === undefined ? {} : { actor: started.actor }),
    ...(started.tenant_id === undefined ? {} : { tenant_id: started.tenant_id }),
    ...(started.idempotency_key === undefined ? {} : { idempotency_key: started.idempotency_key }),
    data: started.data,
    attachments: started.attachments,
    ...(started.interpreter_revision === undefined ? {} : { interpreter_revision: started.interpreter_revision }),
    context,
  };
  const later: RecordedRunInput[] = [];
  const ownedOrLed = new Map<string, RecordedRunInput>();
  for (const [index, { event, at }] of log.entries()) {
    switch (event.type) {
      case 'http.responded.v1': {
        const merged = log[index + 1]?.event;
        const body = merged?.type === 'output.merged.v1' ? merged.value : undefined;
        const response: HttpResponse =
          event.status === undefined ? { kind: 'network_error', error: event.error ?? 'no response' } : { kind: 'response', status: event.status, ...(body === undefined ? {} : { body }) };
        later.push({ input: { type: 'http_responded', request_id: event.request_id, response, context }, at });
        break;
      }
      case 'run.cancelled.v1':
        later.push({ input: { type: 'cancel', reason: event.reason, context }, at: new Date(event.at) });
        break;
      case 'wait.ended.v1':
        if (event.event !== undefined) later.push({ input: { type: 'future_event', event: event.event, context }, at });
        break;
      case 'accumulation.owned.v1':
      case 'accumulation.leading.v1':
      case 'accumulation.merged.v1': {
        const key = pathKey(event.path);
        if (ownedOrLed.has(key)) break;
        const role = event.type === 'accumulation.owned.v1' ? 'owner' : event.type === 'accumulation.leading.v1' ? 'leading' : 'merged';
        const closes_at = event.type === 'accumulation.owned.v1' ? event.closes_at : at.toISOString();
        const joined = { type: 'accumulation_joined' as const, path: event.path, joined: { batch_id: event.batch_id, role, closes_at } as const, context };
        ownedOrLed.set(key, { input: joined, at });
        later.push({ input: joined, at });
        break;
      }
      case 'accumulation.released.v1':
        later.push({ input: { type: 'accumulation_closed', path: event.path, batch_id: event.batch_id, events: event.events, count: event.count, context }, at });
        break;
      default:
        break;
    }
  }
  return { start, started_at: new Date(started.started_at), later };
}

// ---- helpers

function diffBy<T>(before: readonly T[], after: readonly T[], keyOf: (item: T) => string, compare: (from: T | undefined, to: T | undefined) => ReplayChange | undefined): ReplayChange[] {
  const occurrences = (items: readonly T[]): Map<string, T> => {
    const seen = new Map<string, number>();
    const keyed = new Map<string, T>();
    for (const item of items) {
      const key = keyOf(item);
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      keyed.set(`${key}\u0000${n}`, item);
    }
    return keyed;
  };
  const from = occurrences(before);
  const to = occurrences(after);
  const changes: ReplayChange[] = [];
  for (const key of new Set([...from.keys(), ...to.keys()])) {
    const change = compare(from.get(key), to.get(key));
    if (change !== undefined) changes.push(change);
  }
  return changes;
}

function sameBranch(a: ReplayedBranch | undefined, b: ReplayedBranch | undefined): boolean {
  return a?.branch_index === b?.branch_index && a?.branch_name === b?.branch_name;
}

/**
 * Recorded HTTP responses by the request id the replayed definition would use: the same
 * id when the node kept its place, else the id of the node of the same name in the
 * recorded definition (a node moved by an inserted delay keeps its response).
 */
function recordedResponses(recorded: RecordedRun, definition: WorkflowDefinition): Map<string, HttpResponse> {
  const byRequest = new Map<string, HttpResponse>();
  for (const { input } of recorded.later) if (input.type === 'http_responded') byRequest.set(input.request_id, input.response);
  if (byRequest.size === 0) return byRequest;
  const runId = recorded.start.run_id;
  const recordedPaths = new Map<string, NodePath>();
  for (const [path, node] of nodesOf(recorded.start.workflow.definition.tree)) recordedPaths.set(node.name, path);
  const responses = new Map(byRequest);
  for (const [path, node] of nodesOf(definition.tree)) {
    if (node.node_type !== 'httpapi_webhook' && node.node_type !== 'httpapi_fetch') continue;
    const id = httpRequestId(runId, path);
    const before = recordedPaths.get(node.name);
    const response = byRequest.get(id) ?? (before === undefined ? undefined : byRequest.get(httpRequestId(runId, before)));
    if (response !== undefined) responses.set(id, response);
  }
  return responses;
}

/** The accumulator's answer as recorded for this node (by path), else the run alone in a batch closing when it asked. */
function accumulationAnswer(
  waiting: Extract<NonNullable<Extract<RunState, { status: LiveStatus }>['waiting']>, { kind: 'accumulation' }>,
  recorded: readonly RecordedRunInput[],
  context: StartRun['context'],
  notes: ReplayNote[],
  tree: WorkflowTree,
): RunInput {
  const key = pathKey(waiting.path);
  const match = recorded.find((step) => (step.input.type === 'accumulation_joined' || step.input.type === 'accumulation_closed') && pathKey(step.input.path) === key && step.input.type === (waiting.stage === 'joining' ? 'accumulation_joined' : 'accumulation_closed'));
  if (waiting.stage === 'joining') {
    if (match?.input.type === 'accumulation_joined' && match.input.joined.role !== 'merged') {
      return { ...match.input, joined: { ...match.input.joined, closes_at: waiting.request.closes_at }, context };
    }
    if (match === undefined) notes.push({ kind: 'accumulation_assumed', node: nodeName(tree, waiting.path), path: pathLabel(waiting.path) });
    return { type: 'accumulation_joined', path: waiting.path, joined: { role: 'owner', batch_id: `replay:${key}`, closes_at: waiting.request.closes_at }, context };
  }
  const batchId = waiting.stage === 'closing' ? waiting.batch_id : '';
  if (match?.input.type === 'accumulation_closed') return { ...match.input, batch_id: batchId, context };
  return { type: 'accumulation_closed', path: waiting.path, batch_id: batchId, events: [waiting.request.data], count: 1, context };
}

function nodeName(tree: WorkflowTree, path: NodePath): string {
  for (const [candidate, node] of nodesOf(tree)) if (pathKey(candidate) === pathKey(path)) return node.name;
  return pathLabel(path);
}

/** Every node of a tree with its path, depth first. */
export function* nodesOf(tree: WorkflowTree, prefix: NodePath = []): Generator<readonly [NodePath, WorkflowNode]> {
  for (const [index, node] of tree.nodes.entries()) {
    const path = [...prefix, index];
    yield [path, node];
    if ('branches' in node) for (const [b, branch] of node.branches.entries()) yield* nodesOf(branch, [...path, b]);
  }
}
