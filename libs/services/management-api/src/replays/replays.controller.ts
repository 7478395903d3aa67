import { Body, Controller, Get, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { FieldError, HeraldError, MAX_REPLAY_RUNS, ReplaySelection } from '@herald/contracts';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { WorkflowStore } from '../workflows/workflow-store';
import { WorkflowDocument, documentOf } from '../workflows/workflow-view';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { ReplayJob, ReplayJobRepository } from './replay-job.repository';
import { RequiredRole } from '../auth/roles';

const SLUG = /^[a-z0-9-_]{1,255}$/;
export const DEFAULT_REPLAY_RUNS = 100;

export interface ReplayRequestBody {
  readonly choice: { version: 'draft' | 'live' | number } | { document: WorkflowDocument };
  readonly selection: ReplaySelection;
}

/**
 * What-if replay (issue 19): `POST /v1/{workspace}/workflow/{slug}/replay/` replays
 * recorded runs of the workflow against its draft (the default), its live version, a
 * version by number, or a definition given inline, with nothing sent; 202 with the job.
 * `GET .../replay/{id}/` gives its progress and, once done, every run's result and the
 * summary. The engine computes it (see ReplayJobRepository).
 */
@Controller('v1/:workspace/workflow/:slug/replay')
@UseGuards(ServiceTokenGuard)
export class ReplaysController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly workflows: WorkflowStore,
    private readonly jobs: ReplayJobRepository,
  ) {}

  @RequiredRole('editor')
  @Post()
  @HttpCode(202)
  async start(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('slug') slug: string, @Body() body: unknown): Promise<Record<string, unknown>> {
    const { choice, selection } = parseReplayRequest(body);
    const workspace = await this.workspace(request, workspaceSlug);
    const { definition, source } = await this.workflows.replayDefinition(workspace, slugOf(slug), choice);
    return replayView(await this.jobs.create(workspace, slug, source, definition, selection));
  }

  @RequiredRole('viewer')
  @Get(':id')
  async get(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('slug') slug: string, @Param('id') id: string): Promise<Record<string, unknown>> {
    const { job, results } = await this.jobs.get(await this.workspace(request, workspaceSlug), slugOf(slug), id);
    return { ...replayView(job), ...(results === undefined ? {} : { results }) };
  }

  private workspace(request: ManagementRequest, slug: string): Promise<ScopedWorkspace> {
    return this.scope.resolve(accountOf(request), slug);
  }
}

function slugOf(slug: string): string {
  if (!SLUG.test(slug)) throw HeraldError.validation([{ path: 'slug', message: 'must match ^[a-z0-9-_]+$, 1 to 255 characters' }]);
  return slug;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body: which definition (`version` or `definition`) and which runs, every wrong field by path. */
export function parseReplayRequest(body: unknown): ReplayRequestBody {
  if (body === undefined || body === null) body = {};
  if (!isRecord(body)) throw HeraldError.validation([{ path: '', message: 'the body must be a JSON object' }]);
  const errors: FieldError[] = [];
  const { version, definition, from, to, recipients, count } = body;
  if (version !== undefined && definition !== undefined) errors.push({ path: 'definition', message: 'give either version or definition, not both' });
  if (version !== undefined && version !== 'draft' && version !== 'live' && !(Number.isInteger(version) && (version as number) >= 1)) {
    errors.push({ path: 'version', message: 'must be "draft", "live" or a version number' });
  }
  if (definition !== undefined && !isRecord(definition)) errors.push({ path: 'definition', message: 'must be a workflow definition object' });
  for (const [field, value] of [['from', from], ['to', to]] as const) {
    if (value !== undefined && (typeof value !== 'string' || Number.isNaN(Date.parse(value)))) errors.push({ path: field, message: 'must be an ISO 8601 date-time' });
  }
  if (typeof from === 'string' && typeof to === 'string' && Date.parse(from) >= Date.parse(to)) errors.push({ path: 'to', message: 'must be after from' });
  if (recipients !== undefined) {
    if (!Array.isArray(recipients) || recipients.length > 1000) errors.push({ path: 'recipients', message: 'must be an array of at most 1000 distinct_ids' });
    else recipients.forEach((r, i) => (typeof r !== 'string' || r === '') && errors.push({ path: `recipients[${i}]`, message: 'must be a non-empty string' }));
  }
  if (count !== undefined && !(Number.isInteger(count) && (count as number) >= 1 && (count as number) <= MAX_REPLAY_RUNS)) {
    errors.push({ path: 'count', message: `must be an integer from 1 to ${MAX_REPLAY_RUNS}` });
  }
  if (errors.length > 0) throw HeraldError.validation(errors);
  const selection: ReplaySelection = {
    ...(from === undefined ? {} : { from: new Date(from as string).toISOString() }),
    ...(to === undefined ? {} : { to: new Date(to as string).toISOString() }),
    ...(recipients === undefined ? {} : { recipients: recipients as string[] }),
    count: (count as number | undefined) ?? DEFAULT_REPLAY_RUNS,
  };
  const choice = definition !== undefined ? { document: documentOf(definition as Record<string, unknown>) } : { version: (version as 'draft' | 'live' | number | undefined) ?? 'draft' };
  return { choice, selection };
}

function replayView(job: ReplayJob): Record<string, unknown> {
  return {
    id: job.id,
    workflow_slug: job.workflowSlug,
    source: job.source,
    selection: job.selection,
    status: job.status,
    progress: { done: job.done, total: job.total },
    summary: job.summary,
    error: job.error,
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
  };
}
