import { FieldError } from '@herald/contracts';
import { sha256Of } from '../hashing/canonical-hash';
import { TemplateMeta, VariantAction, VariantRow } from './template-rows';
import { VariantApproval, VendorApproval } from './vendor-approval';

/** The fields of a variant that decide how it is picked and what it says. */
type VariantDefinition = Pick<VariantRow, 'channel' | 'id' | 'tenant_id' | 'locale' | 'conditions' | 'seq_no' | 'needs_vendor_approval' | 'hash'>;

type ApprovalFields = VariantApproval & { readonly vendor_approvals: VendorApproval[] };

/** The template hash: its metadata and every variant's definition, independent of order (`strict` only when set, so hashes from before the setting hold). */
export function templateHash(meta: TemplateMeta, variants: readonly VariantDefinition[]): string {
  const definitions = [...variants].sort((a, b) => variantKey(a).localeCompare(variantKey(b))).map(definitionOf);
  return sha256Of({
    meta: { name: meta.name, description: meta.description, tags: meta.tags, enabled_channels: meta.enabled_channels, ...(meta.strict ? { strict: true } : {}) },
    variants: definitions,
  });
}

export function variantKey(variant: Pick<VariantRow, 'channel' | 'id'>): string {
  return `${variant.channel}:${variant.id}`;
}

/**
 * Why the draft cannot go live, if it cannot: content errors of any variant (by
 * `variants[<channel>:<id>].content.<path>`) and enabled channels without a variant,
 * for which a dispatcher would have nothing to render.
 */
export function commitErrors(meta: TemplateMeta, drafts: readonly VariantRow[]): FieldError[] {
  const errors: FieldError[] = drafts.flatMap((variant) =>
    variant.errors.map((error) => ({
      path: `variants[${variantKey(variant)}].content${error.path ? `.${error.path}` : ''}`,
      message: error.message,
    })),
  );
  meta.enabled_channels.forEach((channel, index) => {
    if (!drafts.some((variant) => variant.channel === channel)) {
      errors.push({ path: `enabled_channels[${index}]`, message: `channel ${channel} has no variant` });
    }
  });
  return errors;
}

/**
 * What a commit writes: every draft variant becomes live with its `action`, and the
 * draft rows learn the same action and approval. An approval-needing variant keeps
 * its approval while its content and locale stay the same and starts `pending`
 * otherwise; other channels are `auto_approved`.
 */
export function planCommit(
  drafts: readonly VariantRow[],
  lives: readonly VariantRow[],
  now: Date,
): { readonly live: VariantRow[]; readonly draft: VariantRow[] } {
  const liveByKey = new Map(lives.map((variant) => [variantKey(variant), variant]));
  const live: VariantRow[] = [];
  const draft: VariantRow[] = [];
  for (const variant of drafts) {
    const previous = liveByKey.get(variantKey(variant));
    const action: VariantAction = !previous ? 'Added' : sameDefinition(variant, previous) ? 'Unchanged' : 'Updated';
    const approval = previous && approvalCarriesOver(variant, previous) ? approvalFieldsOf(previous) : freshApproval(variant.needs_vendor_approval, now);
    live.push({ ...variant, mode: 'live', action, ...approval, updated_at: now });
    draft.push({ ...variant, action, ...approval });
  }
  return { live, draft };
}

/** Vendor approval is given for a text in a language; it survives changes of anything else. */
export function approvalCarriesOver(candidate: Pick<VariantRow, 'hash' | 'locale' | 'needs_vendor_approval'>, live: VariantRow): boolean {
  return live.hash === candidate.hash && live.locale === candidate.locale && live.needs_vendor_approval === candidate.needs_vendor_approval;
}

export function approvalFieldsOf(variant: VariantRow): ApprovalFields {
  return {
    approval_status: variant.approval_status,
    approval_at: toIso(variant.approval_at),
    discard_comment: variant.discard_comment,
    vendor_approvals: variant.vendor_approvals,
  };
}

/** Approval of content no vendor has seen: pending where vendors must approve, granted elsewhere. */
export function freshApproval(needsVendorApproval: boolean, now: Date | null): ApprovalFields {
  return needsVendorApproval
    ? { approval_status: 'pending', approval_at: null, discard_comment: null, vendor_approvals: [] }
    : { approval_status: 'auto_approved', approval_at: now ? now.toISOString() : null, discard_comment: null, vendor_approvals: [] };
}

function sameDefinition(a: VariantDefinition, b: VariantDefinition): boolean {
  return sha256Of(definitionOf(a)) === sha256Of(definitionOf(b));
}

function definitionOf(variant: VariantDefinition): VariantDefinition {
  return {
    channel: variant.channel,
    id: variant.id,
    tenant_id: variant.tenant_id,
    locale: variant.locale,
    conditions: variant.conditions,
    seq_no: variant.seq_no,
    needs_vendor_approval: variant.needs_vendor_approval,
    hash: variant.hash,
  };
}

function toIso(value: Date | string | null): string | null {
  return value instanceof Date ? value.toISOString() : value;
}
