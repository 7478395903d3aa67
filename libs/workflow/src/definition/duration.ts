/**
 * Fixed durations (interface 2.3: `XXdXXhXXmXXs`). Any non-empty subset of the four
 * units, in that order, each with a non-negative integer of any number of digits:
 * `1d2h30m10s`, `00d00h05m00s`, `30m`, `1d12h`, `90m`. No sign, fraction, space or
 * upper case, no unit twice. Zero is a valid duration ("0s"); where zero makes no sense
 * (a window) the validator asks for a positive one. A total beyond
 * Number.MAX_SAFE_INTEGER milliseconds is rejected.
 */

const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

const MS_PER_UNIT = [86_400_000, 3_600_000, 60_000, 1_000] as const;

/** The wording validation errors use: `must be a duration like 1d2h30m10s`. */
export const DURATION_EXAMPLE = '1d2h30m10s';

/** Milliseconds of a fixed duration, or undefined when the text is not one. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null || text === '') return undefined;
  let total = 0;
  for (const [index, msPerUnit] of MS_PER_UNIT.entries()) {
    const digits = match[index + 1];
    if (digits !== undefined) total += Number(digits) * msPerUnit;
  }
  return Number.isSafeInteger(total) ? total : undefined;
}

export function isDuration(text: string): boolean {
  return parseDuration(text) !== undefined;
}
