import { DeliveryStatus, JsonRecord, UserRecipient } from '@herald/contracts';
import { assertNever } from '../decider';
import { requestTarget } from './http';
import { FIRST_NODE, NodePath, intoBranch, nextAfter, nodeAt } from './node-path';
import { RunEvent, RunStarted, TimerPurpose } from './run-events';

/** A run's state: a pure fold of its events (`evolveRun`). */
export type RunState = NewRun | LiveRun;

export interface NewRun {
  readonly status: 'new';
}

export type LiveStatus = 'running' | 'completed' | 'failed' | 'discarded' | 'cancelled';

export type Waiting =
  | { readonly kind: 'timer'; readonly timer_id: string; readonly purpose: TimerPurpose }
  /** `target` (`POST https://...`) names the request in a failure. */
  | { readonly kind: 'http'; readonly request_id: string; readonly path: NodePath; readonly target: string };

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
      return { ...run, waiting: { kind: 'timer', timer_id: event.timer_id, purpose: event.purpose } };
    case 'http.requested.v1':
      return { ...run, waiting: { kind: 'http', request_id: event.request.request_id, path: event.path, target: requestTarget(event.request) } };
    case 'timer.fired.v1':
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
    case 'recipients.overridden.v1':
    case 'delay.elapsed.v1':
    case 'delivery.skipped.v1':
      return run;
    default:
      return assertNever(event);
  }
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
