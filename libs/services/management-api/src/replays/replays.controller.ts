import { Controller, Get, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { FieldError, HeraldError, ReplaySelection } from '@herald/contracts';
import { ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { WorkflowRepository } from '../workflows/workflow.repository';
import { WorkflowDocument, documentOf } from '../workflows/workflow-view';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { ReplayJob, ReplayJobRepository } from './replay-job.repository';
import { RequiredRole } from '../auth/roles';
import { REPLAY_BODIES, ReplayBody } from './request-bodies';

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
    private readonly workflows: WorkflowRepository,
    private readonly jobs: ReplayJobRepository,
  ) {}

  @RequiredRole('editor')
  @Post()
  @HttpCode(202)
  async start(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('slug') slug: string, @ValidBody(REPLAY_BODIES.start) body: ReplayBody): Promise<Record<string, unknown>> {
    const { choice, selection } = replayRequestOf(body);
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

/** Which definition and which runs; the schema checked every field, the rules between them are here. */
export function replayRequestOf(body: ReplayBody): ReplayRequestBody {
  const { version, definition, from, to, recipients, count } = body;
  const errors: FieldError[] = [];
  if (version !== undefined && definition !== undefined) errors.push({ path: 'definition', message: 'give either version or definition, not both' });
  if (from !== undefined && to !== undefined && Date.parse(from) >= Date.parse(to)) errors.push({ path: 'to', message: 'must be after from' });
  if (errors.length > 0) throw HeraldError.validation(errors);
  const selection: ReplaySelection = {
    ...(from === undefined ? {} : { from: new Date(from).toISOString() }),
    ...(to === undefined ? {} : { to: new Date(to).toISOString() }),
    ...(recipients === undefined ? {} : { recipients }),
    count: count ?? DEFAULT_REPLAY_RUNS,
  };
  const choice = definition !== undefined ? { document: documentOf(definition) } : { version: version ?? 'draft' };
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
