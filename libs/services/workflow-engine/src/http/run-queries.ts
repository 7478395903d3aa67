import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FieldError, HeraldError } from '@herald/contracts';
import { EventStore, RecordedEvent } from '@herald/event-store';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { BroadcastCancelFilters, CancelFilters } from './request-bodies';

/** Cross-field rule of `POST /v1/workflow_run/cancel/` (reference `cancel-workflow`); the fields are checked by its schema. */
export function requireCancelFilter(filters: CancelFilters): CancelFilters {
  if (filters.execution_id === undefined && filters.idempotency_key === undefined && !filters.recipients?.length) {
    throw new HeraldError('validation_error', 'at least one filter is required: execution_id, recipients, idempotency_key', [], 'short');
  }
  return filters;
}

/** Cross-field rule of `POST /v1/broadcast_run/cancel/` (reference `cancel-broadcast`). */
export function requireBroadcastCancelFilter(filters: BroadcastCancelFilters): BroadcastCancelFilters {
  if (filters.execution_id === undefined && filters.list_id === undefined && filters.idempotency_key === undefined) {
    throw new HeraldError('validation_error', 'at least one filter is required: execution_id, list_id, idempotency_key', [], 'short');
  }
  return filters;
}

const DEFAULT_RUN_LIMIT = 100;
const MAX_RUN_LIMIT = 1000;
const RUN_STATUSES: readonly string[] = ['running', 'completed', 'failed', 'discarded', 'cancelled'];

export interface RunRow {
  readonly run_id: string;
  readonly stream_id: string;
  readonly status: string;
}

/** Queries of the run index and the message log, always scoped to the authenticated workspace. */
@Injectable()
export class RunQueries {
  private readonly events: EventStore;

  constructor(@InjectDataSource('engine') private readonly db: DataSource) {
    this.events = new EventStore(db, 'engine');
  }

  /** A run's log: every event of its stream, in order, as recorded. */
  runLog(streamId: string): Promise<RecordedEvent[]> {
    return this.events.readStream(streamId);
  }

  /** Runs still running that match every given filter (ANDed, as the reference says). */
  async openRuns(workspace: AuthenticatedWorkspace, filters: CancelFilters): Promise<RunRow[]> {
    const where = [`workspace_id = $1`, `status = 'running'`];
    const params: unknown[] = [workspace.id];
    const add = (sql: string, value: unknown): void => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filters.execution_id !== undefined) add('run_id = ?', filters.execution_id);
    if (filters.idempotency_key !== undefined) add('idempotency_key = ?', filters.idempotency_key);
    if (filters.workflow_slug !== undefined) add('workflow_slug = ?', filters.workflow_slug);
    if (filters.recipients?.length) add('distinct_id = ANY(?::text[])', [...filters.recipients]);
    return (await this.db.query(`SELECT run_id, stream_id, status FROM engine.runs WHERE ${where.join(' AND ')} ORDER BY started_at LIMIT 1000`, params)) as RunRow[];
  }

  /**
   * Members' runs of broadcasts still running that match every given filter. A broadcast
   * runs as one run per member under the workflow `broadcast:<list_id>`, all with the
   * broadcast's message_id, which is its execution id here.
   */
  async openBroadcastRuns(workspace: AuthenticatedWorkspace, filters: BroadcastCancelFilters): Promise<Array<RunRow & { message_id: string }>> {
    const where = [`workspace_id = $1`, `status = 'running'`, `workflow_slug LIKE 'broadcast:%'`];
    const params: unknown[] = [workspace.id];
    const add = (sql: string, value: unknown): void => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filters.execution_id !== undefined) add('message_id = ?', filters.execution_id);
    if (filters.list_id !== undefined) add('workflow_slug = ?', `broadcast:${filters.list_id}`);
    if (filters.idempotency_key !== undefined) add('idempotency_key = ?', filters.idempotency_key);
    return (await this.db.query(`SELECT run_id, stream_id, status, message_id FROM engine.runs WHERE ${where.join(' AND ')} ORDER BY started_at LIMIT 10000`, params)) as Array<
      RunRow & { message_id: string }
    >;
  }

  /**
   * Runs matching every given filter, newest first, each with its message-log rows: what
   * became of each recipient of a trigger (`message_id`, as POST /trigger/ answered it).
   */
  async followRuns(workspace: AuthenticatedWorkspace, query: Record<string, unknown>): Promise<{ count: number; runs: Array<Record<string, unknown>> }> {
    const errors: FieldError[] = [];
    const limit = query.limit === undefined ? DEFAULT_RUN_LIMIT : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RUN_LIMIT) errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_RUN_LIMIT}` });
    const where = ['workspace_id = $1'];
    const params: unknown[] = [workspace.id];
    for (const [param, column] of [
      ['message_id', 'message_id'],
      ['idempotency_key', 'idempotency_key'],
      ['workflow_slug', 'workflow_slug'],
      ['recipient_id', 'distinct_id'],
      ['status', 'status'],
    ] as const) {
      const value = query[param];
      if (value === undefined) continue;
      if (typeof value !== 'string' || value === '') {
        errors.push({ path: param, message: 'must be one non-empty value' });
        continue;
      }
      if (param === 'status' && !RUN_STATUSES.includes(value)) {
        errors.push({ path: param, message: `unknown status ${value}: must be one of ${RUN_STATUSES.join(', ')}` });
        continue;
      }
      params.push(value);
      where.push(`${column} = $${params.length}`);
    }
    if (errors.length > 0) throw HeraldError.validation(errors);
    const filter = where.join(' AND ');
    const [{ count }] = (await this.db.query(`SELECT count(*)::int AS count FROM engine.runs WHERE ${filter}`, params)) as Array<{ count: number }>;
    const runs = (await this.db.query(`SELECT * FROM engine.runs WHERE ${filter} ORDER BY started_at DESC, run_id LIMIT ${limit}`, params)) as Array<Record<string, unknown>>;
    const messages = runs.length === 0 ? [] : ((await this.db.query(
      `SELECT * FROM engine.messages WHERE run_id = ANY($1::text[]) ORDER BY created_at, delivery_id`,
      [runs.map((run) => run.run_id)],
    )) as Array<Record<string, unknown>>);
    return { count, runs: runs.map((run) => ({ ...run, messages: messages.filter((message) => message.run_id === run.run_id) })) };
  }

  /** How many runs a trigger's message_id started: to tell a client that mistook it for a run's id where to look. */
  async runsOfTrigger(workspace: AuthenticatedWorkspace, messageId: string): Promise<number> {
    const [{ count }] = (await this.db.query(`SELECT count(*)::int AS count FROM engine.runs WHERE workspace_id = $1 AND message_id = $2`, [workspace.id, messageId])) as Array<{ count: number }>;
    return count;
  }

  async run(workspace: AuthenticatedWorkspace, runId: string): Promise<Record<string, unknown> | undefined> {
    const [row] = (await this.db.query(`SELECT * FROM engine.runs WHERE workspace_id = $1 AND run_id = $2`, [workspace.id, runId])) as Array<Record<string, unknown>>;
    return row;
  }
}
