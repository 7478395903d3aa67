import { EntityManager } from 'typeorm';
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

/**
 * The rows a cursor walks: `from` is `<tables> WHERE <filter>` with `$1..$n` bound to
 * `params`, and `id` the qualified bigint column that orders and bounds the pages.
 */
export interface CursorSource {
  readonly from: string;
  readonly params: readonly unknown[];
  readonly id: string;
}

/**
 * One page of `source` (interface 2.8). The id only grows, so a cursor keeps its place
 * while rows are added or removed: `after` continues past the cursor in the chosen
 * order, `before` returns the page that precedes it. `count` is the total when the
 * caller keeps it; otherwise the rows are counted.
 */
export async function readCursorPage<T>(
  manager: EntityManager,
  source: CursorSource,
  columns: string,
  query: CursorQuery,
  count?: number,
): Promise<{ meta: CursorMeta; rows: T[] }> {
  const ascending = query.sort === 'id';
  const backwards = query.before !== undefined;
  const cursor = (query.before ?? query.after)?.toString();
  // Walking backwards reads the other way from the cursor and flips the rows afterwards.
  const readAscending = ascending !== backwards;
  const bound = cursor === undefined ? '' : `AND ${source.id} ${readAscending ? '>' : '<'} $${source.params.length + 1}`;
  // Ordered by the bigint column itself, never by its text alias (which would sort '9999' after '99990').
  const rows = (await manager.query(
    `SELECT ${source.id}::text AS page_cursor, ${columns} FROM ${source.from} ${bound} ORDER BY ${source.id} ${readAscending ? 'ASC' : 'DESC'} LIMIT ${query.limit}`,
    cursor === undefined ? [...source.params] : [...source.params, cursor],
  )) as Array<T & { page_cursor: string }>;
  if (backwards) rows.reverse();
  const first = rows[0]?.page_cursor;
  const last = rows[rows.length - 1]?.page_cursor;
  const beyond = (id: string | undefined, upwards: boolean, inclusive: boolean): Promise<boolean> => anyBeyond(manager, source, id, upwards, inclusive);
  const [hasPrev, hasNext] =
    first === undefined || last === undefined
      ? await aroundEmptyPage(beyond, cursor, ascending, backwards)
      : await Promise.all([beyond(first, !ascending, false), beyond(last, ascending, false)]);
  const total = count ?? (await countRows(manager, source));
  return {
    meta: { limit: query.limit, count: total, before: first ?? null, after: last ?? null, has_prev: hasPrev, has_next: hasNext },
    rows: rows.map(({ page_cursor: _cursor, ...row }) => row as T),
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

/** Whether a row lies past `id` in the given direction of ids. */
async function anyBeyond(manager: EntityManager, source: CursorSource, id: string | undefined, upwards: boolean, inclusive: boolean): Promise<boolean> {
  if (id === undefined) return false;
  const op = `${upwards ? '>' : '<'}${inclusive ? '=' : ''}`;
  const rows = (await manager.query(`SELECT 1 FROM ${source.from} AND ${source.id} ${op} $${source.params.length + 1} LIMIT 1`, [...source.params, id])) as unknown[];
  return rows.length > 0;
}

async function countRows(manager: EntityManager, source: CursorSource): Promise<number> {
  const [row] = (await manager.query(`SELECT count(*)::int AS n FROM ${source.from}`, [...source.params])) as Array<{ n: number }>;
  return row.n;
}
