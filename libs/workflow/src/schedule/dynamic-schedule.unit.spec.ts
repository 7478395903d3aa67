import { dynamicDigestSchedule } from './dynamic-schedule';

describe('dynamicDigestSchedule', () => {
  it('reads a schedule object the jq expression gave', () => {
    const result = dynamicDigestSchedule({ frequency: 'weekly', weekdays: ['mo', 'th'], time: '08:15', tz_selection: 'recipient', properties_ignored: true });
    expect(result).toEqual({ ok: true, value: expect.objectContaining({ frequency: 'weekly', weekdays: ['mo', 'th'], time: '08:15', tz_selection: 'recipient' }) });
  });

  it.each([
    ['not an object', 'daily', ['dynamic_schedule: must be an object']],
    ['no value', null, ['dynamic_schedule: is required']],
    ['no frequency', { time: '09:00' }, ['dynamic_schedule.frequency: is required']],
    ['several wrong fields', { frequency: 'yearly', time: '9am', monthdays: [{ pos: 0 }] }, ['dynamic_schedule.frequency', 'dynamic_schedule.monthdays[0].pos', 'dynamic_schedule.time']],
  ])('fails on %s, naming every reason', (_title, value, reasons) => {
    const result = dynamicDigestSchedule(value);
    expect(result.ok).toBe(false);
    for (const reason of reasons) expect(result.ok ? '' : result.error).toContain(reason);
  });
});
