import { FieldError } from './envelope';

/**
 * The longest id Herald takes anywhere: a distinct_id, an object's type and id, a
 * tenant, list, workflow or template slug, in a body or in a path. One limit for every
 * route, so an id a trigger accepts is an id every `/v1/user/{id}/…` route can address.
 * 255 is the workflow slug's limit already; ids stay well inside a Postgres index entry
 * even when two of them share a key.
 */
export const MAX_ID_LENGTH = 255;

/** Why `id` is too long to be an id, or undefined. */
export function idLengthProblem(id: string): string | undefined {
  return id.length > MAX_ID_LENGTH ? `must hold at most ${MAX_ID_LENGTH} characters (it holds ${id.length})` : undefined;
}

/**
 * The dates Herald takes in a query or a cursor: years 1 to 9999. Inside what Postgres'
 * timestamptz stores (it has no year 0 and does not read JavaScript's six-digit
 * `+275760-…` years) and what RFC 3339 writes (four-digit years).
 */
export const QUERY_DATE_RANGE = {
  min: Date.parse('0001-01-01T00:00:00.000Z'),
  max: Date.parse('9999-12-31T23:59:59.999Z'),
} as const;

const ISO_DATE_PREFIX = /^([+-]?\d{4,6})-(\d{2})-(\d{2})/;

/**
 * A date-time given in a query (`created_at_gte`) or carried in a cursor, as a Date
 * Postgres reads back equal, or undefined after reporting why under `path`. Refused:
 * what `Date` cannot read, calendar dates that do not exist (`2024-02-30`, which `Date`
 * rolls into March), and dates outside `QUERY_DATE_RANGE`.
 */
export function readQueryDate(value: unknown, path: string, errors: FieldError[]): Date | undefined {
  if (typeof value !== 'string') {
    errors.push({ path, message: 'must be given once' });
    return undefined;
  }
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) {
    errors.push({ path, message: 'must be an RFC 3339 date-time' });
    return undefined;
  }
  const calendar = ISO_DATE_PREFIX.exec(value.trim());
  if (calendar && !isCalendarDate(Number(calendar[1]), Number(calendar[2]), Number(calendar[3]))) {
    errors.push({ path, message: `has no such day: ${calendar[0]}` });
    return undefined;
  }
  if (at.getTime() < QUERY_DATE_RANGE.min || at.getTime() > QUERY_DATE_RANGE.max) {
    errors.push({ path, message: 'must be a date-time from 0001-01-01 to 9999-12-31' });
    return undefined;
  }
  return at;
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return day <= days;
}

/** Postgres' bigint: what a query value naming a row by a bigint (a page cursor) may hold. */
export const BIGINT_MAX = 9_223_372_036_854_775_807n;

/**
 * A positive bigint written in decimal digits (a page cursor), or undefined after
 * reporting `message` under `path`: more digits than a bigint holds, or past its largest
 * value, is the same refusal as any other wrong cursor, never a database error.
 */
export function readQueryBigint(value: unknown, path: string, errors: FieldError[], message: string): bigint | undefined {
  if (typeof value !== 'string' || !/^\d{1,19}$/.test(value)) {
    errors.push({ path, message });
    return undefined;
  }
  const n = BigInt(value);
  if (n < 1n || n > BIGINT_MAX) {
    errors.push({ path, message });
    return undefined;
  }
  return n;
}

