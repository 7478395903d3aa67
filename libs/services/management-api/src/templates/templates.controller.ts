import { Controller, Get, HttpCode, Inject, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { CLOCK, Clock, ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { commitErrors, planCommit } from './template-commit';
import { TEMPLATE_BODIES, TEMPLATE_SLUG, TemplateBody, TemplateCommitBody } from './request-bodies';
import { modeOf } from './template-params';
import { Mode, TemplateMeta, TemplateRow, VariantRow } from './template-rows';
import { Queryable, TemplateRepository, TemplateTransaction } from './template.repository';
import { TemplateVersionRepository } from './template-version.repository';
import { TemplateView, templateView } from './template-views';
import { RequiredRole } from '../auth/roles';

/**
 * Templates at `/v2/{workspace}/template/` (reference "Template Management API v2").
 * Edits change the draft; a commit makes the draft live and announces it.
 */
@Controller('v2/:workspace/template')
@UseGuards(ServiceTokenGuard)
export class TemplatesController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly templates: TemplateRepository,
    private readonly versions: TemplateVersionRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Newest first; `mode=live` lists only templates with a live version, as that version. */
  @RequiredRole('viewer')
  @Get()
  async list(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Query('mode') rawMode?: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
    @Query('q') q?: string,
  ): Promise<OffsetList<TemplateView>> {
    const page = offsetPage(limit, offset);
    const mode = modeOf(rawMode);
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    const { count, rows } = await this.templates.list(workspace, mode, q, page);
    const counts = await this.templates.channelCounts(this.templates.connection, rows.map((row) => row.id), mode);
    return { meta: { count, ...page }, results: rows.map((row) => templateView(row, mode, counts.get(row.id) ?? new Map())) };
  }

  @RequiredRole('viewer')
  @Get(':template_slug')
  async detail(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Query('mode') rawMode?: string,
  ): Promise<TemplateView> {
    const mode = modeOf(rawMode);
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    const row = await this.templates.requireTemplate(this.templates.connection, workspace, slug);
    if (mode === 'live' && !row.live) throw HeraldError.notFound(`template (slug: '${slug}') has no live version; commit it first`);
    return this.view(this.templates.connection, row, mode);
  }

  /** Creates the template, or updates its draft metadata: the reference answers 200 either way. */
  @RequiredRole('editor')
  @Post(':template_slug')
  @HttpCode(200)
  async upsert(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @ValidBody(TEMPLATE_BODIES.template) body: TemplateBody,
  ): Promise<TemplateView> {
    if (!TEMPLATE_SLUG.test(slug)) throw HeraldError.validation([{ path: 'template_slug', message: `must match ${TEMPLATE_SLUG.source}` }]);
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    return this.templates.transaction(async (tx) => {
      const current = await this.templates.createAndLock(tx, workspace, slug, body.name);
      const meta: TemplateMeta = {
        name: body.name,
        description: body.description !== undefined ? body.description : current.description,
        tags: body.tags ?? current.tags,
        enabled_channels: body.enabled_channels ?? current.enabled_channels,
        strict: body.strict ?? current.strict ?? false,
      };
      const updated = await this.templates.updateDraftMeta(tx, current.id, meta);
      return this.view(tx, await this.templates.refreshDraft(tx, updated), 'draft');
    });
  }

  /**
   * Makes the draft live as the next version and announces it. Refused (400, every
   * problem by path) while a variant has content errors or an enabled channel has no
   * variant. A draft identical to the live version commits nothing and announces
   * nothing, so automation can commit unconditionally.
   */
  @RequiredRole('editor')
  @Patch(':template_slug/commit')
  async commit(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @ValidBody(TEMPLATE_BODIES.commit) body: TemplateCommitBody,
    @Query('commit_message') queryMessage?: string,
  ): Promise<TemplateView> {
    const commitMessage = queryMessage ?? body.commit_message ?? null;
    if (commitMessage !== null && commitMessage.length > 1000) {
      throw HeraldError.validation([{ path: 'commit_message', message: 'must be at most 1000 characters' }]);
    }
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    return this.templates.transaction(async (tx) => {
      const template = await this.templates.requireTemplate(tx, workspace, slug, true);
      if (template.live && template.live_hash === template.hash) return this.view(tx, template, 'live');
      const drafts = await this.templates.variants(tx, template.id, 'draft');
      const errors = commitErrors(template, drafts);
      if (errors.length > 0) throw new HeraldError('validation_error', 'one or more variants about to be committed have issues', errors);
      return this.view(tx, await this.publish(tx, workspace, template, drafts, commitMessage), 'live');
    });
  }

  private async publish(
    tx: TemplateTransaction,
    workspace: ScopedWorkspace,
    template: TemplateRow,
    drafts: readonly VariantRow[],
    commitMessage: string | null,
  ): Promise<TemplateRow> {
    const now = this.clock.now();
    const lives = await this.templates.variants(tx, template.id, 'live');
    const plan = planCommit(drafts, lives, now);
    const live: TemplateMeta = {
      name: template.name,
      description: template.description,
      tags: template.tags,
      enabled_channels: template.enabled_channels,
      strict: template.strict ?? false,
    };
    const committed = await this.templates.writeCommit(tx, template, [...plan.live, ...plan.draft], live, commitMessage, now);
    const announced = await this.templates.announce(tx, workspace, committed, 'committed');
    // After announce, which sets the live hash the version records.
    await this.versions.recordLive(tx, announced.id);
    return announced;
  }

  private async view(db: Queryable, row: TemplateRow, mode: Mode): Promise<TemplateView> {
    const counts = await this.templates.channelCounts(db, [row.id], mode);
    return templateView(row, mode, counts.get(row.id) ?? new Map());
  }
}
