import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { EventStore } from '@herald/event-store';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuthenticatedWorkspace, CurrentWorkspace, WorkspaceAuthGuard } from '@herald/runtime';
import { RunHost } from '../runs/run-host';
import { MessageBulkUpdate } from './message-bulk-update';
import { MessageLog } from './message-log';
import { RunQueries, parseCancelFilters } from './run-queries';

/** `{base_url}` endpoints of the engine: cancelling runs, a run's log, the message log. */
@Controller()
@UseGuards(WorkspaceAuthGuard)
export class RunsController {
  private readonly store: EventStore;

  constructor(
    private readonly runs: RunHost,
    private readonly queries: RunQueries,
    private readonly messages: MessageLog,
    private readonly messageUpdates: MessageBulkUpdate,
    @InjectDataSource('engine') db: DataSource,
  ) {
    this.store = new EventStore(db, 'engine');
  }

  /** Reference `cancel-workflow`: every running run matching all the filters is cancelled. */
  @Post('v1/workflow_run/cancel')
  @HttpCode(200)
  async cancel(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @Body() body: unknown): Promise<{ execution_ids: string[] }> {
    const filters = parseCancelFilters(body);
    const cancelled: string[] = [];
    for (const run of await this.queries.openRuns(workspace, filters)) {
      const state = await this.runs.cancel(run.stream_id, 'cancelled through the API');
      if (state.status === 'cancelled') cancelled.push(run.run_id);
    }
    return { execution_ids: cancelled };
  }

  /** A run and its log: every input and decision, in order, as recorded. */
  @Get('v1/workflow_run/:execution_id')
  async run(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @Param('execution_id') runId: string): Promise<Record<string, unknown>> {
    const run = await this.queries.run(workspace, runId);
    if (!run) throw HeraldError.notFound(`workflow run '${runId}' not found`);
    const events = await this.store.readStream(run.stream_id as string);
    return {
      execution_id: run.run_id,
      message_id: run.message_id,
      status: run.status,
      workflow: { slug: run.workflow_slug, version: run.workflow_version },
      recipient: run.recipient_type === 'object' ? { $type: 'object', object_type: run.object_type, id: run.object_id } : { $type: 'user', distinct_id: run.distinct_id },
      tenant_id: run.tenant_id,
      started_at: new Date(run.started_at as string).toISOString(),
      updated_at: new Date(run.updated_at as string).toISOString(),
      steps: events.map((event) => ({ position: event.position, type: event.type, recorded_at: event.recordedAt.toISOString(), ...stepDetail(event.data) })),
    };
  }

  @Get('v1/message')
  list(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @Query() query: Record<string, unknown>): Promise<unknown> {
    return this.messages.list(workspace, query);
  }

  /** Reference `bulk-update-messages` (the Node SDK's `messages.bulk_update`): a result per message, in order. */
  @Patch('v1/bulk/message')
  @HttpCode(202)
  bulkUpdate(@CurrentWorkspace() workspace: AuthenticatedWorkspace, @Body() body: unknown): Promise<unknown> {
    return this.messageUpdates.apply(workspace, body);
  }
}

/** An event as a log line: its fields, without the definition the run started with (it is in the workflow's version). */
function stepDetail(data: unknown): Record<string, unknown> {
  const { type: _type, definition: _definition, ...rest } = data as Record<string, unknown>;
  return rest;
}
