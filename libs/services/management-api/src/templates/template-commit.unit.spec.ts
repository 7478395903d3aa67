import { commitErrors, planCommit, templateHash } from './template-commit';
import { TemplateMeta, VariantRow } from './template-rows';

const NOW = new Date('2026-04-07T10:00:00.000Z');
const META: TemplateMeta = { name: 'T', description: null, tags: [], enabled_channels: ['email', 'sms'] };

function variant(channel: 'email' | 'sms', id: string, extra: Partial<VariantRow> = {}): VariantRow {
  const needs = channel === 'sms';
  return {
    template_id: 't',
    mode: 'draft',
    channel,
    id,
    tenant_id: null,
    locale: 'en',
    conditions: [],
    content: {},
    hash: `${channel}-${id}`,
    errors: [],
    has_error: false,
    seq_no: 1,
    needs_vendor_approval: needs,
    approval_status: needs ? 'pending' : 'auto_approved',
    approval_at: null,
    discard_comment: null,
    vendor_approvals: [],
    action: null,
    created_at: NOW,
    updated_at: NOW,
    ...extra,
  };
}

describe('template commit', () => {
  it('sets Added, Updated and Unchanged, keeping approval only for unchanged content and locale', () => {
    const approved = { approval_status: 'approved' as const, approval_at: '2026-04-01T00:00:00.000Z' };
    const lives = [
      variant('email', 'default', { mode: 'live', hash: 'old' }),
      variant('sms', 'default', { mode: 'live', ...approved }),
      variant('sms', 'hindi', { mode: 'live', ...approved, locale: 'hi' }),
    ];
    const drafts = [
      variant('email', 'default'),
      variant('sms', 'default', { seq_no: 2 }),
      variant('sms', 'hindi', { locale: 'en' }),
      variant('email', 'new'),
    ];
    const plan = planCommit(drafts, lives, NOW);
    expect(plan.live.map((v) => [v.id, v.channel, v.mode, v.action, v.approval_status])).toEqual([
      ['default', 'email', 'live', 'Updated', 'auto_approved'],
      ['default', 'sms', 'live', 'Updated', 'approved'],
      ['hindi', 'sms', 'live', 'Updated', 'pending'],
      ['new', 'email', 'live', 'Added', 'auto_approved'],
    ]);
    expect(plan.draft.map((v) => [v.mode, v.action])).toEqual([
      ['draft', 'Updated'],
      ['draft', 'Updated'],
      ['draft', 'Updated'],
      ['draft', 'Added'],
    ]);
    expect(planCommit(drafts, plan.live, NOW).live.map((v) => v.action)).toEqual(['Unchanged', 'Unchanged', 'Unchanged', 'Unchanged']);
  });

  it('names content errors by variant and enabled channels without variants', () => {
    const broken = variant('email', 'default', { errors: [{ path: 'subject', message: 'is required' }], has_error: true });
    expect(commitErrors(META, [broken])).toEqual([
      { path: 'variants[email:default].content.subject', message: 'is required' },
      { path: 'enabled_channels[1]', message: 'channel sms has no variant' },
    ]);
  });

  it('hashes a template independently of variant order', () => {
    const a = variant('email', 'a');
    const b = variant('sms', 'b');
    expect(templateHash(META, [a, b])).toBe(templateHash(META, [b, a]));
    expect(templateHash(META, [a, b])).not.toBe(templateHash({ ...META, name: 'U' }, [a, b]));
  });
});
