import { Channel } from '@herald/contracts';
import { Mode, TemplateMeta, TemplateRow, VariantAction, VariantRow } from './template-rows';
import { ApprovalStatus, VendorApproval, sysgenTemplateName } from './vendor-approval';

/** The schema URLs the reference puts in `$schema`; SDKs pass them through untouched. */
export const TEMPLATE_SCHEMA = 'https://schema.suprsend.com/template/v2/schema.json';
export const VARIANT_SCHEMA = 'https://schema.suprsend.com/template/v2/variant_schema.json';

export interface ChannelSummary {
  readonly channel: Channel;
  readonly is_active: boolean;
  readonly variants_count: number;
}

export interface TemplateView extends TemplateMeta {
  readonly $schema: string;
  readonly slug: string;
  readonly created_at: Date;
  /** Management does not see sends; always null here. */
  readonly last_triggered_at: null;
  readonly status: 'draft' | 'active';
  readonly version_no: number | null;
  readonly hash: string | null;
  readonly commit_message: string | null;
  readonly active_at: Date | null;
  readonly updated_at: Date;
  /** Service tokens belong to no user. */
  readonly updated_by: null;
  readonly channels: ChannelSummary[];
}

export interface VariantSummaryView {
  readonly $schema: string;
  readonly channel: Channel;
  readonly id: string;
  readonly tenant_id: string | null;
  readonly locale: string;
  readonly conditions: unknown[];
  readonly hash: string;
  readonly needs_vendor_approval: boolean;
  readonly sysgen_template_name: string | null;
  readonly approval_status: ApprovalStatus;
  readonly discard_comment: string | null;
  readonly approval_at: Date | string | null;
  readonly has_error: boolean;
  readonly seq_no: number;
  readonly action: VariantAction | null;
  readonly created_at: Date | string;
}

export interface VariantDetailView extends VariantSummaryView {
  readonly content: Record<string, unknown>;
  /** Content problems by path relative to the content, as the reference's `errors` object. */
  readonly errors: Record<string, string[]>;
  readonly vendor_approvals: VendorApproval[];
}

/** A template as `mode` sees it; `counts` are that mode's variants per channel. */
export function templateView(row: TemplateRow, mode: Mode, counts: ReadonlyMap<Channel, number>): TemplateView {
  const meta = mode === 'live' && row.live ? row.live : row;
  const liveChannels = new Set(row.live?.enabled_channels ?? []);
  return {
    $schema: TEMPLATE_SCHEMA,
    slug: row.slug,
    created_at: row.created_at,
    last_triggered_at: null,
    name: meta.name,
    description: meta.description,
    tags: meta.tags,
    enabled_channels: meta.enabled_channels,
    strict: meta.strict ?? false,
    status: row.version_no === null ? 'draft' : 'active',
    version_no: row.version_no,
    hash: mode === 'live' ? row.live_hash : row.hash,
    commit_message: row.commit_message,
    active_at: row.active_at,
    updated_at: row.updated_at,
    updated_by: null,
    channels: meta.enabled_channels.map((channel) => ({
      channel,
      is_active: liveChannels.has(channel),
      variants_count: counts.get(channel) ?? 0,
    })),
  };
}

/** What lists show: everything but content and vendor approvals (interface 2.5). */
export function variantSummaryView(row: VariantRow, templateSlug: string): VariantSummaryView {
  return {
    $schema: VARIANT_SCHEMA,
    channel: row.channel,
    id: row.id,
    tenant_id: row.tenant_id,
    locale: row.locale,
    conditions: row.conditions,
    hash: row.hash,
    needs_vendor_approval: row.needs_vendor_approval,
    sysgen_template_name: row.needs_vendor_approval ? sysgenTemplateName(templateSlug, row.channel, row.id, row.locale) : null,
    approval_status: row.approval_status,
    discard_comment: row.discard_comment,
    approval_at: row.approval_at,
    has_error: row.has_error,
    seq_no: row.seq_no,
    action: row.action,
    created_at: row.created_at,
  };
}

export function variantDetailView(row: VariantRow, templateSlug: string): VariantDetailView {
  const errors: Record<string, string[]> = {};
  for (const error of row.errors) (errors[error.path] ??= []).push(error.message);
  return { ...variantSummaryView(row, templateSlug), content: row.content, errors, vendor_approvals: row.vendor_approvals };
}

/**
 * The document definition.changed carries: the live template and every live
 * variant with its content and vendor approvals, which is all a dispatcher needs
 * to pick a variant and render it without asking management. A variant with
 * `needs_vendor_approval` is sendable only once its approval_status is `approved`
 * (through a vendor whose entry in `vendor_approvals` is approved); a channel is
 * sendable only while it is in `enabled_channels`.
 */
export interface LiveTemplateDocument extends TemplateView {
  readonly variants: VariantDetailView[];
}

export function liveDocument(row: TemplateRow, liveVariants: readonly VariantRow[]): LiveTemplateDocument {
  return {
    ...templateView(row, 'live', countByChannel(liveVariants)),
    variants: liveVariants.map((variant) => variantDetailView(variant, row.slug)),
  };
}

export function countByChannel(variants: readonly Pick<VariantRow, 'channel'>[]): Map<Channel, number> {
  const counts = new Map<Channel, number>();
  for (const { channel } of variants) counts.set(channel, (counts.get(channel) ?? 0) + 1);
  return counts;
}
