import { EvaluatedBatchWindow, batchWindowEnd } from './batch-window';

const OPENED = new Date('2025-01-15T10:00:00Z');

describe('batchWindowEnd', () => {
  it.each<readonly [string, EvaluatedBatchWindow, string]>([
    ['fixed: the opening plus the duration', { window_type: 'fixed', fixed_window: '1h30m' }, '2025-01-15T11:30:00.000Z'],
    ['fixed: days', { window_type: 'fixed', fixed_window: '2d' }, '2025-01-17T10:00:00.000Z'],
    ['dynamic: a duration text', { window_type: 'dynamic', window: '15m' }, '2025-01-15T10:15:00.000Z'],
    ['dynamic: a number of seconds', { window_type: 'dynamic', window: 90 }, '2025-01-15T10:01:30.000Z'],
    ['dynamic: seconds as text', { window_type: 'dynamic', window: '3600' }, '2025-01-15T11:00:00.000Z'],
    [
      'relative_to: a fixed offset before an ISO pivot',
      { window_type: 'relative_to', pivot: '2025-01-20T12:00:00Z', offset_type: 'before', offset_value_type: 'fixed', offset: '15m' },
      '2025-01-20T11:45:00.000Z',
    ],
    [
      'relative_to: a fixed offset after an epoch-seconds pivot',
      { window_type: 'relative_to', pivot: Date.parse('2025-01-20T12:00:00Z') / 1000, offset_type: 'after', offset_value_type: 'fixed', offset: '1d' },
      '2025-01-21T12:00:00.000Z',
    ],
    [
      'relative_to: a dynamic offset in seconds',
      { window_type: 'relative_to', pivot: '2025-01-20T12:00:00+05:30', offset_type: 'before', offset_value_type: 'dynamic', offset: 1800 },
      '2025-01-20T06:00:00.000Z',
    ],
    [
      'relative_to: an end already past is returned as is (the caller closes at once)',
      { window_type: 'relative_to', pivot: '2025-01-15T10:05:00Z', offset_type: 'before', offset_value_type: 'fixed', offset: '1h' },
      '2025-01-15T09:05:00.000Z',
    ],
  ])('%s', (_title, window, end) => {
    expect(batchWindowEnd(window, OPENED)).toEqual({ ok: true, value: new Date(end) });
  });

  it.each<readonly [string, EvaluatedBatchWindow, string]>([
    ['fixed: not a duration', { window_type: 'fixed', fixed_window: 'soon' }, 'fixed_window "soon" is not a duration'],
    ['dynamic: a negative number', { window_type: 'dynamic', window: -5 }, 'dynamic_window_expr gave -5'],
    ['dynamic: nothing', { window_type: 'dynamic', window: null }, 'dynamic_window_expr gave null'],
    [
      'relative_to: a pivot that is no timestamp',
      { window_type: 'relative_to', pivot: 'next week', offset_type: 'before', offset_value_type: 'fixed', offset: '1h' },
      'relative_to.pivot_expr gave "next week"',
    ],
    [
      'relative_to: a fixed offset in seconds (fixed offsets are durations)',
      { window_type: 'relative_to', pivot: '2025-01-20T12:00:00Z', offset_type: 'before', offset_value_type: 'fixed', offset: 60 },
      'relative_to.offset_value 60 is not a duration',
    ],
    [
      'relative_to: a dynamic offset that is no duration',
      { window_type: 'relative_to', pivot: '2025-01-20T12:00:00Z', offset_type: 'after', offset_value_type: 'dynamic', offset: 'a while' },
      'relative_to.offset_value gave "a while"',
    ],
    ['an end beyond the range of a date', { window_type: 'fixed', fixed_window: '99999999d' }, 'out of range'],
    [
      'an end after year 9999, which no timer can be stored for',
      { window_type: 'dynamic', window: 400_000_000_000 },
      "the batch window's end +014700-07-16T01:06:40.000Z is out of range: a timer can be due at 9999-12-31T23:59:59.999Z at the latest",
    ],
  ])('fails on %s', (_title, window, reason) => {
    const result = batchWindowEnd(window, OPENED);
    expect(result.ok ? '' : result.error).toContain(reason);
  });
});
