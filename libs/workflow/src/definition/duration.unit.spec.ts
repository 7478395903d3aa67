import { isDuration, parseDuration } from './duration';

const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('parseDuration', () => {
  it.each([
    ['all four units', '1d2h30m10s', D + 2 * H + 30 * M + 10 * S],
    ['the zero-padded fixed form', '00d00h05m00s', 5 * M],
    ['seconds only', '30s', 30 * S],
    ['minutes only', '30m', 30 * M],
    ['hours only', '1h', H],
    ['days only', '2d', 2 * D],
    ['days and hours', '1d12h', D + 12 * H],
    ['hours and seconds, skipping minutes', '1h5s', H + 5 * S],
    ['a unit above its natural range (90 minutes)', '90m', 90 * M],
    ['zero', '0s', 0],
  ])('accepts %s (%s)', (_case, text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    expect(isDuration(text)).toBe(true);
  });

  it.each([
    ['the empty string', ''],
    ['a bare number without unit', '30'],
    ['units out of order', '30m1h'],
    ['a unit written twice', '1h1h'],
    ['an unknown unit', '1w'],
    ['upper-case units', '1H'],
    ['a fraction', '1.5h'],
    ['a negative value', '-5m'],
    ['blanks', '1h 30m'],
    ['a leading blank', ' 1h'],
    ['a unit without a number', 'h'],
    ['ISO 8601 form', 'PT1H'],
    ['a jq expression', '.delay'],
    ['a total beyond safe integer milliseconds', '999999999999999d'],
  ])('rejects %s (%j)', (_case, text) => {
    expect(parseDuration(text)).toBeUndefined();
    expect(isDuration(text)).toBe(false);
  });
});
