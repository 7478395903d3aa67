import { validateBroadcast } from './broadcast';

describe('validateBroadcast', () => {
  const base = { list_id: 'all-users', template: 'news', notification_category: 'promotional', data: {} };

  it('takes a trigger_at up to 9999-12-31 and refuses one Postgres could not store, which would be acknowledged and then stranded', () => {
    expect(validateBroadcast({ ...base, trigger_at: '9999-12-31T23:59:59Z' })).toMatchObject({ ok: true, value: { trigger_at: '9999-12-31T23:59:59.000Z' } });
    for (const trigger_at of ['+275760-09-13T00:00:00.000Z', '2024-02-30T00:00:00Z', '0000-01-01T00:00:00Z']) {
      expect(validateBroadcast({ ...base, trigger_at })).toMatchObject({ ok: false, errors: [{ path: 'trigger_at' }] });
    }
    expect(validateBroadcast({ ...base, trigger_at: 'soon' })).toMatchObject({ ok: false, errors: [{ path: 'trigger_at', message: 'must be an ISO 8601 date-time' }] });
  });
});
