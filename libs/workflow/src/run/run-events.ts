import { Attachment, Channel, DeliveryOutcome, DeliveryRequested, JsonRecord, Recipient, UserRecipient } from '@herald/contracts';
import { BatchMode, ComparisonOp, KeyValue, NodeType, RetainOrder, VariableNamespace, WorkflowDefinition } from '../definition';
import { NodePath } from './node-path';
import { PreferenceDecision } from './ports';
import { PreferenceSnapshot } from './run-context';
import { RunSource } from './run-source';

/**
 * The append-only log of one run. Every event is plain JSON and names its own schema
 * version in `type`: a change of shape is a new type, and evolve keeps reading the old.
 * Ids are derived from the run id and the node path (see node-path.ts), so a replayed
 * decision names the same timers, requests and deliveries.
 */
export type RunEvent =
  | RunStarted
  | ActorOverridden
  | TenantOverridden
  | RecipientsOverridden
  | RunAdmitted
  | NodeEntered
  | TimerScheduled
  | DelayElapsed
  | TimerFired
  | BranchTaken
  | HttpRequested
  | HttpResponded
  | OutputMerged
  | DeliveryRequestedEvent
  | DeliverySkipped
  | DeliveryOutcomeRecorded
  | RunCompleted
  | RunFailed
  | RunDiscarded
  | RunCancelled
  | WaitStarted
  | WaitEnded
  | WaitCancelled
  | AccumulationRequested
  | AccumulationOwned
  | AccumulationLeading
  | AccumulationMerged
  | AccumulationClosing
  | AccumulationReleased
  | AccumulationLeft
  | AccumulationHandedOver
  | DigestSkipped;

export type RunEventType = RunEvent['type'];

/** Everything the run needs later, so a run is rebuilt from its log alone. */
export interface RunStarted {
  readonly type: 'run.started.v1';
  readonly run_id: string;
  readonly message_id: string;
  readonly workspace_slug: string;
  readonly workflow: { readonly slug: string; readonly version: number };
  readonly definition: WorkflowDefinition;
  readonly source: RunSource;
  readonly recipient: Recipient;
  readonly actor?: UserRecipient;
  readonly tenant_id?: string;
  readonly idempotency_key?: string;
  readonly data: JsonRecord;
  readonly attachments: readonly Attachment[];
  readonly started_at: string;
  /** The interpreter revision whose rules decide this run (interpreter-revision.ts); absent: 1. */
  readonly interpreter_revision?: number;
}

/** `override_actor_user_expr` named another actor. */
export interface ActorOverridden {
  readonly type: 'actor.overridden.v1';
  readonly actor: UserRecipient;
}

/** `override_tenant_expr` named another tenant. */
export interface TenantOverridden {
  readonly type: 'tenant.overridden.v1';
  readonly tenant_id: string;
}

/**
 * `override_recipients_*` computed the recipients: the host starts one run per entry
 * (source `recipient_override`, with this run's actor and tenant) and this run completes.
 */
export interface RecipientsOverridden {
  readonly type: 'recipients.overridden.v1';
  readonly recipients: readonly Recipient[];
  /** For an object recipient: how deep the host fans out to its subscribers (reference `$object_subscriptions_query.depth`). */
  readonly object_subscriptions_depth?: number;
}

/** The run passed its conditions and rate limit; the host counts these for the next runs' rate limit. */
export interface RunAdmitted {
  readonly type: 'run.admitted.v1';
  readonly at: string;
}

/** Where a node sits and what it is, for logs and failures. */
export interface NodeRef {
  readonly path: NodePath;
  /** `nodes[2].branches[1].nodes[0]`. */
  readonly label: string;
  readonly name: string;
  readonly node_type: NodeType;
}

export interface NodeEntered {
  readonly type: 'node.entered.v1';
  readonly node: NodeRef;
}

/** `wait_until`: a wait-until node's maximum wait; `accumulation_close`: the end of a batch window or a digest's schedule. */
export type TimerPurpose = 'delay' | 'context_reload' | 'wait_until' | 'accumulation_close';

/** The host writes a durable timer; the run waits for its `timer_fired`. */
export interface TimerScheduled {
  readonly type: 'timer.scheduled.v1';
  readonly timer_id: string;
  readonly due_at: string;
  readonly purpose: TimerPurpose;
}

/** A delay whose due time had already passed: the run moves on at once. */
export interface DelayElapsed {
  readonly type: 'delay.elapsed.v1';
  readonly path: NodePath;
  readonly due_at: string;
}

export interface TimerFired {
  readonly type: 'timer.fired.v1';
  readonly timer_id: string;
}

/** One comparison as evaluated: both operands (absent when undefined) and the result. */
export interface ComparisonTrace {
  readonly variable_ns: VariableNamespace | '';
  readonly variable: string;
  readonly op: ComparisonOp;
  readonly left?: unknown;
  readonly right?: unknown;
  readonly result: boolean;
}

export interface BranchTaken {
  readonly type: 'branch.taken.v1';
  readonly path: NodePath;
  readonly branch_index: number;
  readonly branch_name?: string;
  readonly is_default: boolean;
  /** The comparisons evaluated on the way, in order. */
  readonly evaluations: readonly ComparisonTrace[];
}

/** A fully evaluated request, for the host's outbound HTTP client to send (with its own retries). */
export interface HttpRequest {
  readonly request_id: string;
  readonly method: string;
  readonly url: string;
  readonly headers: readonly KeyValue[];
  readonly query: readonly KeyValue[];
  readonly body?: unknown;
  readonly body_content_type?: string;
  readonly timeout_ms: number;
}

export interface HttpRequested {
  readonly type: 'http.requested.v1';
  readonly path: NodePath;
  readonly request: HttpRequest;
}

export interface HttpResponded {
  readonly type: 'http.responded.v1';
  readonly request_id: string;
  readonly status?: number;
  readonly error?: string;
}

/** A response merged into the run's data: under `key`, or (no key) its fields at the root. */
export interface OutputMerged {
  readonly type: 'output.merged.v1';
  readonly path: NodePath;
  readonly key?: string;
  readonly value: unknown;
}

export interface DeliveryRequestedEvent {
  readonly type: 'delivery.requested.v1';
  readonly path: NodePath;
  /** Exactly the payload of `notify.delivery.<channel>.requested.v1`. */
  readonly delivery: DeliveryRequested;
  readonly preference: { readonly snapshot: PreferenceSnapshot; readonly decision: PreferenceDecision };
}

export type SkipReason = 'not_in_recipient_channels' | 'no_identity' | 'preference' | 'no_variant' | 'not_routed';

/** A channel a send node considered and did not send on, and why. */
export interface DeliverySkipped {
  readonly type: 'delivery.skipped.v1';
  readonly path: NodePath;
  readonly channel: Channel;
  readonly reason: SkipReason;
  readonly detail: string;
}

export interface DeliveryOutcomeRecorded {
  readonly type: 'delivery.outcome_recorded.v1';
  readonly outcome: DeliveryOutcome;
}

export interface RunCompleted {
  readonly type: 'run.completed.v1';
  readonly at: string;
}

export interface RunFailed {
  readonly type: 'run.failed.v1';
  readonly reason: string;
  /** The node that failed; absent for a workflow-level rule (an override, a condition). */
  readonly node?: NodeRef;
  readonly at: string;
}

export type DiscardReason = 'conditions_not_met' | 'rate_limited';

export interface RunDiscarded {
  readonly type: 'run.discarded.v1';
  readonly reason: DiscardReason;
  readonly detail: string;
  readonly at: string;
}

export interface RunCancelled {
  readonly type: 'run.cancelled.v1';
  readonly reason: string;
  /** Timers the host deletes with this event. */
  readonly cancelled_timers: readonly string[];
  readonly at: string;
}

// ---- wait-until (branch_waituntil)

/**
 * The run waits at a wait-until node for `event_name` from its recipient, counting only
 * events accepted after `since`; the `timer_id` timer (scheduled just before) ends the
 * wait on the delay branch. The host indexes the wait to route future events here.
 */
export interface WaitStarted {
  readonly type: 'wait.started.v1';
  readonly path: NodePath;
  readonly event_name: string;
  readonly since: string;
  readonly timer_id: string;
  readonly due_at: string;
}

/** The event a wait-until resumed on, as `$future_event` saw it. */
export interface FutureEventRef {
  readonly message_id: string;
  readonly name: string;
  readonly accepted_at: string;
  readonly properties: JsonRecord;
}

/**
 * A wait-until node chose its branch: the future_event branch on a matching event (its
 * timer is deleted with this event), or the delay branch when the maximum wait passed.
 */
export interface WaitEnded {
  readonly type: 'wait.ended.v1';
  readonly path: NodePath;
  readonly branch_index: number;
  readonly branch_name?: string;
  readonly outcome: 'future_event' | 'timed_out';
  readonly event?: FutureEventRef;
  /** The event_conditions as evaluated on the matching event. */
  readonly evaluations: readonly ComparisonTrace[];
  readonly cancelled_timer?: string;
}

/** A waiting run was cancelled: it no longer waits for `event_name` (precedes run.cancelled.v1). */
export interface WaitCancelled {
  readonly type: 'wait.cancelled.v1';
  readonly path: NodePath;
  readonly event_name: string;
}

// ---- batch and digest (accumulations)

/**
 * What a batch or digest node asks of its accumulator stream (see accumulator.ts): the
 * key of the batch it belongs to, and how a batch it opens behaves. `closes_at` is the
 * window end (or the digest's next scheduled time) counted from now; it applies only
 * when this run opens the batch.
 */
export interface AccumulationRequest {
  readonly node_type: 'batch' | 'digest';
  /** The evaluated batch_key ('' without one; a digest has none). */
  readonly key: string;
  readonly closes_at: string;
  readonly mode: BatchMode;
  readonly retain_count: number;
  readonly retain_order: RetainOrder;
  /** The run's data, which becomes one entry of `$batched_events`. */
  readonly data: JsonRecord;
}

/** The run reached a batch or digest node; the host adds it to the accumulator and answers with `accumulation_joined`. */
export interface AccumulationRequested {
  readonly type: 'accumulation.requested.v1';
  readonly path: NodePath;
  readonly request: AccumulationRequest;
}

/** This run opened (or, after a leading item, took over) the batch: it waits for `closes_at` and then sends it. */
export interface AccumulationOwned {
  readonly type: 'accumulation.owned.v1';
  readonly path: NodePath;
  readonly batch_id: string;
  readonly closes_at: string;
  /** Absent when the batch was already due: the run closes it at once. */
  readonly timer_id?: string;
}

/** flush_leading_item: this run opened the batch and goes on at once with itself as the only batched event. */
export interface AccumulationLeading {
  readonly type: 'accumulation.leading.v1';
  readonly path: NodePath;
  readonly batch_id: string;
}

/** This run was merged into a batch another run sends; it ends here (run.completed.v1 follows). */
export interface AccumulationMerged {
  readonly type: 'accumulation.merged.v1';
  readonly path: NodePath;
  readonly batch_id: string;
  readonly owner_run_id: string;
}

/** The owner's window (or schedule) ended: the host closes the batch and answers with `accumulation_closed`. */
export interface AccumulationClosing {
  readonly type: 'accumulation.closing.v1';
  readonly path: NodePath;
  readonly batch_id: string;
}

/** The closed batch: the retained events (`$batched_events`) and how many there were (`$batched_events_count`). */
export interface AccumulationReleased {
  readonly type: 'accumulation.released.v1';
  readonly path: NodePath;
  readonly batch_id: string;
  readonly events: readonly JsonRecord[];
  readonly count: number;
}

/**
 * The run was cancelled at a batch or digest node (run.cancelled.v1 follows): the host
 * takes its event out of the batch it joined, and if it owned the batch, hands the
 * batch to the earliest run merged into it. `batch_id` is absent while it was joining.
 */
export interface AccumulationLeft {
  readonly type: 'accumulation.left.v1';
  readonly path: NodePath;
  readonly batch_id?: string;
}

/**
 * This run had been merged (and completed); the batch's owner was cancelled, so this run
 * owns the batch now and runs on from the node: it waits for the same window end
 * (timer and accumulation.owned.v1 follow) and then sends.
 */
export interface AccumulationHandedOver {
  readonly type: 'accumulation.handed_over.v1';
  readonly path: NodePath;
  readonly batch_id: string;
  readonly from_run_id: string;
}

/** A digest closed with fewer triggers than trigger_min_count: nothing is sent (run.completed.v1 follows). */
export interface DigestSkipped {
  readonly type: 'digest.skipped.v1';
  readonly path: NodePath;
  readonly count: number;
  readonly trigger_min_count: number;
}
