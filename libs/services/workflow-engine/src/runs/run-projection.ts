import { EntityManager } from 'typeorm';
import { Channel, DeliveryOutcome, deterministicUuid, withoutCredentials } from '@herald/contracts';
import { DeliverySkipped, LiveRun, RunEvent, RunState, SEND_NODE_CHANNELS, SendNode, SkipReason, WorkflowNode, nodeAt, pathKey } from '@herald/workflow';
import { parseRunStreamId, runKey } from './run-stream';

/**
 * Skips that are the trigger's or the workflow's own choice, not a notification that
 * failed to reach its recipient: the trigger's `$channels` left the channel out, or smart
 * routing already reached the recipient on another one. They stay in the run's log; as
 * message rows they would bury the skips a user needs to see (no identity, an opt-out, a
 * missing variant) under one row per channel of every all-channel send.
 */
const SKIPS_BY_DESIGN: ReadonlySet<SkipReason> = new Set<SkipReason>(['not_in_recipient_channels', 'not_routed']);

/**
 * The read-model updates of one step, run in the append's transaction: the run index
 * (`engine.runs`), the message log (`engine.messages`), the admissions the rate limit
 * counts and the wait-until index (`engine.waits`, removed when the wait ends or the
 * run is cancelled at it). A channel a send node skipped is a `not_sent` row of the
 * message log, and a run that ends without sending keeps why; a run that failed before
 * sending anything is a `not_sent` row too, so a client following its trigger sees every
 * recipient's outcome without reading the run log. Everything is an upsert keyed by ids from the events, so a
 * projection replayed from the log gives the same rows.
 */
export function runProjection(events: readonly RunEvent[], after: RunState, streamId: string, now: Date): ((tx: EntityManager) => Promise<void>) | undefined {
  if (after.status === 'new') return undefined;
  const run = after;
  const { workspaceId, runId } = parseRunStreamId(streamId);
  const at = now.toISOString();
  return async (tx) => {
    for (const event of events) {
      switch (event.type) {
        case 'run.started.v1':
          await insertRun(tx, workspaceId, runId, streamId, run);
          break;
        case 'run.admitted.v1':
          await tx.query(
            `INSERT INTO engine.admissions (workspace_id, workflow_slug, recipient_key, run_id, admitted_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT DO NOTHING`,
            [workspaceId, run.started.workflow.slug, runKey(workspaceId, run.started.recipient, runId), runId, at],
          );
          break;
        case 'delivery.requested.v1':
          await insertMessage(tx, workspaceId, run, event.delivery, at);
          break;
        case 'delivery.skipped.v1':
          if (!SKIPS_BY_DESIGN.has(event.reason)) await insertSkipped(tx, workspaceId, runId, run, event, at);
          break;
        case 'delivery.outcome_recorded.v1':
          await recordOutcome(tx, event.outcome);
          break;
        case 'run.failed.v1': {
          const reason = event.node ? `${event.node.name} (${event.node.label}): ${event.reason}` : event.reason;
          await setOutcomeReason(tx, runId, reason);
          await insertFailedBeforeSending(tx, workspaceId, runId, run, reason, at);
          break;
        }
        case 'run.discarded.v1':
          await setOutcomeReason(tx, runId, `${event.reason}: ${event.detail}`);
          break;
        case 'run.cancelled.v1':
          await setOutcomeReason(tx, runId, event.reason);
          break;
        case 'digest.skipped.v1':
          await setOutcomeReason(tx, runId, `digest_skipped: ${event.count} trigger(s), fewer than trigger_min_count ${event.trigger_min_count}`);
          break;
        case 'wait.started.v1':
          await tx.query(
            `INSERT INTO engine.waits (run_id, workspace_id, recipient_key, event_name, stream_id, since) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
            [runId, workspaceId, runKey(workspaceId, run.started.recipient, runId), event.event_name, streamId, event.since],
          );
          break;
        case 'wait.ended.v1':
        case 'wait.cancelled.v1':
          await tx.query(`DELETE FROM engine.waits WHERE run_id = $1`, [runId]);
          break;
        default:
          break;
      }
    }
    await tx.query(`UPDATE engine.runs SET status = $2, updated_at = $3 WHERE run_id = $1`, [runId, run.status, at]);
  };
}

async function insertRun(tx: EntityManager, workspaceId: string, runId: string, streamId: string, run: LiveRun): Promise<void> {
  const { recipient, workflow, message_id: messageId, started_at: startedAt } = run.started;
  await tx.query(
    `INSERT INTO engine.runs (run_id, workspace_id, stream_id, message_id, workflow_slug, workflow_version, recipient_type, distinct_id,
                              object_type, object_id, tenant_id, idempotency_key, status, started_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14) ON CONFLICT DO NOTHING`,
    [
      runId,
      workspaceId,
      streamId,
      messageId,
      workflow.slug,
      workflow.version,
      recipient.kind,
      recipient.kind === 'user' ? recipient.distinct_id : null,
      recipient.kind === 'object' ? recipient.object_type : null,
      recipient.kind === 'object' ? recipient.id : null,
      run.tenant_id ?? null,
      run.started.idempotency_key ?? null,
      run.status,
      startedAt,
    ],
  );
}

async function insertMessage(tx: EntityManager, workspaceId: string, run: LiveRun, delivery: Extract<RunEvent, { type: 'delivery.requested.v1' }>['delivery'], at: string): Promise<void> {
  await tx.query(
    `INSERT INTO engine.messages (delivery_id, workspace_id, run_id, message_id, workflow_slug, workflow_version, node_name, channel,
                                  recipient_type, distinct_id, object_type, object_id, tenant_id, category, idempotency_key,
                                  template_slug, channel_identity, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, 'triggered', $18, $18) ON CONFLICT DO NOTHING`,
    [
      delivery.delivery_id,
      workspaceId,
      delivery.run_id,
      delivery.message_id,
      delivery.workflow.slug,
      delivery.workflow.version,
      delivery.node_name,
      delivery.channel,
      delivery.recipient.kind,
      delivery.recipient.distinct_id ?? null,
      delivery.recipient.object_type ?? null,
      delivery.recipient.id ?? null,
      delivery.tenant_id ?? null,
      delivery.category ?? null,
      run.started.idempotency_key ?? null,
      delivery.template.slug,
      JSON.stringify({ [delivery.channel]: delivery.destination.identities.map(withoutCredentials) }),
      at,
    ],
  );
}

/**
 * A channel the send node did not send on, as a message-log row that says why
 * (`failure_reason`: the skip reason and its detail). Its id derives from the run, the
 * node and the channel, so a replayed projection writes the same row.
 */
async function insertSkipped(tx: EntityManager, workspaceId: string, runId: string, run: LiveRun, skip: DeliverySkipped, at: string): Promise<void> {
  const { started } = run;
  const node = nodeAt(started.definition.tree, skip.path);
  const template = node && 'template' in node && typeof node.template === 'string' ? node.template : '';
  await tx.query(
    `INSERT INTO engine.messages (delivery_id, workspace_id, run_id, message_id, workflow_slug, workflow_version, node_name, channel,
                                  recipient_type, distinct_id, object_type, object_id, tenant_id, category, idempotency_key,
                                  template_slug, channel_identity, status, failure_reason, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, '{}', 'not_sent', $17, $18, $18) ON CONFLICT DO NOTHING`,
    [
      deterministicUuid('delivery-skipped', runId, pathKey(skip.path), skip.channel),
      workspaceId,
      runId,
      started.message_id,
      started.workflow.slug,
      started.workflow.version,
      node?.name ?? '',
      skip.channel,
      started.recipient.kind,
      started.recipient.kind === 'user' ? started.recipient.distinct_id : null,
      started.recipient.kind === 'object' ? started.recipient.object_type : null,
      started.recipient.kind === 'object' ? started.recipient.id : null,
      run.tenant_id ?? null,
      started.definition.category ?? null,
      started.idempotency_key ?? null,
      template,
      `${skip.reason}: ${skip.detail}`,
      at,
    ],
  );
}

/**
 * A run that failed before any message row (sent or skipped) as one `not_sent` row, so
 * the message log filtered by the trigger's `message_id` shows the recipient and why
 * (`run_failed: <node> (<label>): <reason>`). It stands for the workflow's first send
 * node (its first static channel and its template); a workflow with no such node would
 * never have sent anything and gets no row. Its id derives from the run: replay-safe.
 */
async function insertFailedBeforeSending(tx: EntityManager, workspaceId: string, runId: string, run: LiveRun, reason: string, at: string): Promise<void> {
  const { started } = run;
  const target = firstSendChannel(started.definition.tree.nodes);
  if (target === undefined) return;
  await tx.query(
    `INSERT INTO engine.messages (delivery_id, workspace_id, run_id, message_id, workflow_slug, workflow_version, node_name, channel,
                                  recipient_type, distinct_id, object_type, object_id, tenant_id, category, idempotency_key,
                                  template_slug, channel_identity, status, failure_reason, created_at, updated_at)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, '{}', 'not_sent', $17, $18, $18
      WHERE NOT EXISTS (SELECT 1 FROM engine.messages WHERE run_id = $3)
     ON CONFLICT DO NOTHING`,
    [
      deterministicUuid('run-failed-before-sending', runId),
      workspaceId,
      runId,
      started.message_id,
      started.workflow.slug,
      started.workflow.version,
      target.node.name,
      target.channel,
      started.recipient.kind,
      started.recipient.kind === 'user' ? started.recipient.distinct_id : null,
      started.recipient.kind === 'object' ? started.recipient.object_type : null,
      started.recipient.kind === 'object' ? started.recipient.id : null,
      run.tenant_id ?? null,
      started.definition.category ?? null,
      started.idempotency_key ?? null,
      target.node.template,
      `run_failed: ${reason}`,
      at,
    ],
  );
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

async function setOutcomeReason(tx: EntityManager, runId: string, reason: string): Promise<void> {
  await tx.query(`UPDATE engine.runs SET outcome_reason = $2 WHERE run_id = $1`, [runId, reason]);
}

/** The timestamps an outcome sets (once). Delivered implies triggered: the inbox reports `delivered` alone. */
const TIMESTAMPS_OF: Partial<Record<DeliveryOutcome['status'], readonly string[]>> = {
  sent_by_vendor: ['triggered_at'],
  delivered: ['triggered_at', 'delivered_at'],
  seen: ['seen_at'],
  clicked: ['clicked_at'],
};

async function recordOutcome(tx: EntityManager, outcome: DeliveryOutcome): Promise<void> {
  if (outcome.status === 'retrying') {
    // Still `triggered` as the reference knows it, with the attempts so far, the next try and why the last one failed.
    // Only while nothing final is recorded: a late report never hides the outcome.
    await tx.query(
      `UPDATE engine.messages SET updated_at = $2, attempts = greatest(coalesce(attempts, 0), $3), next_attempt_at = $4, failure_reason = $5
        WHERE delivery_id = $1 AND status = 'triggered' AND coalesce(attempts, 0) <= $3`,
      [outcome.delivery_id, outcome.at, outcome.attempts ?? 1, outcome.next_attempt_at ?? null, outcome.error?.message ?? null],
    );
    return;
  }
  // A success clears the error of an earlier attempt; engagement keeps what the delivery recorded.
  const failureReason = outcome.status === 'seen' || outcome.status === 'clicked' ? 'coalesce($5, failure_reason)' : '$5';
  const timestamps = (TIMESTAMPS_OF[outcome.status] ?? []).map((column) => `, ${column} = coalesce(${column}, $3)`).join('');
  await tx.query(
    `UPDATE engine.messages
        SET status = $2, updated_at = $3, vendor = coalesce($4, vendor), failure_reason = ${failureReason},
            attempts = coalesce($6, attempts), next_attempt_at = NULL ${timestamps}
      WHERE delivery_id = $1`,
    [outcome.delivery_id, outcome.status, outcome.at, outcome.vendor ?? null, outcome.error?.message ?? null, outcome.attempts ?? null],
  );
}
