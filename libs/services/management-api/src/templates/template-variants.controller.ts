import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { Channel, HeraldError } from '@herald/contracts';
import { CLOCK, Clock, ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { WorkspaceScope } from '../workspaces/workspace-scope';
import { sha256Of } from '../hashing/canonical-hash';
import { approvalCarriesOver, approvalFieldsOf, freshApproval } from './template-commit';
import { channelOf, modeOf } from './template-params';
import { VariantRow } from './template-rows';
import { TemplateRepository, variantNotFound } from './template.repository';
import { VariantDetailView, VariantSummaryView, variantDetailView, variantSummaryView } from './template-views';
import { TEMPLATE_BODIES, VARIANT_ID, VariantBody, VariantCondition } from './request-bodies';
import { mjmlErrors, validateContent } from './variant-content';
import { APPROVAL_CHANNELS } from './vendor-approval';
import { RequiredRole } from '../auth/roles';

/**
 * Variants of a template, per channel + tenant + locale. Lists leave out `content`
 * and `vendor_approvals` (interface 2.5); the detail and the upsert answer carry them.
 * `mode` (draft by default) selects the draft or the live copy.
 */
@Controller('v2/:workspace/template/:template_slug')
@UseGuards(ServiceTokenGuard)
export class TemplateVariantsController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly templates: TemplateRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @RequiredRole('viewer')
  @Get('variant')
  listAll(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Query('mode') mode?: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<VariantSummaryView>> {
    return this.list(request, workspaceSlug, slug, undefined, mode, limit, offset);
  }

  @RequiredRole('viewer')
  @Get('channel/:channel/variant')
  listChannel(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Param('channel') channel: string,
    @Query('mode') mode?: string,
    @Query('limit') limit?: string,
    @Query('offset') offset?: string,
  ): Promise<OffsetList<VariantSummaryView>> {
    return this.list(request, workspaceSlug, slug, channelOf(channel), mode, limit, offset);
  }

  @RequiredRole('viewer')
  @Get('channel/:channel/variant/:variant_id')
  async detail(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Param('channel') rawChannel: string,
    @Param('variant_id') variantId: string,
    @Query('mode') rawMode?: string,
  ): Promise<VariantDetailView> {
    const channel = channelOf(rawChannel);
    const mode = modeOf(rawMode);
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    const template = await this.templates.requireTemplate(this.templates.connection, workspace, slug);
    const row = await this.templates.variant(this.templates.connection, template.id, mode, channel, variantId);
    if (!row) throw variantNotFound(slug, channel, variantId, mode);
    return variantDetailView(row, slug);
  }

  /**
   * Creates or replaces the draft variant. Its content is checked against the
   * channel's shape and saved even when it fails (`has_error`, `errors`), as an
   * editor saves work in progress; the commit refuses it until it is fixed. Adding
   * a variant to a channel the template does not list enables that channel.
   */
  @RequiredRole('editor')
  @Post('channel/:channel/variant/:variant_id')
  @HttpCode(200)
  async upsert(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Param('channel') rawChannel: string,
    @Param('variant_id') variantId: string,
    @ValidBody(TEMPLATE_BODIES.variant) body: VariantBody,
  ): Promise<VariantDetailView> {
    const channel = channelOf(rawChannel);
    if (!VARIANT_ID.test(variantId)) throw HeraldError.validation([{ path: 'variant_id', message: `must match ${VARIANT_ID.source}` }]);
    const needsVendorApproval = vendorApprovalOf(channel, body.needs_vendor_approval ?? undefined);
    // Compiled before the transaction (a few ms of CPU, cached): no row lock waits on it.
    const errors = [...validateContent(channel, body.content), ...(await mjmlErrors(channel, body.content))];
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    return this.templates.transaction(async (tx) => {
      const template = await this.templates.requireTemplate(tx, workspace, slug, true);
      const tenantId = body.tenant_id ?? null;
      const siblings = await this.templates.variants(tx, template.id, 'draft', { channel });
      const existing = siblings.find((v) => v.id === variantId);
      const sameGroup = (v: VariantRow) => v.id !== variantId && v.tenant_id === tenantId && v.locale === body.locale;
      // null means left out, as for every optional field.
      const seqNo = seqNoFor(body.seq_no ?? undefined, existing, siblings.filter(sameGroup), { channel, tenantId, locale: body.locale });
      const hash = sha256Of(body.content);
      const live = await this.templates.variant(tx, template.id, 'live', channel, variantId);
      const candidate = { hash, locale: body.locale, needs_vendor_approval: needsVendorApproval };
      const approval = live && approvalCarriesOver(candidate, live) ? approvalFieldsOf(live) : freshApproval(needsVendorApproval, null);
      const now = this.clock.now();
      const row: VariantRow = {
        template_id: template.id,
        mode: 'draft',
        channel,
        id: variantId,
        tenant_id: tenantId,
        locale: body.locale,
        conditions: (body.conditions ?? []).map(conditionOf),
        content: body.content,
        hash,
        errors,
        has_error: errors.length > 0,
        seq_no: seqNo,
        needs_vendor_approval: needsVendorApproval,
        ...approval,
        // A discard's reason stays with the content it was given for.
        discard_comment: existing && existing.hash === hash ? existing.discard_comment : approval.discard_comment,
        action: existing?.action ?? null,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      await this.templates.writeVariant(tx, row);
      await this.templates.refreshDraft(tx, await this.templates.enableChannel(tx, template, channel));
      return variantDetailView(row, slug);
    });
  }

  /** Removes the draft variant; the live one stays until the next commit. */
  @RequiredRole('editor')
  @Delete('channel/:channel/variant/:variant_id')
  @HttpCode(204)
  async remove(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Param('channel') rawChannel: string,
    @Param('variant_id') variantId: string,
  ): Promise<void> {
    const channel = channelOf(rawChannel);
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    await this.templates.transaction(async (tx) => {
      const template = await this.templates.requireTemplate(tx, workspace, slug, true);
      const removed = await this.templates.deleteVariant(tx, template.id, 'draft', channel, variantId);
      if (!removed) throw variantNotFound(slug, channel, variantId, 'draft');
      await this.templates.refreshDraft(tx, template);
    });
  }

  private async list(
    request: ManagementRequest,
    workspaceSlug: string,
    slug: string,
    channel: Channel | undefined,
    rawMode: string | undefined,
    limit: string | undefined,
    offset: string | undefined,
  ): Promise<OffsetList<VariantSummaryView>> {
    const page = offsetPage(limit, offset);
    const mode = modeOf(rawMode);
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    const template = await this.templates.requireTemplate(this.templates.connection, workspace, slug);
    const count = await this.templates.countVariants(this.templates.connection, template.id, mode, channel);
    const rows = await this.templates.variants(this.templates.connection, template.id, mode, { channel, page });
    return { meta: { count, ...page }, results: rows.map((row) => variantSummaryView(row, slug)) };
  }
}

/** A condition as stored: its known fields only (unknown ones are ignored, as the API ignores them). */
function conditionOf(condition: VariantCondition): VariantCondition {
  const { op, args } = condition.expression_v1;
  return {
    type: condition.type,
    expression_v1: {
      op,
      args: args.map(({ variable_ns, variable, op: comparison, value }) => ({
        ...(variable_ns === undefined ? {} : { variable_ns }),
        variable,
        op: comparison,
        ...(value === undefined ? {} : { value }),
      })),
    },
  };
}

/**
 * WhatsApp templates always need the vendor's approval; SMS ones do by default (DLT)
 * and may opt out, as the reference allows for SMS only; other channels never do.
 */
function vendorApprovalOf(channel: Channel, requested: boolean | undefined): boolean {
  if (channel === 'sms') return requested ?? true;
  if (channel === 'whatsapp') {
    if (requested === false) throw HeraldError.validation([{ path: 'needs_vendor_approval', message: 'whatsapp variants always need vendor approval' }]);
    return true;
  }
  if (requested === true) {
    throw HeraldError.validation([
      { path: 'needs_vendor_approval', message: `only ${APPROVAL_CHANNELS.join(' and ')} variants can need vendor approval` },
    ]);
  }
  return false;
}

/** The given seq_no if free in the variant's group, else its current one if it stays in the group, else the next free one. */
function seqNoFor(
  requested: number | undefined,
  existing: VariantRow | undefined,
  group: readonly VariantRow[],
  where: { channel: Channel; tenantId: string | null; locale: string },
): number {
  if (requested !== undefined) {
    const holder = group.find((v) => v.seq_no === requested);
    if (holder) {
      throw new HeraldError(
        'conflict',
        `seq_no ${requested} is taken by variant '${holder.id}' of ${where.channel} (tenant ${where.tenantId ?? 'default'}, locale ${where.locale})`,
      );
    }
    return requested;
  }
  if (existing && existing.tenant_id === where.tenantId && existing.locale === where.locale) return existing.seq_no;
  return Math.max(0, ...group.map((v) => v.seq_no)) + 1;
}
