import { evaluatePreference } from './evaluate-preference';
import { CategoryDefinition, PreferenceReason, PreferenceSnapshot, SubjectPreferences, TenantCategoryDefault, TenantPreferences } from './preference-model';

const category = (overrides: Partial<CategoryDefinition> = {}): CategoryDefinition => ({
  category: 'updates',
  name: 'Updates',
  default_preference: 'opt_in',
  ...overrides,
});
const tenant = (categories: Record<string, Partial<TenantCategoryDefault>> = {}, blocked: string[] = []): TenantPreferences => ({
  tenant_id: 'acme',
  blocked_channels: blocked,
  categories: Object.fromEntries(
    Object.entries(categories).map(([slug, d]) => [
      slug,
      { preference: 'opt_in', visible_to_subscriber: true, mandatory_channels: null, opt_in_channels: null, digest_schedule: null, ...d },
    ]),
  ),
});
const subject = (categories: SubjectPreferences['categories'] = {}, restricted: string[] = []): SubjectPreferences => ({ categories, restricted_channels: restricted });
const snapshot = (parts: Partial<PreferenceSnapshot>): PreferenceSnapshot => ({ category: category(), tenant: null, subject: null, subject_in_tenant: null, ...parts });

interface Case {
  readonly name: string;
  readonly snapshot: PreferenceSnapshot;
  readonly channel: string;
  readonly send: boolean;
  readonly reason: PreferenceReason;
}

const cases: Case[] = [
  // Defaults of the category.
  { name: 'no category: every channel sends', snapshot: snapshot({ category: null, subject: subject({}, ['email']) }), channel: 'email', send: true, reason: 'no_category' },
  { name: 'opt_in category, no choices', snapshot: snapshot({}), channel: 'email', send: true, reason: 'channel_on_by_default' },
  { name: 'opt_out category, no choices', snapshot: snapshot({ category: category({ default_preference: 'opt_out' }) }), channel: 'email', send: false, reason: 'category_opted_out' },
  {
    name: 'default opt-in channels exclude the channel',
    snapshot: snapshot({ category: category({ default_opt_in_channels: ['sms'] }) }),
    channel: 'email',
    send: false,
    reason: 'channel_off_by_default',
  },
  {
    name: 'default opt-in channels include the channel',
    snapshot: snapshot({ category: category({ default_opt_in_channels: ['sms'] }) }),
    channel: 'sms',
    send: true,
    reason: 'channel_on_by_default',
  },
  // User over tenant default over category default.
  {
    name: 'user opt-out beats the category default opt-in',
    snapshot: snapshot({ subject: subject({ updates: { preference: 'opt_out' } }) }),
    channel: 'email',
    send: false,
    reason: 'category_opted_out',
  },
  {
    name: 'user opt-in beats the category default opt-out',
    snapshot: snapshot({ category: category({ default_preference: 'opt_out' }), subject: subject({ updates: { preference: 'opt_in' } }) }),
    channel: 'email',
    send: true,
    reason: 'channel_on_by_default',
  },
  {
    name: 'tenant default opt-out beats the category default opt-in',
    snapshot: snapshot({ tenant: tenant({ updates: { preference: 'opt_out' } }) }),
    channel: 'email',
    send: false,
    reason: 'category_opted_out',
  },
  {
    name: 'tenant default opt-in beats the category default opt-out',
    snapshot: snapshot({ category: category({ default_preference: 'opt_out' }), tenant: tenant({ updates: { preference: 'opt_in' } }) }),
    channel: 'email',
    send: true,
    reason: 'channel_on_by_default',
  },
  {
    name: 'user opt-in beats the tenant default opt-out',
    snapshot: snapshot({ tenant: tenant({ updates: { preference: 'opt_out' } }), subject: subject({ updates: { preference: 'opt_in' } }) }),
    channel: 'email',
    send: true,
    reason: 'channel_on_by_default',
  },
  {
    name: 'tenant default opt-in channels replace the category ones',
    snapshot: snapshot({ category: category({ default_opt_in_channels: ['email'] }), tenant: tenant({ updates: { opt_in_channels: ['sms'] } }) }),
    channel: 'email',
    send: false,
    reason: 'channel_off_by_default',
  },
  {
    name: 'user opts a channel in that is off by default',
    snapshot: snapshot({ category: category({ default_opt_in_channels: ['sms'] }), subject: subject({ updates: { opt_in_channels: ['email'] } }) }),
    channel: 'email',
    send: true,
    reason: 'channel_opted_in',
  },
  {
    name: 'user opts a channel out within an opted-in category',
    snapshot: snapshot({ subject: subject({ updates: { opt_out_channels: ['email'] } }) }),
    channel: 'email',
    send: false,
    reason: 'channel_opted_out',
  },
  {
    name: 'a channel opt-out elsewhere leaves other channels alone',
    snapshot: snapshot({ subject: subject({ updates: { opt_out_channels: ['email'] } }) }),
    channel: 'sms',
    send: true,
    reason: 'channel_on_by_default',
  },
  {
    name: 'a choice for another category does not apply',
    snapshot: snapshot({ subject: subject({ other: { preference: 'opt_out' } }) }),
    channel: 'email',
    send: true,
    reason: 'channel_on_by_default',
  },
  // Tenant-level opt-out wins.
  {
    name: 'tenant-blocked channel does not send even when the user opted it in',
    snapshot: snapshot({ tenant: tenant({}, ['email']), subject: subject({ updates: { preference: 'opt_in', opt_in_channels: ['email'] } }) }),
    channel: 'email',
    send: false,
    reason: 'tenant_blocked_channel',
  },
  {
    name: 'tenant-blocked channel does not send even in a category that cannot be unsubscribed',
    snapshot: snapshot({ category: category({ default_preference: 'cant_unsubscribe' }), tenant: tenant({}, ['sms']) }),
    channel: 'sms',
    send: false,
    reason: 'tenant_blocked_channel',
  },
  {
    name: 'a tenant block of one channel leaves the others',
    snapshot: snapshot({ tenant: tenant({}, ['sms']) }),
    channel: 'email',
    send: true,
    reason: 'channel_on_by_default',
  },
  // Restricted channels.
  {
    name: 'a restricted channel does not carry an opt-in category',
    snapshot: snapshot({ subject: subject({ updates: { preference: 'opt_in', opt_in_channels: ['email'] } }, ['email']) }),
    channel: 'email',
    send: false,
    reason: 'channel_restricted',
  },
  {
    name: 'a restricted channel carries the mandatory channel of a category that cannot be unsubscribed',
    snapshot: snapshot({ category: category({ default_preference: 'cant_unsubscribe', default_mandatory_channels: ['email'] }), subject: subject({}, ['email']) }),
    channel: 'email',
    send: true,
    reason: 'mandatory_channel',
  },
  {
    name: 'a restricted channel does not carry a non-mandatory channel of a category that cannot be unsubscribed',
    snapshot: snapshot({ category: category({ default_preference: 'cant_unsubscribe', default_mandatory_channels: ['email'] }), subject: subject({}, ['sms']) }),
    channel: 'sms',
    send: false,
    reason: 'channel_restricted',
  },
  {
    name: 'a restriction in the tenant scope applies',
    snapshot: snapshot({ tenant: tenant(), subject_in_tenant: subject({}, ['email']) }),
    channel: 'email',
    send: false,
    reason: 'channel_restricted',
  },
  // Categories that cannot be unsubscribed.
  {
    name: 'cant_unsubscribe without mandatory channels sends on every channel despite a user opt-out',
    snapshot: snapshot({ category: category({ default_preference: 'cant_unsubscribe' }), subject: subject({ updates: { preference: 'opt_out', opt_out_channels: ['email'] } }) }),
    channel: 'email',
    send: true,
    reason: 'mandatory_channel',
  },
  {
    name: 'cant_unsubscribe: a non-mandatory channel can be opted out',
    snapshot: snapshot({
      category: category({ default_preference: 'cant_unsubscribe', default_mandatory_channels: ['email'] }),
      subject: subject({ updates: { opt_out_channels: ['sms'] } }),
    }),
    channel: 'sms',
    send: false,
    reason: 'channel_opted_out',
  },
  {
    name: 'cant_unsubscribe: the category itself ignores a user opt-out',
    snapshot: snapshot({
      category: category({ default_preference: 'cant_unsubscribe', default_mandatory_channels: ['email'] }),
      subject: subject({ updates: { preference: 'opt_out' } }),
    }),
    channel: 'sms',
    send: true,
    reason: 'channel_on_by_default',
  },
  {
    name: 'a tenant can make a category impossible to unsubscribe',
    snapshot: snapshot({ tenant: tenant({ updates: { preference: 'cant_unsubscribe', mandatory_channels: ['inbox'] } }), subject: subject({ updates: { preference: 'opt_out' } }) }),
    channel: 'inbox',
    send: true,
    reason: 'mandatory_channel',
  },
  // Per-tenant users.
  {
    name: 'per-tenant choice beats the global one',
    snapshot: snapshot({ tenant: tenant(), subject: subject({ updates: { preference: 'opt_out' } }), subject_in_tenant: subject({ updates: { preference: 'opt_in' } }) }),
    channel: 'email',
    send: true,
    reason: 'channel_on_by_default',
  },
  {
    name: 'global choice applies in a tenant where the user chose nothing',
    snapshot: snapshot({ tenant: tenant(), subject: subject({ updates: { preference: 'opt_out' } }), subject_in_tenant: subject({}) }),
    channel: 'email',
    send: false,
    reason: 'category_opted_out',
  },
  {
    name: 'per-tenant channel opt-in beats a global channel opt-out',
    snapshot: snapshot({
      tenant: tenant(),
      subject: subject({ updates: { opt_out_channels: ['email'] } }),
      subject_in_tenant: subject({ updates: { opt_in_channels: ['email'] } }),
    }),
    channel: 'email',
    send: true,
    reason: 'channel_opted_in',
  },
  {
    name: 'per-tenant preference without channel choices falls through to the global channel opt-out',
    snapshot: snapshot({
      tenant: tenant(),
      subject: subject({ updates: { opt_out_channels: ['email'] } }),
      subject_in_tenant: subject({ updates: { preference: 'opt_in' } }),
    }),
    channel: 'email',
    send: false,
    reason: 'channel_opted_out',
  },
  {
    name: 'per-tenant user opt-in beats the tenant default opt-out',
    snapshot: snapshot({ tenant: tenant({ updates: { preference: 'opt_out' } }), subject_in_tenant: subject({ updates: { preference: 'opt_in' } }) }),
    channel: 'sms',
    send: true,
    reason: 'channel_on_by_default',
  },
];

describe('evaluatePreference', () => {
  it.each(cases)('$name', ({ snapshot: s, channel, send, reason }) => {
    expect(evaluatePreference(s, [channel]).channels).toEqual([{ channel, send, reason }]);
  });

  it('decides every channel asked for, and sends when one of them does', () => {
    const s = snapshot({ subject: subject({ updates: { opt_out_channels: ['email'] } }) });
    expect(evaluatePreference(s, ['email', 'sms'])).toEqual({
      send: true,
      channels: [
        { channel: 'email', send: false, reason: 'channel_opted_out' },
        { channel: 'sms', send: true, reason: 'channel_on_by_default' },
      ],
    });
    expect(evaluatePreference(s, ['email']).send).toBe(false);
  });

  it('gives the same decision for a snapshot that went through JSON', () => {
    for (const c of cases) {
      const copy = JSON.parse(JSON.stringify(c.snapshot)) as PreferenceSnapshot;
      expect(evaluatePreference(copy, [c.channel])).toEqual(evaluatePreference(c.snapshot, [c.channel]));
    }
  });
});
