import { DeliveryStatus, JsonRecord, UserRecipient } from '@herald/contracts';
import { assertNever } from '@herald/decider';
import { FIRST_NODE, NodePath, intoBranch, nextAfter, nodeAt } from './node-path';
import { requestTarget } from './request-target';
import { AccumulationRequest, RunEvent, RunStarted, TimerPurpose, TimerScheduled } from './run-events';

/** A run's state: a pure fold of its events (`evolveRun`). */
export type RunState = NewRun | LiveRun;

export interface NewRun {
  readonly status: 'new';
}

export type LiveStatus = 'running' | 'completed' | 'failed' | 'discarded' | 'cancelled';

export type Waiting =
  | { readonly kind: 'timer'; readonly timer_id: string; readonly purpose: TimerPurpose }
  /** `target` (`POST https://...`) names the request in a failure. */
  | { readonly kind: 'http'; readonly request_id: string; readonly path: NodePath; readonly target: string }
  /** At a wait-until node: for `event_name` accepted after `since`, or `timer_id` (the delay branch). */
  | { readonly kind: 'event'; readonly path: NodePath; readonly event_name: string; readonly since: string; readonly timer_id: string }
  | AccumulationWaiting;

/**
 * At a batch or digest node: `joining` until the accumulator answers, `open` (owner
 * only) until the window's timer, `closing` until the accumulator hands the batch over.
 * The request stays along, since it names the accumulator (its key).
 */
export type AccumulationWaiting = { readonly kind: 'accumulation'; readonly path: NodePath; readonly request: AccumulationRequest } & (
  | { readonly stage: 'joining' }
  | { readonly stage: 'open'; readonly batch_id: string; readonly timer_id?: string }
  | { readonly stage: 'closing'; readonly batch_id: string }
);

/** Where a run met its accumulator: the node, and the request that names the accumulator's stream. */
export interface AccumulationPlace {
  readonly path: NodePath;
  readonly request: AccumulationRequest;
}

/** `$batched_events` and `$batched_events_count` for the nodes after a batch or digest. */
export interface Batched {
  readonly events: readonly JsonRecord[];
  readonly count: number;
}

export interface LiveRun {
  readonly status: LiveStatus;
  readonly started: RunStarted;
  /** The actor and tenant after overrides. */
  readonly actor?: UserRecipient;
  readonly tenant_id?: string;
  /** The trigger's data with the http nodes' outputs merged in. */
  readonly data: JsonRecord;
  /** Passed its conditions and rate limit. */
  readonly admitted: boolean;
  /** The node to enter next; undefined once the tree is done. */
  readonly next?: NodePath;
  readonly waiting?: Waiting;
  /** The latest batch or digest this run sends, if any. */
  readonly batched?: Batched;
  /** Merged into another run's batch (and completed): the batch it may be handed if that owner is cancelled. */
  readonly merged?: AccumulationPlace & { readonly batch_id: string };
  /** Cancelled at a batch or digest node: the accumulator the host takes it out of. */
  readonly left?: AccumulationPlace;
  /** Every delivery this run requested, with the outcomes recorded so far. */
  readonly deliveries: Readonly<Record<string, readonly DeliveryStatus[]>>;
}

export const initialRunState = (): RunState => ({ status: 'new' });

export function evolveRun(state: RunState, event: RunEvent): RunState {
  if (event.type === 'run.started.v1') return started(event);
  // Only a run.started.v1 opens a log; anything else on a new run is ignored rather than trusted.
  return state.status === 'new' ? state : evolveLive(state, event);
}

function started(event: RunStarted): LiveRun {
  return {
    status: 'running',
    started: event,
    ...(event.actor === undefined ? {} : { actor: event.actor }),
    ...(event.tenant_id === undefined ? {} : { tenant_id: event.tenant_id }),
    data: event.data,
    admitted: false,
    ...(nodeAt(event.definition.tree, FIRST_NODE) === undefined ? {} : { next: FIRST_NODE }),
    deliveries: {},
  };
}

function evolveLive(run: LiveRun, event: Exclude<RunEvent, RunStarted>): LiveRun {
  const tree = run.started.definition.tree;
  switch (event.type) {
    case 'actor.overridden.v1':
      return { ...run, actor: event.actor };
    case 'tenant.overridden.v1':
      return { ...run, tenant_id: event.tenant_id };
    case 'run.admitted.v1':
      return { ...run, admitted: true };
    case 'node.entered.v1':
      return withNext(run, nextAfter(tree, event.node.path));
    case 'branch.taken.v1':
      return withNext(run, intoBranch(tree, event.path, event.branch_index));
    case 'timer.scheduled.v1':
      return timerScheduled(run, event);
    case 'http.requested.v1':
      return { ...run, waiting: { kind: 'http', request_id: event.request.request_id, path: event.path, target: requestTarget(event.request) } };
    case 'timer.fired.v1':
      // A wait-until's or batch owner's timer is followed by the event that says what comes next.
      return run.waiting?.kind === 'timer' ? notWaiting(run) : run;
    case 'http.responded.v1':
      return notWaiting(run);
    case 'output.merged.v1':
      return { ...run, data: event.key === undefined ? { ...run.data, ...(event.value as JsonRecord) } : { ...run.data, [event.key]: event.value } };
    case 'delivery.requested.v1':
      return { ...run, deliveries: { ...run.deliveries, [event.delivery.delivery_id]: [] } };
    case 'delivery.outcome_recorded.v1': {
      const recorded = run.deliveries[event.outcome.delivery_id] ?? [];
      return { ...run, deliveries: { ...run.deliveries, [event.outcome.delivery_id]: [...recorded, event.outcome.status] } };
    }
    case 'run.completed.v1':
      return finished(run, 'completed');
    case 'run.failed.v1':
      return finished(run, 'failed');
    case 'run.discarded.v1':
      return finished(run, 'discarded');
    case 'run.cancelled.v1':
      return finished(run, 'cancelled');
    case 'wait.started.v1':
      return { ...run, waiting: { kind: 'event', path: event.path, event_name: event.event_name, since: event.since, timer_id: event.timer_id } };
    case 'wait.ended.v1':
      return withNext(notWaiting(run), intoBranch(tree, event.path, event.branch_index));
    case 'accumulation.requested.v1':
      return { ...run, waiting: { kind: 'accumulation', stage: 'joining', path: event.path, request: event.request } };
    case 'accumulation.owned.v1':
      return atAccumulation(run, (request) => ({
        kind: 'accumulation',
        stage: 'open',
        path: event.path,
        request,
        batch_id: event.batch_id,
        ...(event.timer_id === undefined ? {} : { timer_id: event.timer_id }),
      }));
    case 'accumulation.closing.v1':
      return atAccumulation(run, (request) => ({ kind: 'accumulation', stage: 'closing', path: event.path, request, batch_id: event.batch_id }));
    case 'accumulation.leading.v1':
      return { ...notWaiting(run), batched: { events: [accumulatedData(run)], count: 1 } };
    case 'accumulation.released.v1':
      return { ...notWaiting(run), batched: { events: event.events, count: event.count } };
    case 'accumulation.merged.v1':
      return run.waiting?.kind === 'accumulation'
        ? { ...notWaiting(run), merged: { path: run.waiting.path, request: run.waiting.request, batch_id: event.batch_id } }
        : notWaiting(run);
    case 'accumulation.left.v1':
      return run.waiting?.kind === 'accumulation' ? { ...run, left: { path: run.waiting.path, request: run.waiting.request } } : run;
    case 'accumulation.handed_over.v1': {
      if (run.merged === undefined) return run;
      const { merged, ...rest } = run;
      return { ...rest, status: 'running', waiting: { kind: 'accumulation', stage: 'joining', path: merged.path, request: merged.request } };
    }
    case 'recipients.overridden.v1':
    case 'delay.elapsed.v1':
    case 'delivery.skipped.v1':
    case 'wait.cancelled.v1':
    case 'digest.skipped.v1':
      return run;
    default:
      return assertNever(event);
  }
}

/**
 * A delay (or context reload) waits on its timer alone. The timers of a wait-until and
 * of a batch owner come with the event that says what else the run waits for
 * (`wait.started.v1`, `accumulation.owned.v1`), which sets the waiting.
 */
function timerScheduled(run: LiveRun, event: TimerScheduled): LiveRun {
  switch (event.purpose) {
    case 'delay':
    case 'context_reload':
      return { ...run, waiting: { kind: 'timer', timer_id: event.timer_id, purpose: event.purpose } };
    case 'wait_until':
    case 'accumulation_close':
      return run;
    default:
      return assertNever(event.purpose);
  }
}

/** The next stage of the accumulation the run waits at (decide emits these only there). */
function atAccumulation(run: LiveRun, next: (request: AccumulationRequest) => AccumulationWaiting): LiveRun {
  return run.waiting?.kind === 'accumulation' ? { ...run, waiting: next(run.waiting.request) } : run;
}

/** The data the run handed to its accumulator (the leading item sends just that). */
function accumulatedData(run: LiveRun): JsonRecord {
  return run.waiting?.kind === 'accumulation' && run.waiting.stage === 'joining' ? run.waiting.request.data : run.data;
}

function withNext(run: LiveRun, next: NodePath | undefined): LiveRun {
  const { next: _previous, ...rest } = run;
  return next === undefined ? rest : { ...rest, next };
}

function notWaiting(run: LiveRun): LiveRun {
  const { waiting: _waiting, ...rest } = run;
  return rest;
}

function finished(run: LiveRun, status: LiveStatus): LiveRun {
  return { ...notWaiting(run), status };
}
