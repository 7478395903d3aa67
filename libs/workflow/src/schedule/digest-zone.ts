import { DigestSchedule } from '../definition';
import { isValidZone } from './zoned-time';

export const FALLBACK_ZONE = 'UTC';

/**
 * The time zone a digest schedule is read in (interface 2.4 tz_selection):
 *
 * - `fixed`: tz_fixed;
 * - `recipient`: the recipient's `$timezone` property;
 * - absent: tz_fixed when the schedule names one (the author chose a zone), else UTC.
 *
 * A zone the runtime does not know (a recipient's typo, a tz_fixed that matches the
 * pattern but names no zone) falls back to UTC, so a digest still closes at a
 * predictable time instead of never.
 */
export function digestZone(schedule: Pick<DigestSchedule, 'tz_selection' | 'tz_fixed'>, recipientTimezone?: unknown): string {
  const chosen = schedule.tz_selection === 'recipient' ? recipientTimezone : schedule.tz_fixed;
  return typeof chosen === 'string' && isValidZone(chosen) ? chosen : FALLBACK_ZONE;
}
