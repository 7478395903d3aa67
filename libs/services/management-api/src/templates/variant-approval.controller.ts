import { Controller, Inject, Param, Patch, Query, Req, UseGuards } from '@nestjs/common';
import { Channel, HeraldError } from '@herald/contracts';
import { CLOCK, Clock, ValidBody } from '@herald/runtime';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { ScopedWorkspace, WorkspaceScope } from '../workspaces/workspace-scope';
import { approvalCarriesOver, approvalFieldsOf, freshApproval } from './template-commit';
import { channelOf, modeOf } from './template-params';
import { TemplateRow, VariantRow } from './template-rows';
import { Queryable, TemplateRepository, variantNotFound } from './template.repository';
import { VariantDetailView, variantDetailView } from './template-views';
import { DiscardVariantBody, TEMPLATE_BODIES, VendorApprovalBody } from './request-bodies';
import { DISCARDABLE_STATUSES, applyVendorApproval, variantApprovalOf } from './vendor-approval';
import { RequiredRole } from '../auth/roles';

interface LiveTarget {
  readonly template: TemplateRow;
  readonly live: VariantRow;
}

/**
 * The approval flow of SMS (DLT) and WhatsApp variants, on their live copy: a commit
 * leaves new content `pending`; an operator records what each vendor said through
 * `vendor_approval` (Herald talks to no vendor portal), or discards the submission.
 * Every change is announced, since dispatchers send only approved content.
 */
@Controller('v2/:workspace/template/:template_slug/channel/:channel/variant/:variant_id')
@UseGuards(ServiceTokenGuard)
export class VariantApprovalController {
  constructor(
    private readonly scope: WorkspaceScope,
    private readonly templates: TemplateRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Records one vendor's status (pending → sent_for_approval → approved | rejected,
   * rejected → sent_for_approval); the variant's approval_status follows from all of
   * its vendors. Another transition is a 400 naming the allowed ones.
   */
  @RequiredRole('editor')
  @Patch('vendor_approval')
  async vendorApproval(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Param('channel') rawChannel: string,
    @Param('variant_id') variantId: string,
    @ValidBody(TEMPLATE_BODIES.vendorApproval) body: VendorApprovalBody,
    @Query('mode') mode?: string,
  ): Promise<VariantDetailView> {
    const channel = channelOf(rawChannel);
    modeOf(mode, ['live'], 'live');
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    return this.templates.transaction(async (tx) => {
      const { template, live } = await this.liveTarget(tx, workspace, slug, channel, variantId);
      const now = this.clock.now();
      const result = applyVendorApproval(live.vendor_approvals, body, now);
      if (!result.ok) throw HeraldError.validation(result.errors);
      const updated: VariantRow = { ...live, vendor_approvals: result.entries, ...variantApprovalOf(result.entries), updated_at: now };
      await this.templates.writeVariant(tx, updated);
      const draft = await this.templates.variant(tx, template.id, 'draft', channel, variantId);
      if (draft && approvalCarriesOver(draft, live)) {
        await this.templates.writeVariant(tx, { ...draft, ...approvalFieldsOf(updated) });
      }
      await this.templates.announce(tx, workspace, template, 'upserted');
      return variantDetailView(updated, slug);
    });
  }

  /**
   * Withdraws a variant awaiting approval from the live version (the reference: "the
   * variant returns to draft state"); the draft keeps the comment and the next commit
   * submits it again. An approved variant cannot be discarded (409): commit new
   * content instead.
   */
  @RequiredRole('editor')
  @Patch('discard')
  async discard(
    @Req() request: ManagementRequest,
    @Param('workspace') workspaceSlug: string,
    @Param('template_slug') slug: string,
    @Param('channel') rawChannel: string,
    @Param('variant_id') variantId: string,
    @ValidBody(TEMPLATE_BODIES.discard) body: DiscardVariantBody,
    @Query('mode') mode?: string,
  ): Promise<VariantDetailView> {
    const channel = channelOf(rawChannel);
    modeOf(mode, ['live'], 'live');
    const workspace = await this.scope.resolve(accountOf(request), workspaceSlug);
    return this.templates.transaction(async (tx) => {
      const { template, live } = await this.liveTarget(tx, workspace, slug, channel, variantId);
      if (!DISCARDABLE_STATUSES.includes(live.approval_status)) {
        throw new HeraldError(
          'conflict',
          `variant '${variantId}' of channel '${channel}' is ${live.approval_status}; only variants awaiting approval ` +
            `(${DISCARDABLE_STATUSES.join(', ')}) can be discarded`,
        );
      }
      await this.templates.deleteVariant(tx, template.id, 'live', channel, variantId);
      const draft = await this.templates.variant(tx, template.id, 'draft', channel, variantId);
      const target = draft ?? live;
      const returned: VariantRow = {
        ...target,
        ...freshApproval(target.needs_vendor_approval, null),
        discard_comment: body.comment,
        updated_at: this.clock.now(),
      };
      if (draft) await this.templates.writeVariant(tx, returned);
      await this.templates.announce(tx, workspace, template, 'upserted');
      return variantDetailView(returned, slug);
    });
  }

  /** The live variant, locked with its template; 404 when not live, 409 when it needs no vendor approval. */
  private async liveTarget(tx: Queryable, workspace: ScopedWorkspace, slug: string, channel: Channel, variantId: string): Promise<LiveTarget> {
    const template = await this.templates.requireTemplate(tx, workspace, slug, true);
    const live = await this.templates.variant(tx, template.id, 'live', channel, variantId);
    if (!live) throw variantNotFound(slug, channel, variantId, 'live');
    if (!live.needs_vendor_approval) {
      throw new HeraldError('conflict', `variant '${variantId}' of channel '${channel}' needs no vendor approval (it is ${live.approval_status})`);
    }
    return { template, live };
  }
}
