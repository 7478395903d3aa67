import { Channel, FieldError } from '@herald/contracts';

/** Interface section 3: approval_status of a template variant. */
export const APPROVAL_STATUSES = ['auto_approved', 'pending', 'sent_for_approval', 'approved', 'rejected'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** What an operator records per vendor through the vendor_approval endpoint. */
export const VENDOR_APPROVAL_STATUSES = ['pending', 'sent_for_approval', 'approved', 'rejected'] as const;
export type VendorApprovalStatus = (typeof VENDOR_APPROVAL_STATUSES)[number];

export const VENDOR_TEMPLATE_CATEGORIES = ['UTILITY', 'MARKETING', 'AUTHENTICATION'] as const;

/** SMS (DLT) and WhatsApp templates must be registered with the vendor before they are sent. */
export const APPROVAL_CHANNELS: readonly Channel[] = ['sms', 'whatsapp'];

/**
 * The state machine, per vendor entry. A vendor not yet recorded is `new`. Approval
 * is final for the content it was given for: changing content means a new commit,
 * which starts over at `pending`. Staying in `sent_for_approval` or `approved`
 * updates the recorded vendor details (template id, category, ...).
 */
export const VENDOR_APPROVAL_TRANSITIONS: Readonly<Record<VendorApprovalStatus | 'new', readonly VendorApprovalStatus[]>> = {
  new: ['pending', 'sent_for_approval'],
  pending: ['pending', 'sent_for_approval'],
  sent_for_approval: ['sent_for_approval', 'approved', 'rejected'],
  rejected: ['sent_for_approval'],
  approved: ['approved'],
};

export interface VendorApproval {
  readonly vendor_slug: string;
  readonly vendor_uid: string;
  readonly approval_status: VendorApprovalStatus;
  readonly vendor_template_name: string | null;
  readonly vendor_template_id: string | null;
  readonly vendor_locale_code: string | null;
  readonly vendor_template_category: string | null;
  readonly provider_template_id: string | null;
  readonly comment: string | null;
  readonly approval_at: string | null;
  readonly updated_at: string;
}

/** What an operator records of one vendor (the body of PATCH .../vendor_approval/); a detail left out or null keeps its value. */
export interface VendorApprovalUpdate {
  readonly approval_status: VendorApprovalStatus;
  readonly vendor_slug: string;
  readonly vendor_uid: string;
  readonly vendor_template_name?: string | null;
  readonly vendor_template_id?: string | null;
  readonly vendor_locale_code?: string | null;
  readonly vendor_template_category?: string | null;
  readonly provider_template_id?: string | null;
  readonly comment?: string;
}

/** The approval fields of a variant as a whole. */
export interface VariantApproval {
  readonly approval_status: ApprovalStatus;
  readonly approval_at: string | null;
  readonly discard_comment: string | null;
}

export type ApprovalResult = { readonly ok: true; readonly entries: VendorApproval[] } | { readonly ok: false; readonly errors: FieldError[] };

/** Records one vendor's status on a variant's entries, refusing transitions the machine does not allow. */
export function applyVendorApproval(entries: readonly VendorApproval[], update: VendorApprovalUpdate, now: Date): ApprovalResult {
  const index = entries.findIndex((e) => e.vendor_slug === update.vendor_slug && e.vendor_uid === update.vendor_uid);
  const current = index >= 0 ? entries[index] : undefined;
  const from = current?.approval_status ?? 'new';
  if (!VENDOR_APPROVAL_TRANSITIONS[from].includes(update.approval_status)) {
    const allowed = VENDOR_APPROVAL_TRANSITIONS[from];
    return {
      ok: false,
      errors: [
        {
          path: 'approval_status',
          message:
            `cannot go from ${from === 'new' ? 'no entry' : from} to ${update.approval_status} ` +
            `for vendor ${update.vendor_slug} (${update.vendor_uid}); allowed: ${allowed.join(', ')}`,
        },
      ],
    };
  }
  const at = now.toISOString();
  const next: VendorApproval = {
    vendor_slug: update.vendor_slug,
    vendor_uid: update.vendor_uid,
    approval_status: update.approval_status,
    vendor_template_name: update.vendor_template_name ?? current?.vendor_template_name ?? null,
    vendor_template_id: update.vendor_template_id ?? current?.vendor_template_id ?? null,
    vendor_locale_code: update.vendor_locale_code ?? current?.vendor_locale_code ?? null,
    vendor_template_category: update.vendor_template_category ?? current?.vendor_template_category ?? null,
    provider_template_id: update.provider_template_id ?? current?.provider_template_id ?? null,
    comment: update.comment ?? (update.approval_status === from ? (current?.comment ?? null) : null),
    approval_at: update.approval_status === 'approved' ? (current?.approval_at ?? at) : null,
    updated_at: at,
  };
  const missing = (['vendor_template_name', 'vendor_template_id'] as const).filter((f) => next.approval_status === 'approved' && !next[f]);
  if (missing.length > 0) {
    return { ok: false, errors: missing.map((path) => ({ path, message: 'is required when approval_status is approved' })) };
  }
  return { ok: true, entries: index >= 0 ? entries.map((e, i) => (i === index ? next : e)) : [...entries, next] };
}

/**
 * The variant's status from its vendor entries: sendable as soon as one vendor
 * approved it, otherwise the furthest any vendor got (a rejection outranks a vendor
 * that was never asked); `pending` while no vendor has been recorded.
 */
export function variantApprovalOf(entries: readonly VendorApproval[]): VariantApproval {
  const withStatus = (status: VendorApprovalStatus) => entries.filter((e) => e.approval_status === status);
  const approved = withStatus('approved');
  if (approved.length > 0) {
    const first = approved.map((e) => e.approval_at ?? e.updated_at).sort()[0];
    return { approval_status: 'approved', approval_at: first, discard_comment: null };
  }
  if (withStatus('sent_for_approval').length > 0) return { approval_status: 'sent_for_approval', approval_at: null, discard_comment: null };
  const rejected = withStatus('rejected').sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  if (rejected.length > 0) return { approval_status: 'rejected', approval_at: null, discard_comment: rejected[0].comment };
  return { approval_status: 'pending', approval_at: null, discard_comment: null };
}

/** Only approval-pending variants can be discarded; an approved one is replaced by committing new content. */
export const DISCARDABLE_STATUSES: readonly ApprovalStatus[] = ['pending', 'sent_for_approval', 'rejected'];

/**
 * The name under which an approval-needing variant is registered with vendors:
 * stable for a variant's identity and locale, and within WhatsApp's template-name
 * alphabet (lower-case letters, digits, underscores; at most 512 characters).
 */
export function sysgenTemplateName(templateSlug: string, channel: Channel, variantId: string, locale: string): string {
  return [templateSlug, channel, variantId, locale]
    .join('_')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 512);
}
