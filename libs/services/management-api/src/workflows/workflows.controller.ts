import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { COMMIT_BODY, CommitBody, commitMessageOf } from '../http/commit-message';
import { booleanOf, modeOf, versionNumberOf } from '../http/query-params';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { WorkflowRepository } from './workflow.repository';
import { WorkflowVersionRow, documentOf, workflowView } from './workflow-view';
import { RequiredRole } from '../auth/roles';
import { WORKFLOW_BODIES, WorkflowBody, WorkflowEnableBody } from './request-bodies';

const SLUG = /^[a-z0-9-_]{1,255}$/;

/**
 * `/v1/{workspace}/workflow/...` as in the reference: upsert a draft (and commit it
 * in the same call with `commit=true`), commit, enable or disable, read a version
 * with `mode=draft|live`, and (Herald's additions, which SuprSend's management API
 * does not have) the version history, a version's definition, rollback, and checking
 * a document without saving it.
 */
@Controller('v1/:workspace/workflow')
@UseGuards(ServiceTokenGuard)
export class WorkflowsController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly workflows: WorkflowRepository,
  ) {}

  @RequiredRole('viewer')
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Query('mode') mode?: string,
    @Query('slugs') slugs?: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<Record<string, unknown>>> {
    const page = offsetPage(limit, offset);
    const selected = modeOf(mode);
    const workspace = await this.workspace(request, workspaceSlug);
    const wanted = slugs?.split(',').map((s) => s.trim()).filter(Boolean);
    const { count, rows } = await this.workflows.list(workspace, selected, wanted, page);
    return { meta: { count, ...page }, results: rows.map(workflowView) };
  }

  @RequiredRole('viewer')
  @Get(':slug')
  async get(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('slug') slug: string,
    @Query('mode') mode?: string,
  ): Promise<Record<string, unknown>> {
    const selected = modeOf(mode);
    const workspace = await this.workspace(request, workspaceSlug);
    return workflowView(await this.workflows.get(workspace, slugOf(slug), selected));
  }

  @RequiredRole('viewer')
  @Get(':slug/versions')
  async versions(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('slug') slug: string,
  ): Promise<{ results: Array<Record<string, unknown>> }> {
    const workspace = await this.workspace(request, workspaceSlug);
    const rows = await this.workflows.history(workspace, slugOf(slug));
    return { results: rows.map(versionSummary) };
  }

  /** One version with its definition as written (Herald): what a diff between versions compares. */
  @RequiredRole('viewer')
  @Get(':slug/versions/:version')
  async version(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('slug') slug: string,
    @Param('version') version: string,
  ): Promise<Record<string, unknown>> {
    const versionNo = versionNumberOf(version);
    const workspace = await this.workspace(request, workspaceSlug);
    const row = await this.workflows.versionByNumber(workspace, slugOf(slug), versionNo);
    return { ...versionSummary(row), definition: row.document };
  }

  /** Makes an earlier version live again as the next version (Herald); a pending draft is replaced. */
  @RequiredRole('editor')
  @Post(':slug/versions/:version/rollback')
  @HttpCode(202)
  async rollback(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('slug') slug: string,
    @Param('version') version: string,
    @ValidBody(COMMIT_BODY) body: CommitBody,
    @Query('commit_message') commitMessage?: string,
  ): Promise<Record<string, unknown>> {
    const versionNo = versionNumberOf(version);
    const message = commitMessageOf(commitMessage, body) ?? null;
    const workspace = await this.workspace(request, workspaceSlug);
    return workflowView(await this.workflows.rollback(workspace, slugOf(slug), versionNo, message));
  }

  /**
   * Checks a document as saving it as the draft would, saving nothing (Herald): for
   * editors that check jq, Jsonnet, durations and templates as the user types.
   */
  @RequiredRole('viewer')
  @Post(':slug/validate')
  @HttpCode(200)
  async validate(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('slug') slug: string,
    @ValidBody(WORKFLOW_BODIES.workflow) body: WorkflowBody,
  ): Promise<{ validation_result: { is_valid: boolean; errors: string[] } }> {
    slugOf(slug);
    const workspace = await this.workspace(request, workspaceSlug);
    return { validation_result: await this.workflows.check(workspace, documentOf(body)) };
  }

  /** Creates the workflow or replaces its draft (201); `commit=true` also makes a valid draft live. */
  @RequiredRole('editor')
  @Post(':slug')
  @HttpCode(201)
  async upsert(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('slug') slug: string,
    @ValidBody(WORKFLOW_BODIES.workflow) body: WorkflowBody,
    @Query('commit') commit?: string,
    @Query('commit_message') commitMessage?: string,
  ): Promise<Record<string, unknown>> {
    const shouldCommit = booleanOf('commit', commit);
    const workspace = await this.workspace(request, workspaceSlug);
    const draft = await this.workflows.saveDraft(workspace, slugOf(slug), documentOf(body), body.is_enabled);
    if (!shouldCommit || !draft.validation_result.is_valid) return workflowView(draft);
    return workflowView(await this.workflows.commit(workspace, draft.slug, commitMessage?.trim() || null));
  }

  @RequiredRole('editor')
  @Patch(':slug/commit')
  @HttpCode(202)
  async commit(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('slug') slug: string,
    @ValidBody(COMMIT_BODY) body: CommitBody,
    @Query('commit_message') commitMessage?: string,
  ): Promise<Record<string, unknown>> {
    const message = commitMessageOf(commitMessage, body) ?? null;
    const workspace = await this.workspace(request, workspaceSlug);
    return workflowView(await this.workflows.commit(workspace, slugOf(slug), message));
  }

  @RequiredRole('editor')
  @Patch(':slug/enable')
  @HttpCode(202)
  async enable(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('slug') slug: string,
    @ValidBody(WORKFLOW_BODIES.enable) body: WorkflowEnableBody,
  ): Promise<Record<string, unknown>> {
    const workspace = await this.workspace(request, workspaceSlug);
    return workflowView(await this.workflows.setEnabled(workspace, slugOf(slug), body.is_enabled));
  }

  /** Permanently deletes the workflow; runs in flight finish on the version they started with. */
  @RequiredRole('editor')
  @Delete(':slug')
  @HttpCode(204)
  async remove(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('slug') slug: string): Promise<void> {
    const workspace = await this.workspace(request, workspaceSlug);
    await this.workflows.remove(workspace, slugOf(slug));
  }

  private workspace(request: ManagementRequest, slug: string): Promise<ScopedWorkspace> {
    return this.scope.resolve(accountOf(request), slug);
  }
}

function versionSummary(row: WorkflowVersionRow): Record<string, unknown> {
  return {
    version_no: row.version_no,
    status: row.status,
    commit_message: row.commit_message,
    hash: row.hash,
    active_at: row.active_at,
    updated_at: row.updated_at,
    validation_result: row.validation_result,
  };
}

function slugOf(slug: string): string {
  if (!SLUG.test(slug)) throw HeraldError.validation([{ path: 'slug', message: 'must match ^[a-z0-9-_]+$, 1 to 255 characters' }]);
  return slug;
}
