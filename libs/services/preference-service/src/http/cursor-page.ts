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

/** Where a read starts: the rows whose id lies past `id`, upwards (greater) or downwards, `inclusive` of it or not. */
export interface CursorBound {
  readonly id: string;
  readonly upwards: boolean;
  readonly inclusive: boolean;
}

/**
 * The rows a cursor walks, read by the repository that owns them (the pager runs no SQL
 * itself). Each row carries its id, a bigint that only grows, as text in `page_cursor`.
 */
export interface CursorRows<T> {
  /** Up to `limit` rows past `past` (from either end when absent), by id ascending or descending (the bigint, never its text). */
  read(past: CursorBound | undefined, ascending: boolean, limit: number): Promise<Array<T & { page_cursor: string }>>;
  /** Whether any row lies past `past`. */
  any(past: CursorBound): Promise<boolean>;
  /** How many rows there are. */
  count(): Promise<number>;
}

/**
 * One page of `rows` (interface 2.8). The id only grows, so a cursor keeps its place
 * while rows are added or removed: `after` continues past the cursor in the chosen
 * order, `before` returns the page that precedes it. `count` is the total when the
 * caller keeps it; otherwise the rows are counted.
 */
export async function readCursorPage<T>(rows: CursorRows<T>, query: CursorQuery, count?: number): Promise<{ meta: CursorMeta; rows: T[] }> {
  const ascending = query.sort === 'id';
  const backwards = query.before !== undefined;
  const cursor = (query.before ?? query.after)?.toString();
  // Walking backwards reads the other way from the cursor and flips the rows afterwards.
  const readAscending = ascending !== backwards;
  const page = await rows.read(cursor === undefined ? undefined : { id: cursor, upwards: readAscending, inclusive: false }, readAscending, query.limit);
  if (backwards) page.reverse();
  const first = page[0]?.page_cursor;
  const last = page[page.length - 1]?.page_cursor;
  const beyond = async (id: string | undefined, upwards: boolean, inclusive: boolean): Promise<boolean> => id !== undefined && (await rows.any({ id, upwards, inclusive }));
  const [hasPrev, hasNext] =
    first === undefined || last === undefined
      ? await aroundEmptyPage(beyond, cursor, ascending, backwards)
      : await Promise.all([beyond(first, !ascending, false), beyond(last, ascending, false)]);
  const total = count ?? (await rows.count());
  return {
    meta: { limit: query.limit, count: total, before: first ?? null, after: last ?? null, has_prev: hasPrev, has_next: hasNext },
    rows: page.map(({ page_cursor: _cursor, ...row }) => row as T),
  };
}

/** An empty page lies just past its cursor, which itself (if still there) belongs to the pages on the other side. */
async function aroundEmptyPage(
  beyond: (id: string | undefined, upwards: boolean, inclusive: boolean) => Promise<boolean>,
  cursor: string | undefined,
  ascending: boolean,
  backwards: boolean,
): Promise<[boolean, boolean]> {
  if (cursor === undefined) return [false, false];
  const beyondCursor = await beyond(cursor, backwards ? ascending : !ascending, true);
  return backwards ? [false, beyondCursor] : [beyondCursor, false];
}
