import { Attachment, DeliveryOutcome, EventAccepted, JsonRecord, Recipient, TriggerAccepted, UserRecipient } from '@herald/contracts';
import { WorkflowDefinition } from '../definition';
import { AccumulatorJoined } from './accumulator';
import { INTERPRETER_REVISION } from './interpreter-revision';
import { NodePath } from './node-path';
import { RunContext } from './run-context';
import { FutureEventRef } from './run-events';
import { RunSource } from './run-source';

/**
 * What the host feeds into a run, each with the context it loaded just before. Every
 * input is recorded with the run's events, so replaying them reproduces the run.
 */
export type RunInput =
  | StartRun
  | TimerFiredInput
  | HttpRespondedInput
  | DeliveryOutcomeInput
  | CancelRun
  | FutureEventInput
  | AccumulationJoinedInput
  | AccumulationClosedInput
  | AccumulationHandedOverInput;

/** The pinned live version a run follows from start to end, even if the workflow changes meanwhile. */
export interface PinnedWorkflow {
  readonly slug: string;
  readonly version: number;
  readonly definition: WorkflowDefinition;
}

export interface StartRun {
  readonly type: 'start';
  /** Derived by the host from the envelope id, so a redelivered trigger names the same run. */
  readonly run_id: string;
  /** The trigger's (or event's) message_id, as the client got it. */
  readonly message_id: string;
  readonly workspace_slug: string;
  readonly workflow: PinnedWorkflow;
  readonly source: RunSource;
  readonly recipient: Recipient;
  readonly actor?: UserRecipient;
  readonly data: JsonRecord;
  readonly attachments: readonly Attachment[];
  readonly tenant_id?: string;
  /** The trigger's `$idempotency_key`, kept so the run can be found (and cancelled) by it. */
  readonly idempotency_key?: string;
  /** The interpreter revision the host runs now (`INTERPRETER_REVISION`); recorded on the run, which keeps it to its end. */
  readonly interpreter_revision?: number;
  readonly context: RunContext;
}

export interface TimerFiredInput {
  readonly type: 'timer_fired';
  readonly timer_id: string;
  readonly context: RunContext;
}

/** The final answer to an http request, after the host's retries. */
export interface HttpRespondedInput {
  readonly type: 'http_responded';
  readonly request_id: string;
  readonly response: HttpResponse;
  readonly context: RunContext;
}

export type HttpResponse =
  /** `body` is the parsed JSON, or the text when the body is not JSON; absent when empty. */
  | { readonly kind: 'response'; readonly status: number; readonly body?: unknown }
  | { readonly kind: 'network_error'; readonly error: string };

export interface DeliveryOutcomeInput {
  readonly type: 'delivery_outcome';
  readonly outcome: DeliveryOutcome;
  readonly context: RunContext;
}

export interface CancelRun {
  readonly type: 'cancel';
  readonly reason: string;
  readonly context: RunContext;
}

/** An event of the run's recipient named by the wait-until the run waits at (the host routes it by its wait index). */
export interface FutureEventInput {
  readonly type: 'future_event';
  readonly event: FutureEventRef;
  readonly context: RunContext;
}

/** The accumulator's answer to `accumulation.requested.v1` (see accumulator.ts). */
export interface AccumulationJoinedInput {
  readonly type: 'accumulation_joined';
  readonly path: NodePath;
  readonly joined: AccumulatorJoined;
  readonly context: RunContext;
}

/** The accumulator's answer to `accumulation.closing.v1`: what the batch holds. */
export interface AccumulationClosedInput {
  readonly type: 'accumulation_closed';
  readonly path: NodePath;
  readonly batch_id: string;
  readonly events: readonly JsonRecord[];
  readonly count: number;
  readonly context: RunContext;
}

/** The owner of the batch this run was merged into was cancelled: this run owns it now (see accumulator.ts). */
export interface AccumulationHandedOverInput {
  readonly type: 'accumulation_handed_over';
  readonly path: NodePath;
  readonly batch_id: string;
  /** The cancelled owner. */
  readonly from_run_id: string;
  readonly closes_at: string;
  readonly context: RunContext;
}

export interface StartIds {
  readonly run_id: string;
  readonly workflow: PinnedWorkflow;
  readonly context: RunContext;
}

/** The start input of a run for one accepted trigger (one recipient). */
export function startFromTrigger(trigger: TriggerAccepted, ids: StartIds): StartRun {
  return {
    type: 'start',
    run_id: ids.run_id,
    message_id: trigger.message_id,
    workspace_slug: trigger.workspace_slug,
    workflow: ids.workflow,
    source: trigger.parent_run_id === undefined ? { kind: 'trigger' } : { kind: 'recipient_override', parent_run_id: trigger.parent_run_id },
    recipient: trigger.recipient,
    ...(trigger.actor === undefined ? {} : { actor: trigger.actor }),
    data: trigger.data,
    attachments: trigger.attachments,
    ...(trigger.tenant_id === undefined ? {} : { tenant_id: trigger.tenant_id }),
    ...(trigger.idempotency_key === undefined ? {} : { idempotency_key: trigger.idempotency_key }),
    interpreter_revision: INTERPRETER_REVISION,
    context: ids.context,
  };
}

/** The start input of a run of an event-triggered workflow: the event's user is the recipient, its properties the data. */
export function startFromEvent(event: EventAccepted, ids: StartIds): StartRun {
  return {
    type: 'start',
    run_id: ids.run_id,
    message_id: event.message_id,
    workspace_slug: event.workspace_slug,
    workflow: ids.workflow,
    source: { kind: 'event', event: event.event },
    recipient: userRecipient(event.distinct_id),
    data: event.properties,
    attachments: event.attachments,
    ...(event.tenant_id === undefined ? {} : { tenant_id: event.tenant_id }),
    ...(event.idempotency_key === undefined ? {} : { idempotency_key: event.idempotency_key }),
    interpreter_revision: INTERPRETER_REVISION,
    context: ids.context,
  };
}

/** An accepted event as a waiting run weighs it: `$future_event` is its properties. */
export function futureEventOf(event: EventAccepted): FutureEventRef {
  return { message_id: event.message_id, name: event.event, accepted_at: event.accepted_at, properties: event.properties };
}

/** A user known only by its distinct_id (nothing inline). */
export function userRecipient(distinct_id: string, properties: JsonRecord = {}): UserRecipient {
  return { kind: 'user', distinct_id, is_transient: false, inline: false, channels: {}, properties };
}
