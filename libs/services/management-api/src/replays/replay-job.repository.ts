import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';
import { HeraldError, REPLAY_REQUESTED_TYPE, REPLAY_VERSION, ReplayProgressed, ReplaySelection, TOPICS, envelopeOf, outboxMessageOf } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

export type ReplayJobStatus = 'queued' | 'running' | 'done' | 'failed';

/** A what-if replay job as stored. */
export interface ReplayJob {
  id: string;
  workspaceId: string;
  workflowSlug: string;
  /** Which definition it replays (draft, live, a version, or one given inline): a JSON object. */
  source: object;
  selection: ReplaySelection;
  status: ReplayJobStatus;
  /** Runs to replay, once the engine has counted them. */
  total: number | null;
  done: number;
  /** The engine's summary once done: a JSON object. */
  summary: object | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One chunk of a job's per-run results, as the engine reported it. */
export interface ReplayChunk {
  jobId: string;
  chunk: number;
  results: unknown[];
}

/** `management.replay_jobs` (created by the migrations, never by TypeORM). */
export const ReplayJobEntity = new EntitySchema<ReplayJob>({
  name: 'ReplayJob',
  schema: 'management',
  tableName: 'replay_jobs',
  columns: {
    id: { type: 'uuid', primary: true },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    workflowSlug: { name: 'workflow_slug', type: 'text' },
    source: { type: 'jsonb' },
    selection: { type: 'jsonb' },
    status: { type: 'text' },
    total: { type: 'integer', nullable: true },
    done: { type: 'integer' },
    summary: { type: 'jsonb', nullable: true },
    error: { type: 'text', nullable: true },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
  },
});

/** `management.replay_chunks`. */
export const ReplayChunkEntity = new EntitySchema<ReplayChunk>({
  name: 'ReplayChunk',
  schema: 'management',
  tableName: 'replay_chunks',
  columns: {
    jobId: { name: 'job_id', type: 'uuid', primary: true },
    chunk: { type: 'integer', primary: true },
    results: { type: 'jsonb' },
  },
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What-if replay jobs. A job is created with its request on the outbox in one
 * transaction (`notify.replay.requested.v1`, for the engine); the engine's progress
 * reports (`notify.replay.progressed.v1`) are applied here once per chunk.
 */
@Injectable()
export class ReplayJobRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async create(workspace: ScopedWorkspace, slug: string, source: Record<string, unknown>, definition: unknown, selection: ReplaySelection): Promise<ReplayJob> {
    const id = randomUUID();
    return this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const job = this.jobs(tx).create({ id, workspaceId: workspace.id, workflowSlug: slug, source, selection, status: 'queued', total: null, done: 0, summary: null, error: null, updatedAt: now });
      // The insert reads back the columns the database fills (created_at) into `job`.
      await this.jobs(tx).insert(job);
      const payload = { job_id: id, workspace_id: workspace.id, workflow_slug: slug, definition, selection };
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [outboxMessageOf(TOPICS.replayRequested.name, workspace.id, envelopeOf(REPLAY_REQUESTED_TYPE, REPLAY_VERSION, id, workspace.id, now, payload))]);
      return job;
    });
  }

  /** The workspace's job `id` of the workflow, with every run's result once it is done; 404 when there is none. */
  async get(workspace: ScopedWorkspace, slug: string, id: string): Promise<{ job: ReplayJob; results?: unknown[] }> {
    const job = UUID.test(id) ? await this.jobs().findOne({ where: { id, workspaceId: workspace.id, workflowSlug: slug } }) : null;
    if (!job) throw HeraldError.notFound(`replay '${id}' of workflow '${slug}' not found`);
    if (job.status !== 'done') return { job };
    const chunks = await this.chunks().find({ where: { jobId: id }, order: { chunk: 'ASC' } });
    return { job, results: chunks.flatMap((chunk) => chunk.results) };
  }

  /** Applies a progress report once: a redelivered or repeated chunk, or one of an unknown job, changes nothing. */
  async applyProgress(progress: ReplayProgressed): Promise<void> {
    await this.db.transaction(async (tx) => {
      // Locked, so two chunks applied at once each see the other's count.
      const job = await this.jobs(tx).findOne({ where: { id: progress.job_id, workspaceId: progress.workspace_id }, lock: { mode: 'pessimistic_write' } });
      if (!job) return;
      const inserted = await this.chunks(tx)
        .createQueryBuilder()
        .insert()
        .values({ jobId: job.id, chunk: progress.chunk, results: [...progress.results] })
        .orIgnore()
        .returning(['chunk'])
        .execute();
      if (inserted.raw.length === 0) return;
      const finished = progress.summary !== undefined || progress.error !== undefined;
      await this.jobs(tx).update(
        { id: job.id },
        {
          total: progress.total,
          done: Math.max(job.done, progress.done),
          status: progress.error !== undefined ? 'failed' : finished ? 'done' : 'running',
          summary: progress.summary ?? job.summary,
          error: progress.error ?? job.error,
          updatedAt: this.clock.now(),
        },
      );
    });
  }

  private jobs(manager: EntityManager = this.db.manager): Repository<ReplayJob> {
    return manager.getRepository(ReplayJobEntity);
  }

  private chunks(manager: EntityManager = this.db.manager): Repository<ReplayChunk> {
    return manager.getRepository(ReplayChunkEntity);
  }
}
