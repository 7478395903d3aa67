import { FieldError, HeraldError } from '@herald/contracts';

/** decisions.md: cursor lists take `limit` (default 20, at most 1000), `before`, `after`, and `sort` (`id` | `-id`, default `-id`). */
export interface CursorQuery {
  readonly limit: number;
  readonly sort: 'id' | '-id';
  readonly before?: bigint;
  readonly after?: bigint;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;

export function parseCursorQuery(query: Record<string, unknown>): CursorQuery {
  const errors: FieldError[] = [];
  const text = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') errors.push({ path: name, message: 'must be given once' });
    return typeof value === 'string' ? value : undefined;
  };
  const limitText = text('limit');
  const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
  const sort = text('sort') ?? '-id';
  if (sort !== 'id' && sort !== '-id') errors.push({ path: 'sort', message: 'must be id or -id' });
  const cursor = (name: 'before' | 'after'): bigint | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    if (!/^\d{1,18}$/.test(value)) return void errors.push({ path: name, message: 'must be an id from a previous page' });
    return BigInt(value);
  };
  const before = cursor('before');
  const after = cursor('after');
  if (before !== undefined && after !== undefined) errors.push({ path: 'before', message: 'cannot be combined with after' });
  if (errors.length > 0) throw HeraldError.validation(errors);
  return { limit, sort: sort as CursorQuery['sort'], before, after };
}

/** The `meta` of interface 2.8. `before`/`after` are the cursors of the previous and next page (null at the ends of an empty page). */
export interface CursorMeta {
  readonly limit: number;
  readonly count: number;
  readonly before: string | null;
  readonly after: string | null;
  readonly has_prev: boolean;
  readonly has_next: boolean;
}
