import { FieldError, readQueryDate } from '@herald/contracts';

/** decisions.md: `$idempotency_key` holds at most 255 characters after trimming. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** What keeps a date-time (already parsed by `Date.parse`) from being stored: past 9999, before year 1, or no such calendar day. */
export function storableDateProblems(value: string): string[] {
  const problems: FieldError[] = [];
  readQueryDate(value, '', problems);
  return problems.map((problem) => problem.message);
}
