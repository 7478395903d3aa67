import { applyCategoryUpdate } from './category-choice-update';
import { categoryPreferenceRecord, indexCategories } from './category-record';
import { CategoryDocument, PreferenceSnapshot } from './preference-model';

const document: CategoryDocument = {
  root_categories: [
    {
      root_category: 'transactional',
      sections: [
        {
          name: 'Updates',
          tags: ['ops'],
          categories: [
            {
              category: 'digest',
              name: 'Digest',
              default_preference: 'opt_in',
              tags: ['weekly'],
              digest_schedule_options: {
                options: [
                  { id: 'now', label: 'Now', frequency: 'instantly', interval: 1, is_default: true },
                  { id: 'daily', label: 'Daily', frequency: 'daily', interval: 1, time: { edit_policy: 'locked', default_value: '09:00' }, is_default: false },
                ],
              },
              properties: [{ key: 'limit', label: 'Limit', value_type: 'number', default_value: 5, is_optional: false, edit_policy: 'editable' }],
            },
          ],
        },
      ],
    },
  ],
};
const located = indexCategories(document).get('digest')!;
const empty: PreferenceSnapshot = { category: located.definition, tenant: null, subject: null, subject_in_tenant: null };

describe('applyCategoryUpdate', () => {
  it('merges channel lists so that a channel is in at most one of them', () => {
    const first = applyCategoryUpdate(located, undefined, undefined, { opt_out_channels: ['email', 'sms'] });
    const second = first.ok ? applyCategoryUpdate(located, undefined, first.value, { opt_in_channels: ['sms'] }) : first;
    expect(second).toEqual({ ok: true, value: { opt_in_channels: ['sms'], opt_out_channels: ['email'] } });
  });

  it("reports every field the category refuses by its path (the body's shape is the schema's)", () => {
    const result = applyCategoryUpdate(located, undefined, undefined, {
      opt_in_channels: ['email'],
      opt_out_channels: ['email'],
      digest_schedule: { id: 'weekly' },
      properties: [{ key: 'limit', value: '5' }, { key: 'other', value: 1 }],
    });
    expect(result.ok ? [] : result.errors).toEqual([
      { path: 'opt_out_channels[0]', message: "'email' is also in opt_in_channels" },
      { path: 'digest_schedule.id', message: 'must be one of now, daily' },
      { path: 'properties[0].value', message: 'must be of type number' },
      { path: 'properties[1].key', message: "'other' is not a property of this category" },
    ]);
  });

  it('keeps a null schedule, which falls back to the default', () => {
    expect(applyCategoryUpdate(located, undefined, { digest_schedule: { id: 'daily' } }, { digest_schedule: null })).toEqual({ ok: true, value: { digest_schedule: null } });
  });
});

describe('categoryPreferenceRecord', () => {
  it('shows the defaults when nothing was chosen', () => {
    const record = categoryPreferenceRecord(located, empty);
    expect(record).toMatchObject({ original_preference: 'opt_in', preference: 'opt_in', is_editable: true, tags: ['weekly'], effective_tags: ['ops', 'weekly'] });
    expect(record.digest_schedule).toMatchObject({ id: 'now', is_default: true, is_user_selected: false });
    expect(record.properties).toEqual([expect.objectContaining({ key: 'limit', is_overridden: false, value: 5 })]);
  });

  it('ignores a chosen time where the option locks it', () => {
    const chosen: PreferenceSnapshot = { ...empty, subject: { categories: { digest: { digest_schedule: { id: 'daily', time: '18:00' } } }, restricted_channels: [] } };
    expect(categoryPreferenceRecord(located, chosen).digest_schedule).toMatchObject({ id: 'daily', time: '09:00', is_user_selected: true });
  });

  it('falls back to the tenant default schedule', () => {
    const tenant: PreferenceSnapshot = {
      ...empty,
      tenant: {
        tenant_id: 't',
        blocked_channels: ['sms'],
        categories: { digest: { preference: 'opt_in', visible_to_subscriber: true, mandatory_channels: null, opt_in_channels: null, digest_schedule: { id: 'daily' } } },
      },
    };
    const record = categoryPreferenceRecord(located, tenant);
    expect(record.digest_schedule).toMatchObject({ id: 'daily', is_user_selected: false });
    expect(record.channels).toContainEqual({ channel: 'sms', preference: 'opt_out', is_editable: false });
  });
});
