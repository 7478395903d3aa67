import { FieldError, ParseResult } from '@herald/contracts';

/** decisions.md: a bulk trigger or event call holds at most 100 records. */
export const MAX_BULK_RECORDS = 100;

export type BulkValidation<T> =
  | { readonly ok: true; readonly records: readonly ParseResult<T>[] }
  | { readonly ok: false; readonly errors: readonly FieldError[] };

/**
 * Validates each record of a bulk body on its own, for the 207 response: one bad record
 * does not fail the others. Paths in a record's errors are relative to that record. A
 * body with no records or more than 100 fails as a whole, at path ''.
 */
export function validateBulk<T>(body: readonly unknown[], validateOne: (record: unknown) => ParseResult<T>): BulkValidation<T> {
  if (body.length === 0) return { ok: false, errors: [{ path: '', message: 'must hold at least 1 record' }] };
  if (body.length > MAX_BULK_RECORDS) {
    return { ok: false, errors: [{ path: '', message: `must hold at most ${MAX_BULK_RECORDS} records (it holds ${body.length})` }] };
  }
  return { ok: true, records: body.map((record) => validateOne(record)) };
}
