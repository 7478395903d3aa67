import { CategoryChoice, CategoryDefinition, DigestScheduleChoice, PreferenceSnapshot, SubjectPreferences, TenantPreferences } from '@herald/audience';
import { categoryDigestSchedule } from './category-digest-schedule';

const category: CategoryDefinition = {
  category: 'activity',
  name: 'Activity',
  default_preference: 'opt_in',
  digest_schedule_options: {
    options: [
      { id: 'daily', label: 'Daily', frequency: 'daily', interval: 1, time: { edit_policy: 'editable', default_value: '09:00' }, is_default: true },
      {
        id: 'weekly',
        label: 'Weekly',
        frequency: 'weekly',
        interval: 1,
        time: { edit_policy: 'locked', default_value: '10:00' },
        weekdays: { edit_policy: 'editable', default_value: ['mo'] },
        is_default: false,
      },
      { id: 'monthly', label: 'Monthly', frequency: 'monthly', interval: 1, is_default: false },
    ],
  },
};

const subject = (digest_schedule: DigestScheduleChoice | null | undefined): SubjectPreferences => ({
  categories: { activity: { digest_schedule } as CategoryChoice },
  restricted_channels: [],
});

const tenant = (digest_schedule: DigestScheduleChoice | null): TenantPreferences => ({
  tenant_id: 'acme',
  blocked_channels: [],
  categories: { activity: { preference: 'opt_in', visible_to_subscriber: true, mandatory_channels: null, opt_in_channels: null, digest_schedule } },
});

const snapshot = (overrides: Partial<PreferenceSnapshot> = {}): PreferenceSnapshot => ({ category, tenant: null, subject: null, subject_in_tenant: null, ...overrides });

describe('categoryDigestSchedule', () => {
  it.each<readonly [string, PreferenceSnapshot, string, string, object]>([
    ['no choice anywhere: the category default option', snapshot(), 'daily', 'category', { frequency: 'daily', interval: 1, time: '09:00' }],
    ['the recipient chose an option and an editable time', snapshot({ subject: subject({ id: 'daily', time: '18:30' }) }), 'daily', 'recipient', { frequency: 'daily', time: '18:30' }],
    [
      'a locked time keeps its default, editable weekdays follow the choice',
      snapshot({ subject: subject({ id: 'weekly', time: '18:30', weekdays: ['fr'] }) }),
      'weekly',
      'recipient',
      { frequency: 'weekly', time: '10:00', weekdays: ['fr'] },
    ],
    ['weekdays default to the option default', snapshot({ subject: subject({ id: 'weekly' }) }), 'weekly', 'recipient', { weekdays: ['mo'] }],
    [
      'monthdays and dtstart come from the choice',
      snapshot({ subject: subject({ id: 'monthly', monthdays: [{ pos: -1, day: null }, { pos: 2, day: 'tu' }], dtstart: '2025-01-01T00:00:00Z' }) }),
      'monthly',
      'recipient',
      { monthdays: [{ pos: -1 }, { pos: 2, day: 'tu' }], dtstart: '2025-01-01T00:00:00Z' },
    ],
    ['the per-tenant choice wins over the global one', snapshot({ subject: subject({ id: 'weekly' }), subject_in_tenant: subject({ id: 'monthly' }) }), 'monthly', 'recipient', {}],
    ['a global choice applies when the per-tenant layer says nothing', snapshot({ subject: subject({ id: 'weekly' }), subject_in_tenant: subject(undefined) }), 'weekly', 'recipient', {}],
    [
      'a per-tenant null falls back to the tenant default, not the global choice',
      snapshot({ subject: subject({ id: 'weekly' }), subject_in_tenant: subject(null), tenant: tenant({ id: 'monthly' }) }),
      'monthly',
      'tenant',
      {},
    ],
    ['the tenant default when the recipient chose nothing', snapshot({ tenant: tenant({ id: 'weekly', time: '07:00' }) }), 'weekly', 'tenant', { time: '07:00' }],
    ['a tenant null keeps the category default', snapshot({ tenant: tenant(null) }), 'daily', 'category', {}],
    ['an option the category no longer offers counts as no choice', snapshot({ subject: subject({ id: 'hourly' }) }), 'daily', 'category', {}],
  ])('%s', (_title, input, option, source, fields) => {
    const result = categoryDigestSchedule(input);
    expect(result).toEqual({ ok: true, value: { option, source, schedule: expect.objectContaining({ ...fields, tz_selection: 'recipient' }) } });
  });

  it.each<readonly [string, PreferenceSnapshot, string]>([
    ['no category', snapshot({ category: null }), 'no known notification category'],
    ['no options', snapshot({ category: { ...category, digest_schedule_options: null } }), "category 'activity' has no default digest schedule option"],
    [
      'no default option',
      snapshot({ category: { ...category, digest_schedule_options: { options: [{ id: 'daily', label: 'Daily', frequency: 'daily', interval: 1, is_default: false }] } } }),
      'no default digest schedule option',
    ],
    [
      'an option with an unknown frequency',
      snapshot({ category: { ...category, digest_schedule_options: { options: [{ id: 'yearly', label: 'Yearly', frequency: 'yearly', interval: 1, is_default: true }] } } }),
      "digest schedule option 'yearly' has frequency 'yearly'",
    ],
  ])('fails with %s', (_title, input, reason) => {
    const result = categoryDigestSchedule(input);
    expect(result.ok ? '' : result.error).toContain(reason);
  });
});
