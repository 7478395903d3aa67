import {
  VENDOR_APPROVAL_STATUSES,
  VENDOR_APPROVAL_TRANSITIONS,
  VendorApproval,
  VendorApprovalStatus,
  applyVendorApproval,
  sysgenTemplateName,
  variantApprovalOf,
} from './vendor-approval';

const NOW = new Date('2026-04-07T10:00:00.000Z');
const vendor = { vendor_slug: 'twilio-whatsapp', vendor_uid: 'waba-1' };
const details = { vendor_template_name: 'tpl', vendor_template_id: '1', comment: 'why' };

function entry(approval_status: VendorApprovalStatus, extra: Partial<VendorApproval> = {}): VendorApproval {
  return {
    ...vendor,
    approval_status,
    vendor_template_name: 'tpl',
    vendor_template_id: '1',
    vendor_locale_code: null,
    vendor_template_category: null,
    provider_template_id: null,
    comment: null,
    approval_at: approval_status === 'approved' ? '2026-04-01T00:00:00.000Z' : null,
    updated_at: '2026-04-01T00:00:00.000Z',
    ...extra,
  };
}

describe('vendor approval state machine', () => {
  const froms = ['new', ...VENDOR_APPROVAL_STATUSES] as const;
  const cases = froms.flatMap((from) => VENDOR_APPROVAL_STATUSES.map((to) => [from, to, VENDOR_APPROVAL_TRANSITIONS[from].includes(to)] as const));

  it.each(cases)('%s → %s allowed: %s', (from, to, allowed) => {
    const entries = from === 'new' ? [] : [entry(from)];
    const result = applyVendorApproval(entries, { ...vendor, ...details, approval_status: to }, NOW);
    expect(result.ok).toBe(allowed);
    if (!result.ok) expect(result.errors).toEqual([{ path: 'approval_status', message: expect.stringContaining(`to ${to} for vendor`) }]);
  });

  it('keeps the first approval time when an approved entry is corrected', () => {
    const result = applyVendorApproval([entry('approved')], { ...vendor, approval_status: 'approved', vendor_template_id: '2' }, NOW);
    expect(result).toEqual({ ok: true, entries: [expect.objectContaining({ vendor_template_id: '2', approval_at: '2026-04-01T00:00:00.000Z' })] });
  });

  it('requires the vendor template name and id to approve', () => {
    const result = applyVendorApproval([entry('sent_for_approval', { vendor_template_name: null, vendor_template_id: null })], { ...vendor, approval_status: 'approved' }, NOW);
    expect(result).toEqual({
      ok: false,
      errors: [
        { path: 'vendor_template_name', message: 'is required when approval_status is approved' },
        { path: 'vendor_template_id', message: 'is required when approval_status is approved' },
      ],
    });
  });

  it('derives the variant status: approved > sent_for_approval > rejected > pending', () => {
    expect(variantApprovalOf([])).toEqual({ approval_status: 'pending', approval_at: null, discard_comment: null });
    expect(variantApprovalOf([entry('rejected', { comment: 'no' })])).toEqual({ approval_status: 'rejected', approval_at: null, discard_comment: 'no' });
    expect(variantApprovalOf([entry('rejected'), entry('sent_for_approval')]).approval_status).toBe('sent_for_approval');
    expect(variantApprovalOf([entry('rejected'), entry('approved')])).toEqual({
      approval_status: 'approved',
      approval_at: '2026-04-01T00:00:00.000Z',
      discard_comment: null,
    });
  });

  it('derives a stable vendor template name in the WhatsApp alphabet', () => {
    expect(sysgenTemplateName('order-confirmed', 'whatsapp', 'Default', 'pt-BR')).toBe('order_confirmed_whatsapp_default_pt_br');
  });
});
