import { SqlWriter } from '@herald/database';
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

/** A row of `engine.messages` as a run's step inserts it (a delivery, or a channel it did not send on). */
interface MessageRow {
  readonly delivery_id: string;
  readonly workspace_id: string;
  readonly run_id: string;
  readonly message_id: string;
  readonly workflow_slug: string;
  readonly workflow_version: number;
  readonly node_name: string;
  readonly channel: string;
  readonly recipient_type: string;
  readonly distinct_id: string | null;
  readonly object_type: string | null;
  readonly object_id: string | null;
  readonly tenant_id: string | null;
  readonly category: string | null;
  readonly idempotency_key: string | null;
  readonly template_slug: string;
  readonly channel_identity: string;
  readonly status: 'triggered' | 'not_sent';
  readonly failure_reason: string | null;
  readonly at: string;
}

/**
 * What one step (one or several inputs of a run) adds to the read models. The frequent
 * rows (a run, an admission, a message, a delivery's outcome, the run's status) are
 * written for a whole batch with one statement each (`writeRunProjections`); the rare
 * updates (reasons, waits) keep a statement each, in the order of their events.
 */
export interface RunProjectionRows {
  readonly run?: readonly unknown[];
  readonly admission?: readonly unknown[];
  readonly messages: readonly MessageRow[];
  /** Outcomes to record on the message log, in the order of their events. */
  readonly outcomes: readonly DeliveryOutcome[];
  readonly updates: ReadonlyArray<(tx: SqlWriter) => Promise<void>>;
  readonly status: { readonly runId: string; readonly status: string; readonly at: string };
}

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
export function runProjectionRows(events: readonly RunEvent[], after: RunState, streamId: string, now: Date): RunProjectionRows | undefined {
  if (after.status === 'new') return undefined;
  const run = after;
  const { workspaceId, runId } = parseRunStreamId(streamId);
  const at = now.toISOString();
  let runRow: unknown[] | undefined;
  let admission: unknown[] | undefined;
  const messages: MessageRow[] = [];
  const outcomes: DeliveryOutcome[] = [];
  const updates: Array<(tx: SqlWriter) => Promise<void>> = [];
  for (const event of events) {
    switch (event.type) {
      case 'run.started.v1':
        runRow = runRowOf(workspaceId, runId, streamId, run);
        break;
      case 'run.admitted.v1':
        admission = [workspaceId, run.started.workflow.slug, runKey(workspaceId, run.started.recipient, runId), runId, at];
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
        updates.push((tx) => setOutcomeReason(tx, runId, reason));
        updates.push((tx) => insertFailedBeforeSending(tx, workspaceId, runId, run, reason, at));
        break;
      }
      case 'run.discarded.v1': {
        const reason = `${event.reason}: ${event.detail}`;
        updates.push((tx) => setOutcomeReason(tx, runId, reason));
        break;
      }
      case 'run.cancelled.v1': {
        const reason = event.reason;
        updates.push((tx) => setOutcomeReason(tx, runId, reason));
        break;
      }
      case 'digest.skipped.v1': {
        const reason = `digest_skipped: ${event.count} trigger(s), fewer than trigger_min_count ${event.trigger_min_count}`;
        updates.push((tx) => setOutcomeReason(tx, runId, reason));
        break;
      }
      case 'wait.started.v1': {
        const params = [runId, workspaceId, runKey(workspaceId, run.started.recipient, runId), event.event_name, streamId, event.since];
        updates.push(async (tx) => {
          await tx.query(
            `INSERT INTO engine.waits (run_id, workspace_id, recipient_key, event_name, stream_id, since) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
            params,
          );
        });
        break;
      }
      case 'wait.ended.v1':
      case 'wait.cancelled.v1':
        updates.push(async (tx) => {
          await tx.query(`DELETE FROM engine.waits WHERE run_id = $1`, [runId]);
        });
        break;
      default:
        break;
    }
  }
  return { ...(runRow ? { run: runRow } : {}), ...(admission ? { admission } : {}), messages, outcomes, updates, status: { runId, status: run.status, at } };
}

/**
 * Writes the rows of a batch of steps: runs, admissions and messages with one
 * multi-row insert each (before the updates, which may refer to them), then each
 * step's rare updates in order, the outcomes (see recordOutcomes), then every run's
 * status with one statement. The outcomes touch only their deliveries' message rows,
 * which no rare update reads or writes, so they can follow them.
 */
export async function writeRunProjections(tx: SqlWriter, steps: readonly RunProjectionRows[]): Promise<void> {
  const runs = steps.flatMap((s) => (s.run ? [s.run] : []));
  if (runs.length > 0) {
    await tx.query(
      `INSERT INTO engine.runs (run_id, workspace_id, stream_id, message_id, workflow_slug, workflow_version, recipient_type, distinct_id,
                                object_type, object_id, tenant_id, idempotency_key, status, started_at, updated_at)
       SELECT r.run_id, r.workspace_id, r.stream_id, r.message_id, r.workflow_slug, r.workflow_version, r.recipient_type, r.distinct_id,
              r.object_type, r.object_id, r.tenant_id, r.idempotency_key, r.status, r.started_at, r.started_at
         FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::integer[], $7::text[], $8::text[], $9::text[], $10::text[],
                     $11::text[], $12::text[], $13::text[], $14::timestamptz[])
              AS r(run_id, workspace_id, stream_id, message_id, workflow_slug, workflow_version, recipient_type, distinct_id, object_type, object_id,
                   tenant_id, idempotency_key, status, started_at)
       ON CONFLICT DO NOTHING`,
      columns(runs, 14),
    );
  }
  const admissions = steps.flatMap((s) => (s.admission ? [s.admission] : []));
  if (admissions.length > 0) {
    await tx.query(
      `INSERT INTO engine.admissions (workspace_id, workflow_slug, recipient_key, run_id, admitted_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
       ON CONFLICT DO NOTHING`,
      columns(admissions, 5),
    );
  }
  const messages = steps.flatMap((s) => s.messages);
  if (messages.length > 0) {
    await tx.query(
      `INSERT INTO engine.messages (delivery_id, workspace_id, run_id, message_id, workflow_slug, workflow_version, node_name, channel,
                                    recipient_type, distinct_id, object_type, object_id, tenant_id, category, idempotency_key,
                                    template_slug, channel_identity, status, failure_reason, created_at, updated_at)
       SELECT m.delivery_id, m.workspace_id, m.run_id, m.message_id, m.workflow_slug, m.workflow_version, m.node_name, m.channel,
              m.recipient_type, m.distinct_id, m.object_type, m.object_id, m.tenant_id, m.category, m.idempotency_key,
              m.template_slug, m.channel_identity, m.status, m.failure_reason, m.at, m.at
         FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::integer[], $7::text[], $8::text[], $9::text[], $10::text[],
                     $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::jsonb[], $18::text[], $19::text[], $20::timestamptz[])
              AS m(delivery_id, workspace_id, run_id, message_id, workflow_slug, workflow_version, node_name, channel, recipient_type, distinct_id,
                   object_type, object_id, tenant_id, category, idempotency_key, template_slug, channel_identity, status, failure_reason, at)
       ON CONFLICT DO NOTHING`,
      MESSAGE_COLUMNS.map((column) => messages.map((m) => m[column])),
    );
  }
  for (const step of steps) for (const update of step.updates) await update(tx);
  await recordOutcomes(tx, steps.flatMap((s) => s.outcomes));
  // Only the rows that change: a run inserted above already has its status as of the
  // step (`runRowOf`, updated_at = started_at = the step's time), and an UPDATE that sets
  // the same values still writes a new row version, one per run.
  const moved = steps.filter((s) => s.run === undefined);
  if (moved.length === 0) return;
  await tx.query(
    `UPDATE engine.runs r SET status = s.status, updated_at = s.at
       FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS s(run_id, status, at)
      WHERE r.run_id = s.run_id AND (r.status IS DISTINCT FROM s.status OR r.updated_at IS DISTINCT FROM s.at)`,
    [moved.map((s) => s.status.runId), moved.map((s) => s.status.status), moved.map((s) => s.status.at)],
  );
}

const MESSAGE_COLUMNS: ReadonlyArray<keyof MessageRow> = [
  'delivery_id',
  'workspace_id',
  'run_id',
  'message_id',
  'workflow_slug',
  'workflow_version',
  'node_name',
  'channel',
  'recipient_type',
  'distinct_id',
  'object_type',
  'object_id',
  'tenant_id',
  'category',
  'idempotency_key',
  'template_slug',
  'channel_identity',
  'status',
  'failure_reason',
  'at',
];

/** Rows as one array per column, for unnest. */
function columns(rows: ReadonlyArray<readonly unknown[]>, width: number): unknown[][] {
  return Array.from({ length: width }, (_, i) => rows.map((row) => row[i]));
}

function runRowOf(workspaceId: string, runId: string, streamId: string, run: LiveRun): unknown[] {
  const { recipient, workflow, message_id: messageId, started_at: startedAt } = run.started;
  return [
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
  ];
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
async function insertFailedBeforeSending(tx: SqlWriter, workspaceId: string, runId: string, run: LiveRun, reason: string, at: string): Promise<void> {
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

async function setOutcomeReason(tx: SqlWriter, runId: string, reason: string): Promise<void> {
  await tx.query(`UPDATE engine.runs SET outcome_reason = $2 WHERE run_id = $1`, [runId, reason]);
}

/** The timestamps an outcome sets (once). Delivered implies triggered: the inbox reports `delivered` alone. */
const TIMESTAMPS_OF: Partial<Record<DeliveryOutcome['status'], readonly string[]>> = {
  sent_by_vendor: ['triggered_at'],
  delivered: ['triggered_at', 'delivered_at'],
  seen: ['seen_at'],
  clicked: ['clicked_at'],
};
const TIMESTAMP_COLUMNS = [...new Set(Object.values(TIMESTAMPS_OF).flat())];
/** Statuses whose outcome keeps the failure the delivery recorded (engagement); any other replaces it (a success clears it). */
const KEEPS_FAILURE_REASON: ReadonlyArray<DeliveryOutcome['status']> = ['seen', 'clicked'];

/**
 * The outcomes of a batch on the message log, with one statement per kind of update
 * (retrying, or anything else) whatever their number: every delivery's outcome came one
 * statement each before, a statement per delivery in the batch's transaction. Outcomes
 * of one delivery are applied in order, as rounds: the n-th outcome of every delivery in
 * round n (one UPDATE sets a row once).
 */
async function recordOutcomes(tx: SqlWriter, outcomes: readonly DeliveryOutcome[]): Promise<void> {
  const rounds: DeliveryOutcome[][] = [];
  const counted = new Map<string, number>();
  for (const outcome of outcomes) {
    const round = counted.get(outcome.delivery_id) ?? 0;
    counted.set(outcome.delivery_id, round + 1);
    (rounds[round] ??= []).push(outcome);
  }
  for (const round of rounds) {
    const retrying = round.filter((o) => o.status === 'retrying');
    const settled = round.filter((o) => o.status !== 'retrying');
    if (retrying.length > 0) await recordRetrying(tx, retrying);
    if (settled.length > 0) await recordSettled(tx, settled);
  }
}

/**
 * Still `triggered` as the reference knows it, with the attempts so far, the next try, the
 * vendor tried and why the last one failed. Only while nothing final is recorded: a late
 * report never hides the outcome.
 */
async function recordRetrying(tx: SqlWriter, outcomes: readonly DeliveryOutcome[]): Promise<void> {
  await tx.query(
    `UPDATE engine.messages m SET updated_at = o.at, attempts = greatest(coalesce(m.attempts, 0), o.attempts), next_attempt_at = o.next_attempt_at, failure_reason = o.error,
            warnings = coalesce(o.warnings::jsonb, m.warnings), vendor = coalesce(o.vendor, m.vendor)
       FROM unnest($1::text[], $2::timestamptz[], $3::integer[], $4::timestamptz[], $5::text[], $6::text[], $7::text[]) AS o(delivery_id, at, attempts, next_attempt_at, error, warnings, vendor)
      WHERE m.delivery_id = o.delivery_id AND m.status = 'triggered' AND coalesce(m.attempts, 0) <= o.attempts`,
    [
      outcomes.map((o) => o.delivery_id),
      outcomes.map((o) => o.at),
      outcomes.map((o) => o.attempts ?? 1),
      outcomes.map((o) => o.next_attempt_at ?? null),
      outcomes.map((o) => o.error?.message ?? null),
      outcomes.map(warningsJson),
      // The vendor that refused this attempt: the message log names it while it retries.
      outcomes.map((o) => o.vendor ?? null),
    ],
  );
}

const statusIn = (statuses: readonly string[]): string => (statuses.length === 0 ? 'false' : `o.status IN (${statuses.map((s) => `'${s}'`).join(', ')})`);
/** The SET clauses of the timestamps an outcome sets (once), fixed by TIMESTAMPS_OF: built once, not per batch. */
const SETTLED_TIMESTAMPS = TIMESTAMP_COLUMNS.map((column) => {
  const statuses = Object.entries(TIMESTAMPS_OF).flatMap(([status, columns]) => (columns?.includes(column) ? [status] : []));
  return `, ${column} = CASE WHEN ${statusIn(statuses)} THEN coalesce(m.${column}, o.at) ELSE m.${column} END`;
}).join('');

/**
 * A vendor's receipt may come after what it preceded (its `delivered` after an open, a
 * click, a bounce or a complaint, as webhooks are not ordered): it never replaces them.
 */
const NEVER_OVERRIDES: ReadonlyArray<DeliveryOutcome['status']> = ['sent_by_vendor', 'delivered'];
const OUTLASTS: ReadonlyArray<DeliveryOutcome['status']> = ['seen', 'clicked', 'bounced', 'complained'];

/** A final outcome or an engagement: its status, vendor and failure, and the timestamps it sets (once). */
async function recordSettled(tx: SqlWriter, outcomes: readonly DeliveryOutcome[]): Promise<void> {
  await tx.query(
    `UPDATE engine.messages m
        SET status = CASE WHEN ${statusIn(NEVER_OVERRIDES)} AND m.status IN (${OUTLASTS.map((s) => `'${s}'`).join(', ')}) THEN m.status ELSE o.status END, updated_at = o.at, vendor = coalesce(o.vendor, m.vendor),
            failure_reason = CASE WHEN ${statusIn(KEEPS_FAILURE_REASON)} THEN coalesce(o.error, m.failure_reason) ELSE o.error END,
            attempts = coalesce(o.attempts, m.attempts), next_attempt_at = NULL, warnings = coalesce(o.warnings::jsonb, m.warnings) ${SETTLED_TIMESTAMPS}
       FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::integer[], $7::text[]) AS o(delivery_id, status, at, vendor, error, attempts, warnings)
      WHERE m.delivery_id = o.delivery_id`,
    [
      outcomes.map((o) => o.delivery_id),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.at),
      outcomes.map((o) => o.vendor ?? null),
      outcomes.map((o) => o.error?.message ?? null),
      outcomes.map((o) => o.attempts ?? null),
      outcomes.map(warningsJson),
    ],
  );
}

/** An outcome's warnings as the column stores them; null (keep what the row has) when it carries none, as engagements do. */
function warningsJson(outcome: DeliveryOutcome): string | null {
  return outcome.warnings && outcome.warnings.length > 0 ? JSON.stringify(outcome.warnings) : null;
}
