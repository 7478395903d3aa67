import { BrokenCase, batch, delay, digest, expectErrors, expectValid, relativeTo, schedule, withNode } from './testing/definition-fixtures';

const N = 'tree.nodes[0]';
const DURATION = 'must be a duration like 1d2h30m10s';
const JQ = 'invalid jq expression: unbalanced parentheses';

describe('digest node', () => {
  const cases: readonly BrokenCase[] = [
    ['schedule_type is required', withNode(digest({ schedule_type: undefined })), `${N}.schedule_type: is required`],
    ['schedule_type enum', withNode(digest({ schedule_type: 'hourly' })), `${N}.schedule_type: must be one of static, dynamic, category_digest_schedule`],
    ['a static digest needs a schedule', withNode(digest({ schedule: undefined })), `${N}.schedule: is required`],
    ['schedule must be an object', withNode(digest({ schedule: 'daily' })), `${N}.schedule: must be an object`],
    ['a dynamic digest needs dynamic_schedule_expr', withNode(digest({ schedule_type: 'dynamic' })), `${N}.dynamic_schedule_expr: is required`],
    ['dynamic_schedule_expr is jq', withNode(digest({ schedule_type: 'dynamic', dynamic_schedule_expr: '.s(((' })), `${N}.dynamic_schedule_expr: ${JQ}`],
    ['retain_count at least 1', withNode(digest({ retain_count: 0 })), `${N}.retain_count: must be an integer from 1 to 100`],
    ['retain_count at most 100', withNode(digest({ retain_count: 101 })), `${N}.retain_count: must be an integer from 1 to 100`],
    ['retain_count an integer', withNode(digest({ retain_count: '10' })), `${N}.retain_count: must be an integer from 1 to 100`],
    ['retain_order enum', withNode(digest({ retain_order: 'latest' })), `${N}.retain_order: must be one of first, last`],
    ['trigger_min_count at least 1', withNode(digest({ trigger_min_count: 0 })), `${N}.trigger_min_count: must be an integer of at least 1`],
  ];
  it.each(cases)('%s', (_rule, input, expected) => expectErrors(input, expected));

  it.each([
    ['retain_count 1', { retain_count: 1 }],
    ['retain_count 100', { retain_count: 100 }],
    ['trigger_min_count 1', { trigger_min_count: 1 }],
    ['a leftover schedule on a dynamic digest (ignored)', { schedule_type: 'dynamic', dynamic_schedule_expr: '.s', schedule: { frequency: 'never' } }],
  ])('accepts %s', (_case, over) => expectValid(withNode(digest(over))));
});

describe('digest schedule', () => {
  const S = `${N}.schedule`;
  const at = (over: Record<string, unknown>) => withNode(digest({ schedule: schedule(over) }));
  const cases: readonly BrokenCase[] = [
    ['frequency is required', at({ frequency: undefined }), `${S}.frequency: is required`],
    ['frequency enum', at({ frequency: 'yearly' }), `${S}.frequency: must be one of minutely, hourly, daily, weekly_mo2fr, weekly, monthly`],
    ['interval at least 1', at({ interval: 0 }), `${S}.interval: must be an integer of at least 1`],
    ['interval an integer', at({ interval: 1.5 }), `${S}.interval: must be an integer of at least 1`],
    ['weekdays must be an array', at({ weekdays: 'mo' }), `${S}.weekdays: must be an array`],
    ['weekdays enum', at({ weekdays: ['mo', 'monday'] }), `${S}.weekdays[1]: must be one of su, mo, tu, we, th, fr, sa`],
    ['monthdays items are objects', at({ frequency: 'monthly', monthdays: [1] }), `${S}.monthdays[0]: must be an object`],
    ['monthdays pos is required', at({ frequency: 'monthly', monthdays: [{ day: 'mo' }] }), `${S}.monthdays[0].pos: is required`],
    ['monthdays pos at most 31', at({ frequency: 'monthly', monthdays: [{ pos: 32 }] }), `${S}.monthdays[0].pos: must be an integer from -31 to 31`],
    ['monthdays pos at least -31', at({ frequency: 'monthly', monthdays: [{ pos: -32 }] }), `${S}.monthdays[0].pos: must be an integer from -31 to 31`],
    ['monthdays pos not 0', at({ frequency: 'monthly', monthdays: [{ pos: 0 }] }), `${S}.monthdays[0].pos: must not be 0`],
    ['monthdays day enum', at({ frequency: 'monthly', monthdays: [{ pos: 1, day: 'monday' }] }), `${S}.monthdays[0].day: must be one of su, mo, tu, we, th, fr, sa`],
    ['time HH:MM, hour below 24', at({ time: '24:00' }), `${S}.time: must be a time HH:MM (24-hour)`],
    ['time HH:MM, two-digit hour', at({ time: '9:30' }), `${S}.time: must be a time HH:MM (24-hour)`],
    ['time HH:MM, minute below 60', at({ time: '09:60' }), `${S}.time: must be a time HH:MM (24-hour)`],
    ['time HH:MM, no seconds', at({ time: '09:30:00' }), `${S}.time: must be a time HH:MM (24-hour)`],
    ['dtstart is an ISO date-time', at({ dtstart: 'tomorrow' }), `${S}.dtstart: must be an ISO date-time like 2025-01-31T09:00:00Z`],
    ['dtstart has a time', at({ dtstart: '2025-01-31' }), `${S}.dtstart: must be an ISO date-time like 2025-01-31T09:00:00Z`],
    ['dtstart is a date that exists', at({ dtstart: '2025-02-30T09:00:00Z' }), `${S}.dtstart: must be an ISO date-time like 2025-01-31T09:00:00Z`],
    ['tz_selection enum', at({ tz_selection: 'utc' }), `${S}.tz_selection: must be one of fixed, recipient`],
    ['tz_fixed is required for a fixed timezone', at({ tz_fixed: undefined }), `${S}.tz_fixed: is required`],
    ['tz_fixed pattern', at({ tz_fixed: 'UTC+5' }), `${S}.tz_fixed: must be an IANA timezone like America/New_York`],
  ];
  it.each(cases)('%s', (_rule, input, expected) => expectErrors(input, expected));

  it.each([
    ['a monthday whose day is null', { frequency: 'monthly', monthdays: [{ pos: 1, day: null }] }],
    ['monthdays pos -31 and 31', { frequency: 'monthly', monthdays: [{ pos: -31 }, { pos: 31 }] }],
    ['time 23:59', { time: '23:59' }],
    ['time 00:00', { time: '00:00' }],
    ['dtstart without offset', { dtstart: '2025-01-31T09:00' }],
    ['dtstart with fraction and offset', { dtstart: '2024-02-29T09:00:00.123+05:30' }],
    ['tz_fixed with underscore', { tz_fixed: 'America/Los_Angeles' }],
    ['recipient timezone without tz_fixed', { tz_selection: 'recipient', tz_fixed: undefined }],
    ['weekdays with a daily frequency (only checked for values)', { frequency: 'daily', weekdays: ['su'] }],
  ])('accepts %s', (_case, over) => expectValid(withNode(digest({ schedule: schedule(over) }))));
});

describe('delay node', () => {
  const R = `${N}.relative_to`;
  const relative = (over: Record<string, unknown>) => withNode(delay({ delay_type: 'relative_to', relative_to: relativeTo(over) }));
  const cases: readonly BrokenCase[] = [
    ['delay_type is required', withNode(delay({ delay_type: undefined })), `${N}.delay_type: is required`],
    ['delay_type enum', withNode(delay({ delay_type: 'until' })), `${N}.delay_type: must be one of fixed, dynamic, relative_to`],
    ['a fixed delay needs duration', withNode(delay({ duration: undefined })), `${N}.duration: is required`],
    ['a fixed delay duration is a duration', withNode(delay({ duration: '30 minutes' })), `${N}.duration: ${DURATION}`],
    ['a fixed delay duration must not be blank', withNode(delay({ duration: '' })), `${N}.duration: must not be empty`],
    ['a dynamic delay needs duration', withNode(delay({ delay_type: 'dynamic', duration: undefined })), `${N}.duration: is required`],
    ['a dynamic delay duration is jq', withNode(delay({ delay_type: 'dynamic', duration: '.d(((' })), `${N}.duration: ${JQ}`],
    ['a relative delay needs relative_to', withNode(delay({ delay_type: 'relative_to' })), `${R}: is required`],
    ['relative_to must be an object', withNode(delay({ delay_type: 'relative_to', relative_to: '.start' })), `${R}: must be an object`],
    ['relative_to.pivot_expr is required', relative({ pivot_expr: undefined }), `${R}.pivot_expr: is required`],
    ['relative_to.pivot_expr is jq', relative({ pivot_expr: '(((' }), `${R}.pivot_expr: ${JQ}`],
    ['relative_to.offset_type is required', relative({ offset_type: undefined }), `${R}.offset_type: is required`],
    ['relative_to.offset_type enum', relative({ offset_type: 'around' }), `${R}.offset_type: must be one of before, after`],
    ['relative_to.offset_value_type is required', relative({ offset_value_type: undefined }), `${R}.offset_value_type: is required`],
    ['relative_to.offset_value_type enum', relative({ offset_value_type: 'relative_to' }), `${R}.offset_value_type: must be one of fixed, dynamic`],
    ['relative_to.offset_value is required', relative({ offset_value: undefined }), `${R}.offset_value: is required`],
    ['a fixed offset_value is a duration', relative({ offset_value: '15 min' }), `${R}.offset_value: ${DURATION}`],
    ['a dynamic offset_value is jq', relative({ offset_value_type: 'dynamic', offset_value: '$recipient.x(((' }), `${R}.offset_value: ${JQ}`],
  ];
  it.each(cases)('%s', (_rule, input, expected) => expectErrors(input, expected));

  it.each([
    ['a zero fixed delay', delay({ duration: '0s' })],
    ['a zero fixed offset', delay({ delay_type: 'relative_to', relative_to: relativeTo({ offset_value: '0m' }) })],
    ['a leftover relative_to on a fixed delay (ignored)', delay({ relative_to: { pivot_expr: '(((' } })],
  ])('accepts %s', (_case, node) => expectValid(withNode(node)));
});

describe('batch node', () => {
  const cases: readonly BrokenCase[] = [
    ['mode is required', withNode(batch({ mode: undefined })), `${N}.mode: is required`],
    ['mode enum', withNode(batch({ mode: 'all' })), `${N}.mode: must be one of accumulate_all, flush_leading_item`],
    ['window_type is required', withNode(batch({ window_type: undefined })), `${N}.window_type: is required`],
    ['window_type enum', withNode(batch({ window_type: 'sliding' })), `${N}.window_type: must be one of fixed, dynamic, relative_to`],
    ['a fixed window needs fixed_window', withNode(batch({ fixed_window: undefined })), `${N}.fixed_window: is required`],
    ['fixed_window is a duration', withNode(batch({ fixed_window: '1 hour' })), `${N}.fixed_window: ${DURATION}`],
    ['fixed_window is longer than zero', withNode(batch({ fixed_window: '0h0m' })), `${N}.fixed_window: must be a duration longer than zero, like 1d2h30m10s`],
    ['a dynamic window needs dynamic_window_expr', withNode(batch({ window_type: 'dynamic' })), `${N}.dynamic_window_expr: is required`],
    ['dynamic_window_expr is jq', withNode(batch({ window_type: 'dynamic', dynamic_window_expr: '(((' })), `${N}.dynamic_window_expr: ${JQ}`],
    ['a relative window needs relative_to', withNode(batch({ window_type: 'relative_to' })), `${N}.relative_to: is required`],
    ['a relative window checks relative_to', withNode(batch({ window_type: 'relative_to', relative_to: relativeTo({ offset_type: 'during' }) })), `${N}.relative_to.offset_type: must be one of before, after`],
    ['retain_count at least 1', withNode(batch({ retain_count: 0 })), `${N}.retain_count: must be an integer from 1 to 100`],
    ['retain_count at most 100', withNode(batch({ retain_count: 101 })), `${N}.retain_count: must be an integer from 1 to 100`],
    ['retain_order enum', withNode(batch({ retain_order: 'oldest' })), `${N}.retain_order: must be one of first, last`],
    ['batch_key is jq', withNode(batch({ batch_key: '.doc(((' })), `${N}.batch_key: ${JQ}`],
  ];
  it.each(cases)('%s', (_rule, input, expected) => expectErrors(input, expected));

  it('accepts an empty batch_key as absent', () => expectValid(withNode(batch({ batch_key: '' }))));
});
