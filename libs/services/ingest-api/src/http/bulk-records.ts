import { HeraldError, ParseResult } from '@herald/contracts';
import { errorBody, httpStatusOf } from '@herald/runtime';
import { validateBulk } from '../validation';

/** One record of a 207 (decisions.md). */
export type BulkRecordResult =
  | { readonly status: 'success'; readonly status_code: number; readonly message_id: string }
  | { readonly status: 'error'; readonly status_code: number; readonly error: { readonly message: string; readonly type: string } };

export interface BulkResponse {
  readonly records: readonly BulkRecordResult[];
  readonly status: 'success';
}

/**
 * Validates and accepts each record on its own, concurrently: one bad record does not
 * fail the others, and the records' results keep the request's order. A body with no
 * records or more than 100 fails as a whole (400). `accept` gets the record's index,
 * from which a signed request derives the record's message id.
 */
export async function acceptBulk<T>(
  body: readonly unknown[],
  validate: (record: unknown) => ParseResult<T>,
  accept: (record: T, index: number) => Promise<{ readonly messageId: string }>,
): Promise<BulkResponse> {
  const validation = validateBulk(body, validate);
  if (!validation.ok) throw HeraldError.validation(validation.errors);
  const records = await Promise.all(
    validation.records.map(async (record, index): Promise<BulkRecordResult> => {
      try {
        if (!record.ok) throw HeraldError.validation(record.errors);
        const accepted = await accept(record.value, index);
        return { status: 'success', status_code: 202, message_id: accepted.messageId };
      } catch (error) {
        if (!(error instanceof HeraldError)) throw error;
        const { status, type } = httpStatusOf(error);
        const detail = errorBody(error);
        return { status: 'error', status_code: status, error: { message: 'detail' in detail ? detail.detail : detail.message, type } };
      }
    }),
  );
  return { records, status: 'success' };
}
