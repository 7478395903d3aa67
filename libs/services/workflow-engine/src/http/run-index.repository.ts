import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, FindOptionsWhere, In, Like, Repository } from 'typeorm';
import { ReplaySelection } from '@herald/contracts';
import { RecordedEvent } from '@herald/event-store';
import { IndexedRun, IndexedRunEntity } from '../persistence/entities';
import { EngineEventStoreRepository } from '../runs/engine-event-store.repository';
import { BroadcastCancelFilters, CancelFilters } from './request-bodies';

/** Most runs one cancel call stops, and most broadcast member runs. */
const MAX_CANCELLED_RUNS = 1000;
const MAX_CANCELLED_BROADCAST_RUNS = 10_000;

/** Filters of `GET /v1/workflow_run/`, each an equality, all ANDed. */
export interface RunFilter {
  readonly messageId?: string;
  readonly idempotencyKey?: string;
  readonly workflowSlug?: string;
  readonly distinctId?: string;
  readonly status?: string;
}

export type OpenRun = Pick<IndexedRun, 'runId' | 'streamId' | 'status'>;

/**
 * The run index (`engine.runs`) as the HTTP side reads it, always within one workspace,
 * and a run's log from the engine's event store. The index is written by the run
 * projection in the append's transaction; this reads it only.
 */
@Injectable()
export class RunIndexRepository {
  constructor(
    @InjectDataSource('engine') private readonly db: DataSource,
    private readonly eventStore: EngineEventStoreRepository,
  ) {}

  /** A run's log: every event of its stream, in order, as recorded. */
  runLog(streamId: string): Promise<RecordedEvent[]> {
    return this.eventStore.streams.readStream(streamId);
  }

  /** The logs of these runs' streams, in one read; a stream with no events is absent. */
  async runLogs(streamIds: readonly string[]): Promise<Map<string, readonly RecordedEvent[]>> {
    const streams = await this.eventStore.streams.readStreams(streamIds);
    return new Map([...streams].map(([id, stream]) => [id, stream.events]));
  }

  /** The streams of a workflow's runs a what-if replay reads: newest first, at most `count`, within the window and recipients given. */
  async streamsToReplay(workspaceId: string, workflowSlug: string, selection: ReplaySelection): Promise<string[]> {
    const query = this.runs()
      .createQueryBuilder('run')
      .select(['run.runId', 'run.streamId'])
      .where('run.workspaceId = :workspaceId AND run.workflowSlug = :workflowSlug', { workspaceId, workflowSlug });
    if (selection.from !== undefined) query.andWhere('run.startedAt >= :from', { from: new Date(selection.from) });
    if (selection.to !== undefined) query.andWhere('run.startedAt < :to', { to: new Date(selection.to) });
    if (selection.recipients?.length) query.andWhere('run.distinctId IN (:...recipients)', { recipients: [...selection.recipients] });
    const rows = await query.orderBy('run.startedAt', 'DESC').addOrderBy('run.runId', 'ASC').take(selection.count).getMany();
    return rows.map((run) => run.streamId);
  }

  /** Runs still running that match every given filter (ANDed, as the reference says), oldest first. */
  openRuns(workspaceId: string, filters: CancelFilters): Promise<OpenRun[]> {
    const where: FindOptionsWhere<IndexedRun> = {
      workspaceId,
      status: 'running',
      ...(filters.execution_id !== undefined ? { runId: filters.execution_id } : {}),
      ...(filters.idempotency_key !== undefined ? { idempotencyKey: filters.idempotency_key } : {}),
      ...(filters.workflow_slug !== undefined ? { workflowSlug: filters.workflow_slug } : {}),
      ...(filters.recipients?.length ? { distinctId: In([...filters.recipients]) } : {}),
    };
    return this.runs().find({ select: { runId: true, streamId: true, status: true }, where, order: { startedAt: 'ASC' }, take: MAX_CANCELLED_RUNS });
  }

  /**
   * Members' runs of broadcasts still running that match every given filter. A broadcast
   * runs as one run per member under the workflow `broadcast:<list_id>`, all with the
   * broadcast's message_id, which is its execution id here.
   */
  openBroadcastRuns(workspaceId: string, filters: BroadcastCancelFilters): Promise<Array<OpenRun & Pick<IndexedRun, 'messageId'>>> {
    const where: FindOptionsWhere<IndexedRun> = {
      workspaceId,
      status: 'running',
      workflowSlug: filters.list_id !== undefined ? `broadcast:${filters.list_id}` : Like('broadcast:%'),
      ...(filters.execution_id !== undefined ? { messageId: filters.execution_id } : {}),
      ...(filters.idempotency_key !== undefined ? { idempotencyKey: filters.idempotency_key } : {}),
    };
    return this.runs().find({
      select: { runId: true, streamId: true, status: true, messageId: true },
      where,
      order: { startedAt: 'ASC' },
      take: MAX_CANCELLED_BROADCAST_RUNS,
    });
  }

  /** Runs matching every filter, newest first (at most `limit`), and how many match in all. */
  async follow(workspaceId: string, filter: RunFilter, limit: number): Promise<{ count: number; runs: IndexedRun[] }> {
    const [runs, count] = await this.runs().findAndCount({ where: { workspaceId, ...filter }, order: { startedAt: 'DESC', runId: 'ASC' }, take: limit });
    return { count, runs };
  }

  /** How many runs a trigger's message_id started. */
  runsOfTrigger(workspaceId: string, messageId: string): Promise<number> {
    return this.runs().count({ where: { workspaceId, messageId } });
  }

  /** The workspace's run with this id, if any. */
  run(workspaceId: string, runId: string): Promise<IndexedRun | null> {
    return this.runs().findOne({ where: { workspaceId, runId } });
  }

  private runs(): Repository<IndexedRun> {
    return this.db.getRepository(IndexedRunEntity);
  }
}
