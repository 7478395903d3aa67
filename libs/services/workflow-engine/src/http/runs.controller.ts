import { Controller, Get, HttpCode, Inject, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { AuthenticatedWorkspace, CLOCK, Clock, CurrentWorkspace, ValidBody, WorkspaceAuthGuard } from '@herald/runtime';
import { RunHost } from '../runs/run-host';
import { MessageBulkUpdate } from './message-bulk-update';
import { messageListAnswer, parseMessageListQuery } from './message-list';
import { MessageLogRepository } from './message-log.repository';
import { MessageStats, parseStatsQuery } from './message-stats';
import { MessageStatsRepository } from './message-stats.repository';
import { RunIndexRepository } from './run-index.repository';
import { parseRunFilter, requireBroadcastCancelFilter, requireCancelFilter } from './run-filters';
import { IndexedRun, LoggedMessage } from '../persistence/entities';
import { BroadcastCancelFilters, BulkMessageUpdate, CancelFilters, ENGINE_BODIES } from './request-bodies';

/** `{base_url}` endpoints of the engine: cancelling runs, a run's log, the message log. */
@Controller()
@UseGuards(WorkspaceAuthGuard)
export class RunsController {
  constructor(
    private readonly runs: RunHost,
    private readonly index: RunIndexRepository,
    private readonly messages: MessageLogRepository,
    private readonly messageUpdates: MessageBulkUpdate,
    private readonly stats: MessageStatsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Reference `cancel-workflow`: every running run matching all the filters is cancelled. */
  @Post('v1/workflow_run/cancel')
  @HttpCode(200)
  async cancel(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @ValidBody(ENGINE_BODIES.cancelFilters) body: CancelFilters): Promise<{ execution_ids: string[] }> {
    const filters = requireCancelFilter(body);
    const cancelled: string[] = [];
    for (const run of await this.index.openRuns(workspace.id, filters)) {
      const state = await this.runs.cancel(run.streamId, 'cancelled through the API');
      if (state.status === 'cancelled') cancelled.push(run.runId);
    }
    return { execution_ids: cancelled };
  }

  /**
   * Reference `cancel-broadcast`: every running member run of the matching broadcasts is
   * cancelled; answers the broadcasts' execution ids (their message_id). Members the
   * fan-out has not started yet are not stopped.
   */
  @Post('v1/broadcast_run/cancel')
  @HttpCode(200)
  async cancelBroadcasts(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @ValidBody(ENGINE_BODIES.broadcastCancelFilters) body: BroadcastCancelFilters): Promise<{ execution_ids: string[] }> {
    const filters = requireBroadcastCancelFilter(body);
    const cancelled = new Set<string>();
    for (const run of await this.index.openBroadcastRuns(workspace.id, filters)) {
      const state = await this.runs.cancel(run.streamId, 'broadcast cancelled through the API');
      if (state.status === 'cancelled') cancelled.add(run.messageId);
    }
    return { execution_ids: [...cancelled] };
  }

  /**
   * Following a trigger: its runs (`message_id` as POST /trigger/ answered, or the
   * `idempotency_key`), newest first, each with what became of it (`status`, and `reason`
   * when it ended without sending) and its messages (sent, retrying, failed, not sent).
   */
  @Get('v1/workflow_run')
  async runsOf(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @Query() query: Record<string, unknown>): Promise<unknown> {
    const { filter, limit } = parseRunFilter(query);
    const { count, runs } = await this.index.follow(workspace.id, filter, limit);
    const messages = await this.messages.ofRuns(workspace.id, runs.map((run) => run.runId));
    return {
      meta: { count, limit: runs.length },
      results: runs.map((run) => ({ ...runSummary(run), messages: messages.filter((message) => message.runId === run.runId).map(runMessage) })),
    };
  }

  /** A run and its log: every input and decision, in order, as recorded. */
  @Get('v1/workflow_run/:execution_id')
  async run(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @Param('execution_id') runId: string): Promise<Record<string, unknown>> {
    const run = await this.index.run(workspace.id, runId);
    if (!run) {
      // The id POST /trigger/ answers is the trigger's, not a run's: say where its runs are.
      const runsOfTrigger = await this.index.runsOfTrigger(workspace.id, runId);
      if (runsOfTrigger > 0) {
        throw HeraldError.notFound(`'${runId}' is a trigger's message_id, not a run's execution_id: GET /v1/workflow_run/?message_id=${runId} lists its ${runsOfTrigger} run(s)`);
      }
      throw HeraldError.notFound(`workflow run '${runId}' not found (a trigger's message_id: GET /v1/workflow_run/?message_id=${runId}; its runs appear once the engine has started them)`);
    }
    const events = await this.index.runLog(run.streamId);
    return {
      ...runSummary(run),
      steps: events.map((event) => ({ position: event.position, type: event.type, recorded_at: event.recordedAt.toISOString(), ...stepDetail(event.data) })),
    };
  }

  /** Reference `list-messages`: the message log newest first, filtered, with opaque cursors (`after`: older, `before`: newer). */
  @Get('v1/message')
  async list(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @Query() query: Record<string, unknown>): Promise<unknown> {
    const { filter, cursor, newerFirst, limit } = parseMessageListQuery(query);
    return messageListAnswer(await this.messages.list(workspace.id, filter, cursor, newerFirst, limit), limit);
  }

  /**
   * Herald's own (the console's Overview): the message log counted over a window, by
   * status group, channel, vendor, workflow, skip and failure reason, and per hour or day.
   */
  @Get('v1/message/stats')
  messageStats(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @Query() query: Record<string, unknown>): Promise<MessageStats> {
    return this.stats.stats(workspace.id, parseStatsQuery(query, this.clock.now()));
  }

  /** Reference `bulk-update-messages` (the Node SDK's `messages.bulk_update`): a result per message, in order. */
  @Patch('v1/bulk/message')
  @HttpCode(202)
  bulkUpdate(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @ValidBody(ENGINE_BODIES.bulkMessageUpdate) body: BulkMessageUpdate): Promise<unknown> {
    return this.messageUpdates.apply(workspace, body);
  }
}

function runSummary(run: IndexedRun): Record<string, unknown> {
  return {
    execution_id: run.runId,
    message_id: run.messageId,
    status: run.status,
    reason: run.outcomeReason ?? null,
    workflow: { slug: run.workflowSlug, version: run.workflowVersion },
    recipient: run.recipientType === 'object' ? { $type: 'object', object_type: run.objectType, id: run.objectId } : { $type: 'user', distinct_id: run.distinctId },
    tenant_id: run.tenantId,
    idempotency_key: run.idempotencyKey ?? null,
    started_at: run.startedAt.toISOString(),
    updated_at: run.updatedAt.toISOString(),
  };
}

const isoOrNull = (value: Date | null): string | null => (value === null ? null : value.toISOString());

/** A run's message, in short: enough to tell sent, retrying, failed and not sent apart, and why. */
function runMessage(row: LoggedMessage): Record<string, unknown> {
  return {
    message_id: row.deliveryId,
    node: row.nodeName,
    channel: row.channel,
    template: row.templateSlug,
    status: row.status,
    failure_reason: row.failureReason ?? '',
    warnings: row.warnings ?? [],
    attempts: row.attempts ?? 0,
    next_attempt_at: isoOrNull(row.nextAttemptAt),
    vendor: row.vendor ?? null,
    created_at: row.createdAt.toISOString(),
    triggered_at: isoOrNull(row.triggeredAt),
    delivered_at: isoOrNull(row.deliveredAt),
  };
}

/** An event as a log line: its fields, without the definition the run started with (it is in the workflow's version). */
function stepDetail(data: unknown): Record<string, unknown> {
  const { type: _type, definition: _definition, ...rest } = data as Record<string, unknown>;
  return rest;
}
