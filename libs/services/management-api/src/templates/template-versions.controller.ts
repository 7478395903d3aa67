import { Controller, Get, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { CLOCK, Clock } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { RequiredRole } from '../auth/roles';
import { versionNumberOf } from '../http/query-params';
import { sha256Of } from '../hashing/canonical-hash';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { approvalCarriesOver, approvalFieldsOf, freshApproval } from './template-commit';
import { TemplateMeta, TemplateRow, VariantRow } from './template-rows';
import { TemplateRepository } from './template.repository';
import { TemplateVersion, TemplateVersionRepository, TemplateVersionSummary, VersionedVariant } from './template-version.repository';
import { TemplateView, templateView } from './template-views';
import { mjmlErrors, validateContent } from './variant-content';

/** A version in a template's history (Herald). */
export interface TemplateVersionView {
  readonly version_no: number;
  readonly commit_message: string | null;
  readonly committed_at: string;
  readonly hash: string;
  readonly is_live: boolean;
  readonly name: string;
  readonly enabled_channels: readonly string[];
  readonly variants_count: number;
}

/** A version with what it held: what a diff between versions compares, and what a restore brings back. */
export interface TemplateVersionDetailView extends TemplateVersionView {
  readonly description: string | null;
  readonly tags: readonly string[];
  readonly strict: boolean;
  readonly variants: readonly VersionedVariant[];
}

/**
 * A template's history at `/v2/{workspace}/template/{slug}/versions/` (Herald): every
 * committed version, each readable whole, and a restore that makes a version the draft
 * again, to be reviewed and committed as the next version (approvals apply as to any edit).
 */
@Controller('v2/:workspace/template/:template_slug/versions')
@UseGuards(ServiceTokenGuard)
export class TemplateVersionsController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly templates: TemplateRepository,
    private readonly versions: TemplateVersionRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Newest first. */
  @RequiredRole('viewer')
  @Get()
  async history(@Req() request: ManagementRequest, @Param('workspace') workspaceSlug: string, @Param('template_slug') slug: string): Promise<{ results: TemplateVersionView[] }> {
    const template = await this.template(request, workspaceSlug, slug);
    return { results: (await this.versions.history(template.id)).map((version) => versionView(version, template)) };
  }

  @RequiredRole('viewer')
  @Get(':version')
  async version(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Param('version') rawVersion: string,
  ): Promise<TemplateVersionDetailView> {
    const versionNo = versionNumberOf(rawVersion);
    const template = await this.template(request, workspaceSlug, slug);
    return versionDetailView(await this.requireVersion(template, versionNo), template);
  }

  /**
   * The version's metadata and variants replace the draft (each variant checked as an
   * edit would be, so a content rule added since shows as `errors`); commit to make it live.
   */
  @RequiredRole('editor')
  @Post(':version/restore')
  @HttpCode(200)
  async restore(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Param('version') rawVersion: string,
  ): Promise<TemplateView> {
    const versionNo = versionNumberOf(rawVersion);
    const found = await this.template(request, workspaceSlug, slug);
    const version = await this.requireVersion(found, versionNo);
    // Checked before the transaction (MJML compiles take ms): no row lock waits on them.
    const errors = await Promise.all(version.variants.map(async (variant) => [...validateContent(variant.channel, variant.content), ...(await mjmlErrors(variant.channel, variant.content))]));
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    return this.templates.transaction(async (tx) => {
      const template = await this.templates.requireTemplate(tx, workspace, slug, true);
      const lives = await this.templates.variants(tx, template.id, 'live');
      const drafts = await this.templates.variants(tx, template.id, 'draft');
      const now = this.clock.now();
      for (const draft of drafts) await this.templates.deleteVariant(tx, template.id, 'draft', draft.channel, draft.id);
      for (const [index, variant] of version.variants.entries()) {
        const hash = sha256Of(variant.content);
        const live = lives.find((row) => row.channel === variant.channel && row.id === variant.id);
        const candidate = { hash, locale: variant.locale, needs_vendor_approval: variant.needs_vendor_approval };
        const row: VariantRow = {
          template_id: template.id,
          mode: 'draft',
          ...variant,
          hash,
          errors: errors[index],
          has_error: errors[index].length > 0,
          ...(live && approvalCarriesOver(candidate, live) ? approvalFieldsOf(live) : freshApproval(variant.needs_vendor_approval, null)),
          action: null,
          created_at: now,
          updated_at: now,
        };
        await this.templates.writeVariant(tx, row);
      }
      const meta: TemplateMeta = { ...version.meta, strict: version.meta.strict ?? false };
      const draft = await this.templates.refreshDraft(tx, await this.templates.updateDraftMeta(tx, template.id, meta));
      const counts = await this.templates.channelCounts(tx, [draft.id], 'draft');
      return templateView(draft, 'draft', counts.get(draft.id) ?? new Map());
    });
  }

  private async template(request: ManagementRequest, workspaceSlug: string, slug: string): Promise<TemplateRow> {
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    return this.templates.requireTemplate(this.templates.connection, workspace, slug);
  }

  private async requireVersion(template: TemplateRow, versionNo: number): Promise<TemplateVersion> {
    const version = await this.versions.find(template.id, versionNo);
    if (!version) throw HeraldError.notFound(`template '${template.slug}' has no version ${versionNo}`);
    return version;
  }
}

function versionView(version: TemplateVersionSummary | TemplateVersion, template: TemplateRow): TemplateVersionView {
  return {
    version_no: version.versionNo,
    commit_message: version.commitMessage,
    committed_at: new Date(version.committedAt).toISOString(),
    hash: version.hash,
    is_live: version.versionNo === template.version_no,
    name: version.meta.name,
    enabled_channels: version.meta.enabled_channels,
    variants_count: 'variantsCount' in version ? version.variantsCount : version.variants.length,
  };
}

function versionDetailView(version: TemplateVersion, template: TemplateRow): TemplateVersionDetailView {
  return {
    ...versionView(version, template),
    description: version.meta.description,
    tags: version.meta.tags,
    strict: version.meta.strict ?? false,
    variants: version.variants,
  };
}
