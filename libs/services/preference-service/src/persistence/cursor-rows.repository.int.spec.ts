import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { CursorQuery, readCursorPage } from '../http/cursor-page';
import { ListRepository } from '../lists/list.repository';
import { openAudienceDatabase } from '../testing/repository-database';
import { CursorSource, sqlCursorRows } from './cursor-rows.repository';

describe.each(databaseTargets())('the cursor rows of a source ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let lists: ListRepository;

  beforeAll(async () => {
    const opened = await openAudienceDatabase(target);
    db = opened.db;
    dispose = opened.close;
    lists = new ListRepository(db, { now: () => new Date('2026-03-01T10:00:00Z') });
  });
  afterAll(async () => {
    await dispose?.();
  });

  const newWorkspace = (): AuthenticatedWorkspace => {
    const id = randomUUID();
    return { id, slug: `ws-${id.slice(0, 8)}` };
  };
  let nextId = 1_000_000_000_000n;

  /**
   * A list whose members have the given ids, chosen so their text order differs from their
   * order as numbers ('10000' < '9999'), next to another list and workspace with members
   * the source must not see. Answers the source of the list's members and the ids, ascending.
   */
  async function membersWithIds(count: number): Promise<{ source: CursorSource; ids: string[] }> {
    const ws = newWorkspace();
    const other = newWorkspace();
    await lists.upsert(ws, { list_id: 'l' });
    await lists.upsert(ws, { list_id: 'other' });
    await lists.upsert(other, { list_id: 'l' });
    // Around a power of ten: 9999..., then 10000... (shorter as text, larger as numbers).
    const base = nextId;
    nextId *= 10n;
    const ids = Array.from({ length: count }, (_, i) => (base - 2n + BigInt(i)).toString());
    for (const [i, id] of ids.entries()) {
      await db.query(`INSERT INTO audience.list_subscribers (id, workspace_id, list_id, distinct_id) OVERRIDING SYSTEM VALUE VALUES ($1, $2, 'l', $3)`, [id, ws.id, `m${i}`]);
    }
    await lists.add(ws, 'other', { distinct_ids: ['stranger'] });
    await lists.add(other, 'l', { distinct_ids: ['stranger'] });
    return { source: { from: `audience.list_subscribers s WHERE s.workspace_id = $1 AND s.list_id = $2`, params: [ws.id, 'l'], id: 's.id' }, ids };
  }

  const rowsOf = (source: CursorSource) => sqlCursorRows<{ distinct_id: string }>(db.manager, source, 's.distinct_id');

  it('reads up to the limit from either end, ordered by the bigint id, each with its id as text', async () => {
    const { source, ids } = await membersWithIds(5);
    const rows = rowsOf(source);
    expect(await rows.read(undefined, true, 3)).toEqual([
      { page_cursor: ids[0], distinct_id: 'm0' },
      { page_cursor: ids[1], distinct_id: 'm1' },
      { page_cursor: ids[2], distinct_id: 'm2' },
    ]);
    expect((await rows.read(undefined, false, 2)).map((row) => row.distinct_id)).toEqual(['m4', 'm3']);
    expect(await rows.read(undefined, true, 100)).toHaveLength(5);
  });

  it('reads past a bound upwards or downwards, inclusive or not', async () => {
    const { source, ids } = await membersWithIds(5);
    const rows = rowsOf(source);
    const names = async (past: { id: string; upwards: boolean; inclusive: boolean }, ascending: boolean, limit = 10) =>
      (await rows.read(past, ascending, limit)).map((row) => row.distinct_id);
    expect(await names({ id: ids[1], upwards: true, inclusive: false }, true)).toEqual(['m2', 'm3', 'm4']);
    expect(await names({ id: ids[1], upwards: true, inclusive: true }, true, 2)).toEqual(['m1', 'm2']);
    expect(await names({ id: ids[3], upwards: false, inclusive: false }, false)).toEqual(['m2', 'm1', 'm0']);
    expect(await names({ id: ids[3], upwards: false, inclusive: true }, false, 1)).toEqual(['m3']);
    expect(await names({ id: ids[4], upwards: true, inclusive: false }, true)).toEqual([]);
  });

  it('tells whether any row lies past a bound, and counts the rows of the source alone', async () => {
    const { source, ids } = await membersWithIds(3);
    const rows = rowsOf(source);
    expect(await rows.any({ id: ids[2], upwards: true, inclusive: false })).toBe(false);
    expect(await rows.any({ id: ids[2], upwards: true, inclusive: true })).toBe(true);
    expect(await rows.any({ id: ids[0], upwards: false, inclusive: false })).toBe(false);
    expect(await rows.any({ id: ids[0], upwards: false, inclusive: true })).toBe(true);
    expect(await rows.any({ id: ids[1], upwards: false, inclusive: false })).toBe(true);
    expect(await rows.count()).toBe(3);
    const empty = await membersWithIds(0);
    expect(await rowsOf(empty.source).count()).toBe(0);
    expect(await rowsOf(empty.source).read(undefined, true, 10)).toEqual([]);
  });

  it('pages through the rows both ways with readCursorPage, with the cursors and neighbours of each page', async () => {
    const { source, ids } = await membersWithIds(5);
    const page = async (query: Omit<CursorQuery, 'limit'> & { limit?: number }, count?: number) => {
      const { meta, rows } = await readCursorPage(rowsOf(source), { limit: 2, ...query }, count);
      return { meta, names: rows.map((row) => row.distinct_id), rows };
    };
    const first = await page({ sort: 'id' });
    expect(first.rows[0]).toEqual({ distinct_id: 'm0' });
    expect(first).toMatchObject({ names: ['m0', 'm1'], meta: { limit: 2, count: 5, before: ids[0], after: ids[1], has_prev: false, has_next: true } });
    const second = await page({ sort: 'id', after: BigInt(ids[1]) });
    expect(second).toMatchObject({ names: ['m2', 'm3'], meta: { before: ids[2], after: ids[3], has_prev: true, has_next: true } });
    const last = await page({ sort: 'id', after: BigInt(ids[3]) });
    expect(last).toMatchObject({ names: ['m4'], meta: { before: ids[4], after: ids[4], has_prev: true, has_next: false } });
    const back = await page({ sort: 'id', before: BigInt(ids[2]) });
    expect(back).toMatchObject({ names: ['m0', 'm1'], meta: { has_prev: false, has_next: true } });

    const newest = await page({ sort: '-id' });
    expect(newest).toMatchObject({ names: ['m4', 'm3'], meta: { before: ids[4], after: ids[3], has_prev: false, has_next: true } });
    const older = await page({ sort: '-id', after: BigInt(ids[3]) });
    expect(older).toMatchObject({ names: ['m2', 'm1'], meta: { has_prev: true, has_next: true } });
    const newer = await page({ sort: '-id', before: BigInt(ids[1]) });
    expect(newer).toMatchObject({ names: ['m3', 'm2'], meta: { has_prev: true, has_next: true } });

    // A count the caller keeps is taken as given.
    expect((await page({ sort: 'id' }, 42)).meta.count).toBe(42);
  });

  it('answers an empty page past either end with the neighbours of its cursor', async () => {
    const { source, ids } = await membersWithIds(3);
    const page = (query: CursorQuery) => readCursorPage(rowsOf(source), query);
    expect(await page({ limit: 2, sort: 'id', after: BigInt(ids[2]) })).toEqual({
      meta: { limit: 2, count: 3, before: null, after: null, has_prev: true, has_next: false },
      rows: [],
    });
    expect(await page({ limit: 2, sort: 'id', before: BigInt(ids[0]) })).toEqual({
      meta: { limit: 2, count: 3, before: null, after: null, has_prev: false, has_next: true },
      rows: [],
    });
    // A cursor beyond every row, in either order: all of them lie before it.
    expect((await page({ limit: 2, sort: 'id', after: 900_000_000_000_000_000n })).meta).toMatchObject({ has_prev: true, has_next: false });
    expect((await page({ limit: 2, sort: '-id', after: 1n })).meta).toMatchObject({ has_prev: true, has_next: false });
    const empty = await membersWithIds(0);
    expect(await readCursorPage(rowsOf(empty.source), { limit: 2, sort: '-id' })).toEqual({
      meta: { limit: 2, count: 0, before: null, after: null, has_prev: false, has_next: false },
      rows: [],
    });
  });
});
