import { EntityManager } from 'typeorm';
import { returningRows } from '@herald/database';
import { CursorBound, CursorRows } from '../http/cursor-page';

/**
 * The rows a repository pages by cursor: `from` is `<tables> WHERE <filter>` with `$1..$n`
 * bound to `params`, and `id` the qualified bigint column that orders and bounds the pages.
 */
export interface CursorSource {
  readonly from: string;
  readonly params: readonly unknown[];
  readonly id: string;
}

/**
 * `source`'s rows for `readCursorPage`, each with `columns` (a select list over its tables).
 * Hand-written: the callers' sources join, filter and compute counts that one statement per
 * read keeps together, and the bound, order and limit are the pager's.
 */
export function sqlCursorRows<T>(manager: EntityManager, source: CursorSource, columns: string): CursorRows<T> {
  const bound = (past: CursorBound): string => `AND ${source.id} ${past.upwards ? '>' : '<'}${past.inclusive ? '=' : ''} $${source.params.length + 1}`;
  return {
    async read(past, ascending, limit) {
      // Ordered by the bigint column itself, never by its text alias (which would sort '9999' after '99990').
      return returningRows<T & { page_cursor: string }>(
        await manager.query(
          `SELECT ${source.id}::text AS page_cursor, ${columns} FROM ${source.from} ${past === undefined ? '' : bound(past)} ORDER BY ${source.id} ${ascending ? 'ASC' : 'DESC'} LIMIT ${Number(limit)}`,
          past === undefined ? [...source.params] : [...source.params, past.id],
        ),
      );
    },
    async any(past) {
      return returningRows<unknown>(await manager.query(`SELECT 1 FROM ${source.from} ${bound(past)} LIMIT 1`, [...source.params, past.id])).length > 0;
    },
    async count() {
      const [row] = returningRows<{ n: number }>(await manager.query(`SELECT count(*)::int AS n FROM ${source.from}`, [...source.params]));
      return row.n;
    },
  };
}
