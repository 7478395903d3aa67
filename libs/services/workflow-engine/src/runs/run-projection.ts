import { SqlWriter } from '@herald/database';
import { Channel, DeliveryOutcome, deterministicUuid, withoutCredentials } from '@herald/contracts';
import { DeliverySkipped, LiveRun, RunEvent, RunState, SEND_NODE_CHANNELS, SendNode, SkipReason, WorkflowNode, nodeAt, pathKey } from '@herald/workflow';
import { AdmissionRow, FailedRunMessageRow, MessageRow, RunProjectionRepository, RunRow, RunStatus, WaitRow } from './run-projection.repository';
import { parseRunStreamId, runKey } from './run-stream';

/**
 * Skips that are the trigger's or the workflow's own choice, not a notification that
 * failed to reach its recipient: the trigger's `$channels` left the channel out, or smart
 * routing already reached the recipient on another one. They stay in the run's log; as
 * message rows they would bury the skips a user needs to see (no identity, an opt-out, a
 * missing variant) under one row per channel of every all-channel send.
 */
const SKIPS_BY_DESIGN: ReadonlySet<SkipReason> = new Set<SkipReason>(['not_in_recipient_channels', 'not_routed']);

/** A rare update of one step (a statement each, in the order of the step's events). */
export type RunIndexUpdate =
  | { readonly kind: 'outcome_reason'; readonly runId: string; readonly reason: string }
  | { readonly kind: 'failed_before_sending'; readonly row: FailedRunMessageRow }
  | { readonly kind: 'wait_started'; readonly wait: WaitRow }
  | { readonly kind: 'wait_ended'; readonly runId: string };

/**
 * What one step (one or several inputs of a run) adds to the read models. The frequent
 * rows (a run, an admission, a message, a delivery's outcome, the run's status) are
 * written for a whole batch with one statement each (`writeRunProjections`); the rare
 * updates (reasons, waits) keep a statement each, in the order of their events.
 */
export interface RunProjectionRows {
  readonly run?: RunRow;
  readonly admission?: AdmissionRow;
  readonly messages: readonly MessageRow[];
  /** Outcomes to record on the message log, in the order of their events. */
  readonly outcomes: readonly DeliveryOutcome[];
  readonly updates: readonly RunIndexUpdate[];
  readonly status: RunStatus;
}

/**
 * The read-model updates of one step, run in the append's transaction: the run index
 * (`engine.runs`), the message log (`engine.messages`), the admissions the rate limit
 * counts and the wait-until index (`engine.waits`, removed when the wait ends or the
 * run is cancelled at it). A channel a send node skipped is a `not_sent` row of the
 * message log, and a run that ends without sending keeps why; a run that failed before
 * sending anything is a `not_sent` row too, so a client following its trigger sees every
 * recipient's outcome without reading the run log. Everything is an upsert keyed by ids from the events, so a
 * projection replayed from the log gives the same rows. RunProjectionRepository writes them.
 */
export function runProjectionRows(events: readonly RunEvent[], after: RunState, streamId: string, now: Date): RunProjectionRows | undefined {
  if (after.status === 'new') return undefined;
  const run = after;
  const { workspaceId, runId } = parseRunStreamId(streamId);
  const at = now.toISOString();
  let runRow: RunRow | undefined;
  let admission: AdmissionRow | undefined;
  const messages: MessageRow[] = [];
  const outcomes: DeliveryOutcome[] = [];
  const updates: RunIndexUpdate[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'run.started.v1':
        runRow = runRowOf(workspaceId, runId, streamId, run);
        break;
      case 'run.admitted.v1':
        admission = {
          workspace_id: workspaceId,
          workflow_slug: run.started.workflow.slug,
          recipient_key: runKey(workspaceId, run.started.recipient, runId),
          run_id: runId,
          admitted_at: at,
        };
        break;
      case 'delivery.requested.v1':
        messages.push(messageRowOf(workspaceId, run, event.delivery, at));
        break;
      case 'delivery.skipped.v1':
        if (!SKIPS_BY_DESIGN.has(event.reason)) messages.push(skippedRowOf(workspaceId, runId, run, event, at));
        break;
      case 'delivery.outcome_recorded.v1':
        outcomes.push(event.outcome);
        break;
      case 'run.failed.v1': {
        const reason = event.node ? `${event.node.name} (${event.node.label}): ${event.reason}` : event.reason;
        updates.push({ kind: 'outcome_reason', runId, reason });
        const failed = failedBeforeSendingRowOf(workspaceId, runId, run, reason, at);
        if (failed) updates.push({ kind: 'failed_before_sending', row: failed });
        break;
      }
      case 'run.discarded.v1':
        updates.push({ kind: 'outcome_reason', runId, reason: `${event.reason}: ${event.detail}` });
        break;
      case 'run.cancelled.v1':
        updates.push({ kind: 'outcome_reason', runId, reason: event.reason });
        break;
      case 'digest.skipped.v1':
        updates.push({
          kind: 'outcome_reason',
          runId,
          reason: `digest_skipped: ${event.count} trigger(s), fewer than trigger_min_count ${event.trigger_min_count}`,
        });
        break;
      case 'wait.started.v1':
        updates.push({
          kind: 'wait_started',
          wait: {
            run_id: runId,
            workspace_id: workspaceId,
            recipient_key: runKey(workspaceId, run.started.recipient, runId),
            event_name: event.event_name,
            stream_id: streamId,
            since: event.since,
          },
        });
        break;
      case 'wait.ended.v1':
      case 'wait.cancelled.v1':
        updates.push({ kind: 'wait_ended', runId });
        break;
      default:
        break;
    }
  }
  return { ...(runRow ? { run: runRow } : {}), ...(admission ? { admission } : {}), messages, outcomes, updates, status: { runId, status: run.status, at } };
}

/**
 * Writes the rows of a batch of steps in the append's transaction (`tx`): runs, admissions
 * and messages with one multi-row insert each (before the updates, which may refer to
 * them), then each step's rare updates in order, the outcomes (see recordOutcomes), then
 * the status of every run the batch did not insert with one statement. The outcomes touch
 * only their deliveries' message rows, which no rare update reads or writes, so they can
 * follow them. A kind of row the batch has none of costs no statement.
 */
export async function writeRunProjections(repository: RunProjectionRepository, tx: SqlWriter, steps: readonly RunProjectionRows[]): Promise<void> {
  await repository.insertRuns(tx, steps.flatMap((s) => (s.run ? [s.run] : [])));
  await repository.insertAdmissions(tx, steps.flatMap((s) => (s.admission ? [s.admission] : [])));
  await repository.insertMessages(tx, steps.flatMap((s) => s.messages));
  for (const step of steps) for (const update of step.updates) await writeUpdate(repository, tx, update);
  await recordOutcomes(repository, tx, steps.flatMap((s) => s.outcomes));
  // Only the rows that change: a run inserted above already has its status as of the
  // step (`runRowOf`, updated_at = started_at = the step's time), and an UPDATE that sets
  // the same values still writes a new row version, one per run.
  await repository.updateStatuses(tx, steps.filter((s) => s.run === undefined).map((s) => s.status));
}

async function writeUpdate(repository: RunProjectionRepository, tx: SqlWriter, update: RunIndexUpdate): Promise<void> {
  switch (update.kind) {
    case 'outcome_reason':
      return repository.setOutcomeReason(tx, update.runId, update.reason);
    case 'failed_before_sending':
      return repository.insertFailedBeforeSending(tx, update.row);
    case 'wait_started':
      return repository.insertWait(tx, update.wait);
    case 'wait_ended':
      return repository.deleteWait(tx, update.runId);
  }
}

function runRowOf(workspaceId: string, runId: string, streamId: string, run: LiveRun): RunRow {
  const { recipient, workflow, message_id: messageId, started_at: startedAt } = run.started;
  return {
    run_id: runId,
    workspace_id: workspaceId,
    stream_id: streamId,
    message_id: messageId,
    workflow_slug: workflow.slug,
    workflow_version: workflow.version,
    recipient_type: recipient.kind,
    distinct_id: recipient.kind === 'user' ? recipient.distinct_id : null,
    object_type: recipient.kind === 'object' ? recipient.object_type : null,
    object_id: recipient.kind === 'object' ? recipient.id : null,
    tenant_id: run.tenant_id ?? null,
    idempotency_key: run.started.idempotency_key ?? null,
    status: run.status,
    started_at: startedAt,
  };
}

function messageRowOf(workspaceId: string, run: LiveRun, delivery: Extract<RunEvent, { type: 'delivery.requested.v1' }>['delivery'], at: string): MessageRow {
  return {
    delivery_id: delivery.delivery_id,
    workspace_id: workspaceId,
    run_id: delivery.run_id,
    message_id: delivery.message_id,
    workflow_slug: delivery.workflow.slug,
    workflow_version: delivery.workflow.version,
    node_name: delivery.node_name,
    channel: delivery.channel,
    recipient_type: delivery.recipient.kind,
    distinct_id: delivery.recipient.distinct_id ?? null,
    object_type: delivery.recipient.object_type ?? null,
    object_id: delivery.recipient.id ?? null,
    tenant_id: delivery.tenant_id ?? null,
    category: delivery.category ?? null,
    idempotency_key: run.started.idempotency_key ?? null,
    template_slug: delivery.template.slug,
    channel_identity: JSON.stringify({ [delivery.channel]: delivery.destination.identities.map(withoutCredentials) }),
    status: 'triggered',
    failure_reason: null,
    at,
  };
}

/**
 * A channel the send node did not send on, as a message-log row that says why
 * (`failure_reason`: the skip reason and its detail). Its id derives from the run, the
 * node and the channel, so a replayed projection writes the same row.
 */
function skippedRowOf(workspaceId: string, runId: string, run: LiveRun, skip: DeliverySkipped, at: string): MessageRow {
  const { started } = run;
  const node = nodeAt(started.definition.tree, skip.path);
  const template = node && 'template' in node && typeof node.template === 'string' ? node.template : '';
  return {
    delivery_id: deterministicUuid('delivery-skipped', runId, pathKey(skip.path), skip.channel),
    workspace_id: workspaceId,
    run_id: runId,
    message_id: started.message_id,
    workflow_slug: started.workflow.slug,
    workflow_version: started.workflow.version,
    node_name: node?.name ?? '',
    channel: skip.channel,
    recipient_type: started.recipient.kind,
    distinct_id: started.recipient.kind === 'user' ? started.recipient.distinct_id : null,
    object_type: started.recipient.kind === 'object' ? started.recipient.object_type : null,
    object_id: started.recipient.kind === 'object' ? started.recipient.id : null,
    tenant_id: run.tenant_id ?? null,
    category: started.definition.category ?? null,
    idempotency_key: started.idempotency_key ?? null,
    template_slug: template,
    channel_identity: '{}',
    status: 'not_sent',
    failure_reason: `${skip.reason}: ${skip.detail}`,
    at,
  };
}

/**
 * A run that failed before any message row (sent or skipped) as one `not_sent` row, so
 * the message log filtered by the trigger's `message_id` shows the recipient and why
 * (`run_failed: <node> (<label>): <reason>`). It stands for the workflow's first send
 * node (its first static channel and its template); a workflow with no such node would
 * never have sent anything and gets no row. Its id derives from the run: replay-safe.
 */
function failedBeforeSendingRowOf(workspaceId: string, runId: string, run: LiveRun, reason: string, at: string): FailedRunMessageRow | undefined {
  const { started } = run;
  const target = firstSendChannel(started.definition.tree.nodes);
  if (target === undefined) return undefined;
  return {
    delivery_id: deterministicUuid('run-failed-before-sending', runId),
    workspace_id: workspaceId,
    run_id: runId,
    message_id: started.message_id,
    workflow_slug: started.workflow.slug,
    workflow_version: started.workflow.version,
    node_name: target.node.name,
    channel: target.channel,
    recipient_type: started.recipient.kind,
    distinct_id: started.recipient.kind === 'user' ? started.recipient.distinct_id : null,
    object_type: started.recipient.kind === 'object' ? started.recipient.object_type : null,
    object_id: started.recipient.kind === 'object' ? started.recipient.id : null,
    tenant_id: run.tenant_id ?? null,
    category: started.definition.category ?? null,
    idempotency_key: started.idempotency_key ?? null,
    template_slug: target.node.template,
    failure_reason: `run_failed: ${reason}`,
    at,
  };
}

/** The first send node of the tree, depth first, that names a channel without evaluating anything. */
function firstSendChannel(nodes: readonly WorkflowNode[]): { node: SendNode; channel: Channel } | undefined {
  for (const node of nodes) {
    if ('branches' in node) {
      for (const branch of node.branches) {
        const found = firstSendChannel(branch.nodes);
        if (found) return found;
      }
      continue;
    }
    if (!node.node_type.startsWith('send_')) continue;
    const send = node as SendNode;
    const channel = 'channels' in send ? send.channels?.[0] : SEND_NODE_CHANNELS[send.node_type as keyof typeof SEND_NODE_CHANNELS]?.[0];
    if (channel !== undefined) return { node: send, channel };
  }
  return undefined;
}

/**
 * The outcomes of a batch on the message log, with one statement per kind of update
 * (retrying, or anything else) whatever their number: every delivery's outcome came one
 * statement each before, a statement per delivery in the batch's transaction. Outcomes
 * of one delivery are applied in order, as rounds: the n-th outcome of every delivery in
 * round n (one UPDATE sets a row once).
 */
async function recordOutcomes(repository: RunProjectionRepository, tx: SqlWriter, outcomes: readonly DeliveryOutcome[]): Promise<void> {
  const rounds: DeliveryOutcome[][] = [];
  const counted = new Map<string, number>();
  for (const outcome of outcomes) {
    const round = counted.get(outcome.delivery_id) ?? 0;
    counted.set(outcome.delivery_id, round + 1);
    (rounds[round] ??= []).push(outcome);
  }
  for (const round of rounds) {
    await repository.recordRetrying(tx, round.filter((o) => o.status === 'retrying'));
    await repository.recordSettled(tx, round.filter((o) => o.status !== 'retrying'));
  }
}
