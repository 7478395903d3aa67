import { FieldError, HeraldError } from '@herald/contracts';
import { DEFAULT_LIMIT, MAX_LIMIT } from './cursor-page';

/** The offset paging of the SDK's `subscriber_lists.get_all` and `tenants.list`: `limit` 1..1000 (default 20), `offset` ≥ 0. */
export interface OffsetQuery {
  readonly limit: number;
  readonly offset: number;
}

export function parseOffsetQuery(query: Record<string, unknown>): OffsetQuery {
  const errors: FieldError[] = [];
  const limit = integer(query.limit, DEFAULT_LIMIT);
  const offset = integer(query.offset, 0);
  if (limit === undefined || limit < 1 || limit > MAX_LIMIT) errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
  if (offset === undefined || offset < 0) errors.push({ path: 'offset', message: `must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}` });
  if (errors.length > 0 || limit === undefined || offset === undefined) throw HeraldError.validation(errors);
  return { limit, offset };
}

function integer(value: unknown, fallback: number): number | undefined {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  // Safe integers only: 99999999999999999999 is past Postgres' bigint (it was a 500).
  return typeof value === 'string' && Number.isSafeInteger(n) ? n : undefined;
}
