import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HeraldError, REPLAY_REQUESTED_TYPE, REPLAY_VERSION, ReplayProgressed, ReplaySelection, TOPICS, envelopeOf } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

export interface ReplayJobRow {
  readonly id: string;
  readonly workflow_slug: string;
  readonly source: Record<string, unknown>;
  readonly selection: ReplaySelection;
  readonly status: 'queued' | 'running' | 'done' | 'failed';
  readonly total: number | null;
  readonly done: number;
  readonly summary: Record<string, unknown> | null;
  readonly error: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** A ReplayJobRow's columns (the table's workspace_id stays out of answers). */
const REPLAY_JOB_COLUMNS = 'id, workflow_slug, source, selection, status, total, done, summary, error, created_at, updated_at';

/**
 * What-if replay jobs. A job is created with its request on the outbox in one
 * transaction (`notify.replay.requested.v1`, for the engine); the engine's progress
 * reports (`notify.replay.progressed.v1`) are applied here once per chunk.
 */
@Injectable()
export class ReplayStore {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async create(workspace: ScopedWorkspace, slug: string, source: Record<string, unknown>, definition: unknown, selection: ReplaySelection): Promise<ReplayJobRow> {
    const id = randomUUID();
    return this.db.transaction(async (tx) => {
      const [row] = (await tx.query(
        `INSERT INTO management.replay_jobs (id, workspace_id, workflow_slug, source, selection, status)
         VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, 'queued') RETURNING ${REPLAY_JOB_COLUMNS}`,
        [id, workspace.id, slug, JSON.stringify(source), JSON.stringify(selection)],
      )) as ReplayJobRow[];
      const payload = { job_id: id, workspace_id: workspace.id, workflow_slug: slug, definition, selection };
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [
        {
          messageId: id,
          topic: TOPICS.replayRequested.name,
          key: workspace.id,
          value: JSON.stringify(envelopeOf(REPLAY_REQUESTED_TYPE, REPLAY_VERSION, id, workspace.id, this.clock.now(), payload)),
          headers: { 'message-id': id },
        },
      ]);
      return row;
    });
  }

  /** The job, with every run's result once it is done. */
  async get(workspace: ScopedWorkspace, slug: string, id: string): Promise<{ job: ReplayJobRow; results?: unknown[] }> {
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const [job] = UUID.test(id)
      ? ((await this.db.query(`SELECT ${REPLAY_JOB_COLUMNS} FROM management.replay_jobs WHERE workspace_id = $1 AND workflow_slug = $2 AND id = $3`, [workspace.id, slug, id])) as ReplayJobRow[])
      : [];
    if (!job) throw HeraldError.notFound(`replay '${id}' of workflow '${slug}' not found`);
    if (job.status !== 'done') return { job };
    const chunks = (await this.db.query(`SELECT results FROM management.replay_chunks WHERE job_id = $1 ORDER BY chunk`, [id])) as Array<{ results: unknown[] }>;
    return { job, results: chunks.flatMap((chunk) => chunk.results) };
  }

  /** Applies a progress report once (a redelivered or repeated chunk changes nothing). */
  async applyProgress(progress: ReplayProgressed): Promise<void> {
    await this.db.transaction(async (tx) => {
      const inserted = (await tx.query(
        `INSERT INTO management.replay_chunks (job_id, chunk, results)
         SELECT id, $3, $4::jsonb FROM management.replay_jobs WHERE id = $1 AND workspace_id = $2
         ON CONFLICT DO NOTHING RETURNING chunk`,
        [progress.job_id, progress.workspace_id, progress.chunk, JSON.stringify(progress.results)],
      )) as unknown[];
      if (inserted.length === 0) return;
      const finished = progress.summary !== undefined || progress.error !== undefined;
      await tx.query(
        `UPDATE management.replay_jobs
            SET total = $2, done = GREATEST(done, $3), status = $4, summary = coalesce($5::jsonb, summary), error = coalesce($6, error), updated_at = now()
          WHERE id = $1`,
        [
          progress.job_id,
          progress.total,
          progress.done,
          progress.error !== undefined ? 'failed' : finished ? 'done' : 'running',
          progress.summary === undefined ? null : JSON.stringify(progress.summary),
          progress.error ?? null,
        ],
      );
    });
  }
}
