import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SqlWriter, returningRows } from '@herald/database';
import { DeliveryOutcome } from '@herald/contracts';

/** A row of `engine.runs` as a run's first step inserts it (its status as of that step, updated_at = started_at). */
export interface RunRow {
  readonly run_id: string;
  readonly workspace_id: string;
  readonly stream_id: string;
  readonly message_id: string;
  readonly workflow_slug: string;
  readonly workflow_version: number;
  readonly recipient_type: string;
  readonly distinct_id: string | null;
  readonly object_type: string | null;
  readonly object_id: string | null;
  readonly tenant_id: string | null;
  readonly idempotency_key: string | null;
  readonly status: string;
  readonly started_at: string;
}

/** A row of `engine.admissions`: a run of a workflow admitted for a recipient (what a rate limit counts). */
export interface AdmissionRow {
  readonly workspace_id: string;
  readonly workflow_slug: string;
  readonly recipient_key: string;
  readonly run_id: string;
  readonly admitted_at: string;
}

/** A row of `engine.messages` as a run's step inserts it (a delivery, or a channel it did not send on). */
export interface MessageRow {
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

/** The `not_sent` message row of a run that failed before any message row: no identity, and why in `failure_reason`. */
export type FailedRunMessageRow = Omit<MessageRow, 'channel_identity' | 'status'> & { readonly failure_reason: string };

/** A row of `engine.waits`: a run waiting at a wait-until node for an event of its recipient. */
export interface WaitRow {
  readonly run_id: string;
  readonly workspace_id: string;
  readonly recipient_key: string;
  readonly event_name: string;
  readonly stream_id: string;
  readonly since: string;
}

/** A run's status as of a step, for a run the step did not insert. */
export interface RunStatus {
  readonly runId: string;
  readonly status: string;
  readonly at: string;
}

/** A run an accepted event may resume: it waits for that event. */
export interface WaitingRun {
  readonly runId: string;
  readonly streamId: string;
}

/** How far back the rate limit looks at most; a workflow's sliding_window is shorter in practice. */
const ADMISSIONS_LOOKBACK = '1 day';

/**
 * The run projection's tables: the run index (`engine.runs`), the message log
 * (`engine.messages`), the admissions a rate limit counts (`engine.admissions`) and the
 * wait-until index (`engine.waits`). The writes take the append's transaction (`tx`, a
 * `SqlWriter`: the event store's `StatementBatch`, sent with the events in one round
 * trip), so the rows never miss or double an event; what to write for which event is
 * run-projection.ts's. A batch method with no rows sends no statement. The two reads are
 * the engine's own, while it runs: a rate-limited run's recent admissions and the runs an
 * event may resume.
 *
 * Hand-written: every statement is on the engine's hot path (each append, or each input
 * of a rate-limited workflow or an event), one statement per table whatever the batch
 * (arrays through unnest); the flow bench measures them. Their text is kept as it was in
 * run-projection.ts and run-context-loader.ts.
 */
@Injectable()
export class RunProjectionRepository {
  constructor(@InjectDataSource('engine') private readonly db: DataSource) {}

  /** Inserts the runs a batch started, one statement for all; a run already indexed is left as it is. */
  async insertRuns(tx: SqlWriter, runs: readonly RunRow[]): Promise<void> {
    if (runs.length === 0) return;
    // Hand-written: one multi-row insert per append (see the class comment).
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
      columnsOf(runs, RUN_COLUMNS),
    );
  }

  /** Inserts the admissions of a batch, one statement for all; one already recorded is left as it is. */
  async insertAdmissions(tx: SqlWriter, admissions: readonly AdmissionRow[]): Promise<void> {
    if (admissions.length === 0) return;
    // Hand-written: one multi-row insert per append (see the class comment).
    await tx.query(
      `INSERT INTO engine.admissions (workspace_id, workflow_slug, recipient_key, run_id, admitted_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
       ON CONFLICT DO NOTHING`,
      columnsOf(admissions, ADMISSION_COLUMNS),
    );
  }

  /** Inserts the message rows of a batch (deliveries and skipped channels), one statement for all; a row already there is left as it is. */
  async insertMessages(tx: SqlWriter, messages: readonly MessageRow[]): Promise<void> {
    if (messages.length === 0) return;
    // Hand-written: one multi-row insert per append (see the class comment).
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
      columnsOf(messages, MESSAGE_COLUMNS),
    );
  }

  /** Why a run ended without sending (failed, discarded, cancelled, a digest skipped). */
  async setOutcomeReason(tx: SqlWriter, runId: string, reason: string): Promise<void> {
    // Hand-written: in the append's transaction (see the class comment).
    await tx.query(`UPDATE engine.runs SET outcome_reason = $2 WHERE run_id = $1`, [runId, reason]);
  }

  /** The `not_sent` row of a run that failed before any message row (sent or skipped); nothing when the run has one. */
  async insertFailedBeforeSending(tx: SqlWriter, row: FailedRunMessageRow): Promise<void> {
    // Hand-written: one statement checks the run has no message row and inserts (see the class comment).
    await tx.query(
      `INSERT INTO engine.messages (delivery_id, workspace_id, run_id, message_id, workflow_slug, workflow_version, node_name, channel,
                                  recipient_type, distinct_id, object_type, object_id, tenant_id, category, idempotency_key,
                                  template_slug, channel_identity, status, failure_reason, created_at, updated_at)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, '{}', 'not_sent', $17, $18, $18
      WHERE NOT EXISTS (SELECT 1 FROM engine.messages WHERE run_id = $3)
     ON CONFLICT DO NOTHING`,
      [
        row.delivery_id,
        row.workspace_id,
        row.run_id,
        row.message_id,
        row.workflow_slug,
        row.workflow_version,
        row.node_name,
        row.channel,
        row.recipient_type,
        row.distinct_id,
        row.object_type,
        row.object_id,
        row.tenant_id,
        row.category,
        row.idempotency_key,
        row.template_slug,
        row.failure_reason,
        row.at,
      ],
    );
  }

  /** A run starts waiting for an event; a wait already recorded for the run is kept. */
  async insertWait(tx: SqlWriter, wait: WaitRow): Promise<void> {
    // Hand-written: in the append's transaction (see the class comment).
    await tx.query(
      `INSERT INTO engine.waits (run_id, workspace_id, recipient_key, event_name, stream_id, since) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [wait.run_id, wait.workspace_id, wait.recipient_key, wait.event_name, wait.stream_id, wait.since],
    );
  }

  /** A run's wait ended (the event came, it timed out, or the run was cancelled at it). */
  async deleteWait(tx: SqlWriter, runId: string): Promise<void> {
    // Hand-written: in the append's transaction (see the class comment).
    await tx.query(`DELETE FROM engine.waits WHERE run_id = $1`, [runId]);
  }

  /**
   * Still `triggered` as the reference knows it, with the attempts so far, the next try, the
   * vendor tried and why the last one failed, for a batch of `retrying` outcomes of distinct
   * deliveries, in one statement. Only while nothing final is recorded: a late report never
   * hides the outcome.
   */
  async recordRetrying(tx: SqlWriter, outcomes: readonly DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    // Hand-written: one statement for the batch's outcomes (see the class comment).
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

  /**
   * A final outcome or an engagement, for a batch of outcomes of distinct deliveries in one
   * statement: its status, vendor and failure, and the timestamps it sets (once).
   */
  async recordSettled(tx: SqlWriter, outcomes: readonly DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    // Hand-written: one statement for the batch's outcomes (see the class comment).
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

  /**
   * Sets the runs' statuses as of their steps, in one statement, only where they change: an
   * UPDATE that sets the same values still writes a new row version.
   */
  async updateStatuses(tx: SqlWriter, statuses: readonly RunStatus[]): Promise<void> {
    if (statuses.length === 0) return;
    // Hand-written: one statement for the batch's runs (see the class comment).
    await tx.query(
      `UPDATE engine.runs r SET status = s.status, updated_at = s.at
       FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS s(run_id, status, at)
      WHERE r.run_id = s.run_id AND (r.status IS DISTINCT FROM s.status OR r.updated_at IS DISTINCT FROM s.at)`,
      [statuses.map((s) => s.runId), statuses.map((s) => s.status), statuses.map((s) => s.at)],
    );
  }

  /** The runs of a recipient waiting for this event, oldest wait first. */
  async waitingRuns(workspaceId: string, recipientKey: string, eventName: string): Promise<WaitingRun[]> {
    // Hand-written: every accepted event (see the class comment), on the waits_by_event index.
    const rows = returningRows<{ run_id: string; stream_id: string }>(
      await this.db.query(
        `SELECT run_id, stream_id FROM engine.waits WHERE workspace_id = $1 AND recipient_key = $2 AND event_name = $3 ORDER BY since`,
        [workspaceId, recipientKey, eventName],
      ),
    );
    return rows.map((row) => ({ runId: row.run_id, streamId: row.stream_id }));
  }

  /** When runs of the workflow were admitted for the recipient within the last day, oldest first (what a rate limit counts). */
  async recentAdmissions(workspaceId: string, workflowSlug: string, recipientKey: string): Promise<Date[]> {
    // Hand-written: every input of a rate-limited workflow (see the class comment), on the admissions_by_time index.
    const rows = returningRows<{ admitted_at: Date }>(
      await this.db.query(
        `SELECT admitted_at FROM engine.admissions
        WHERE workspace_id = $1 AND workflow_slug = $2 AND recipient_key = $3 AND admitted_at > now() - interval '${ADMISSIONS_LOOKBACK}'
        ORDER BY admitted_at`,
        [workspaceId, workflowSlug, recipientKey],
      ),
    );
    return rows.map((row) => new Date(row.admitted_at));
  }
}

const RUN_COLUMNS: ReadonlyArray<keyof RunRow> = [
  'run_id',
  'workspace_id',
  'stream_id',
  'message_id',
  'workflow_slug',
  'workflow_version',
  'recipient_type',
  'distinct_id',
  'object_type',
  'object_id',
  'tenant_id',
  'idempotency_key',
  'status',
  'started_at',
];

const ADMISSION_COLUMNS: ReadonlyArray<keyof AdmissionRow> = ['workspace_id', 'workflow_slug', 'recipient_key', 'run_id', 'admitted_at'];

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

/** Rows as one array per column, in the statement's order, for unnest. */
function columnsOf<Row>(rows: readonly Row[], columns: ReadonlyArray<keyof Row>): unknown[][] {
  return columns.map((column) => rows.map((row) => row[column]));
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

/** An outcome's warnings as the column stores them; null (keep what the row has) when it carries none, as engagements do. */
function warningsJson(outcome: DeliveryOutcome): string | null {
  return outcome.warnings && outcome.warnings.length > 0 ? JSON.stringify(outcome.warnings) : null;
}
