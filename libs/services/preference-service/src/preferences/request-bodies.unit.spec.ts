import { PREFERENCE_BODIES, categoryChoiceOf, fullUpdateOf } from './request-bodies';

describe('preference request bodies: the paths and wording of the hand readers they replace', () => {
  it("takes the web SDK's category bodies, a null list counting as absent", () => {
    expect(PREFERENCE_BODIES.categoryUpdate.parse({ preference: 'opt_in', opt_out_channels: null })).toEqual({ ok: true, value: { preference: 'opt_in', opt_out_channels: null } });
    expect(categoryChoiceOf({ preference: 'opt_in', opt_out_channels: null })).toEqual({ preference: 'opt_in' });
    expect(PREFERENCE_BODIES.categoryUpdate.errors({ preference: 'opt_out', opt_out_channels: [], extra: 1 })).toEqual([]);
  });

  it('names every failing field of a category update by its path', () => {
    expect(
      PREFERENCE_BODIES.categoryUpdate.errors({
        preference: 'maybe',
        opt_in_channels: ['email', 'fax'],
        opt_out_channels: 'email',
        digest_schedule: { id: 'daily', time: '25:00', dtstart: 'soon', weekdays: ['mo', 'xx'], monthdays: [{ pos: 40, day: 'mo' }, { day: 'zz' }] },
        properties: [{ key: 'limit' }],
      }),
    ).toEqual([
      { path: 'preference', message: 'must be opt_in or opt_out' },
      { path: 'opt_in_channels[1]', message: 'must be one of email, sms, whatsapp, androidpush, inbox, iospush, slack, webpush, ms_teams' },
      { path: 'opt_out_channels', message: 'must be an array of channels' },
      { path: 'digest_schedule.time', message: 'must be a 24-hour time HH:MM' },
      { path: 'digest_schedule.dtstart', message: 'must be an ISO 8601 date-time' },
      { path: 'digest_schedule.weekdays', message: 'must be an array of su, mo, tu, we, th, fr, sa' },
      { path: 'digest_schedule.monthdays[0].pos', message: 'must be an integer from -31 to 31' },
      { path: 'digest_schedule.monthdays[1].pos', message: 'must be an integer from -31 to 31' },
      { path: 'digest_schedule.monthdays[1].day', message: 'must be one of su, mo, tu, we, th, fr, sa or null' },
      { path: 'properties[0].value', message: 'is required' },
    ]);
    expect(PREFERENCE_BODIES.categoryUpdate.errors({ digest_schedule: 'daily', properties: {} })).toEqual([
      { path: 'digest_schedule', message: 'must be an object or null' },
      { path: 'properties', message: 'must be an array of {key, value}' },
    ]);
    expect(PREFERENCE_BODIES.categoryUpdate.errors([])).toEqual([{ path: '', message: 'must be a JSON object' }]);
  });

  it('keeps a schedule to its known fields, a month day without day as any day', () => {
    const schedule = { id: 'monthly', dtstart: '2026-01-01T09:00:00Z', monthdays: [{ pos: 1 }, { pos: -1, day: 'fr' as const }], note: 'dropped' };
    expect(PREFERENCE_BODIES.categoryUpdate.errors({ digest_schedule: schedule })).toEqual([]);
    expect(categoryChoiceOf({ digest_schedule: schedule })).toEqual({
      digest_schedule: { id: 'monthly', dtstart: '2026-01-01T09:00:00Z', monthdays: [{ pos: 1, day: null }, { pos: -1, day: 'fr' }] },
    });
    expect(categoryChoiceOf({ digest_schedule: null })).toEqual({ digest_schedule: null });
  });

  it('names the failing channels of a channel update', () => {
    expect(PREFERENCE_BODIES.channelsUpdate.errors({})).toEqual([{ path: 'channel_preferences', message: 'must be an array of {channel, is_restricted}' }]);
    expect(PREFERENCE_BODIES.channelsUpdate.errors({ channel_preferences: [{ channel: 'fax', is_restricted: 'yes' }] })).toEqual([
      { path: 'channel_preferences[0].channel', message: 'must be one of email, sms, whatsapp, androidpush, inbox, iospush, slack, webpush, ms_teams' },
      { path: 'channel_preferences[0].is_restricted', message: 'must be a boolean' },
    ]);
  });

  it('names the failing categories of a full update, each as a category update under its index', () => {
    expect(PREFERENCE_BODIES.fullUpdate.errors({ categories: {} })).toEqual([{ path: 'categories', message: 'must be an array of {category, preference, opt_out_channels, opt_in_channels}' }]);
    expect(PREFERENCE_BODIES.fullUpdate.errors({ channel_preferences: null, categories: [7, { preference: 'opt_in' }, { category: 'news', preference: 'maybe' }] })).toEqual([
      { path: 'channel_preferences', message: 'must be an array of {channel, is_restricted}' },
      { path: 'categories[0]', message: 'must be an object' },
      { path: 'categories[1].category', message: 'must be a non-empty string' },
      { path: 'categories[2].preference', message: 'must be opt_in or opt_out' },
    ]);
    expect(fullUpdateOf({ categories: [{ category: 'news', preference: 'opt_out', opt_in_channels: null }] })).toEqual({ channels: null, categories: [{ category: 'news', choice: { preference: 'opt_out' } }] });
  });

  it('takes 1 to 1,000 non-empty distinct_ids in the bulk bodies', () => {
    const count = 'must be an array of 1 to 1000 distinct_ids';
    expect(PREFERENCE_BODIES.bulkUpdate.errors({ categories: [] })).toEqual([{ path: 'distinct_ids', message: count }]);
    expect(PREFERENCE_BODIES.bulkUpdate.errors({ distinct_ids: [] })).toEqual([{ path: 'distinct_ids', message: count }]);
    expect(PREFERENCE_BODIES.bulkUpdate.errors({ distinct_ids: Array.from({ length: 1001 }, (_, i) => `u${i}`) })).toEqual([{ path: 'distinct_ids', message: count }]);
    expect(PREFERENCE_BODIES.bulkUpdate.errors({ distinct_ids: ['a', 7, ''] })).toEqual([
      { path: 'distinct_ids[1]', message: 'must be a non-empty string' },
      { path: 'distinct_ids[2]', message: 'must be a non-empty string' },
    ]);
    expect(PREFERENCE_BODIES.bulkReset.errors({ distinct_ids: ['a'], reset_categories: 'yes', reset_channel_preferences: null })).toEqual([
      { path: 'reset_channel_preferences', message: 'must be a boolean' },
      { path: 'reset_categories', message: 'must be a boolean' },
    ]);
    expect(PREFERENCE_BODIES.bulkUpdate.errors({ distinct_ids: ['a', 'a'], channel_preferences: [{ channel: 'sms', is_restricted: true }] })).toEqual([]);
  });
});
