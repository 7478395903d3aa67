import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { returningRows } from '@herald/database';
import { CLOCK, Clock } from '@herald/runtime';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { AUDIENCE_OUTBOX, audienceChangedMessage } from '../outbox/audience-events';
import { CursorMeta, CursorQuery, readCursorPage } from '../http/cursor-page';
import { ListMembers, ListUpsert } from './request-bodies';

export interface ListRow {
  list_id: string;
  list_name: string;
  list_description: string;
  subscribers_count: number;
  created_at: Date;
  updated_at: Date;
}

/** The list record of the reference (static lists only). */
export interface ListView {
  list_id: string;
  list_name: string;
  list_description: string;
  list_type: 'static_list';
  subscribers_count: number;
  source: null;
  is_readonly: false;
  status: 'active';
  track_user_entry: false;
  track_user_exit: false;
  requested_for_delete: false;
  created_at: string;
  updated_at: string;
  drafts: null;
}

export interface SubscriberEntry {
  id: string;
  distinct_id: string;
  created_at: string;
}

/** Interface 7: a missing list is a 404 in the extended shape. */
const listNotFound = (listId: string): HeraldError => HeraldError.notFound(`list_id: ${listId} not found`);

@Injectable()
export class ListStore {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Creates the list, or renames/redescribes it when it exists. */
  async upsert(ws: AuthenticatedWorkspace, body: ListUpsert): Promise<ListView> {
    // The id every /v1/subscriber_list/{list_id}/ route addresses afterwards (its schema checked the trimmed length).
    const listId = body.list_id.trim();
    return this.db.transaction(async (tx) => {
      const [row] = (await tx.query(
        `INSERT INTO audience.lists (workspace_id, list_id, list_name, list_description) VALUES ($1, $2, coalesce($3, $2), coalesce($4, ''))
         ON CONFLICT (workspace_id, list_id) DO UPDATE
           SET list_name = coalesce($3, audience.lists.list_name), list_description = coalesce($4, audience.lists.list_description), updated_at = now()
         RETURNING list_id, list_name, list_description, subscribers_count, created_at, updated_at`,
        [ws.id, listId, body.list_name ?? null, body.list_description ?? null],
      )) as ListRow[];
      const view = listView(row);
      await writeOutbox(tx, AUDIENCE_OUTBOX, [
        audienceChangedMessage(ws.id, { kind: 'list', change: 'upserted', workspace_slug: ws.slug, list_id: listId, list: { ...view } }, this.clock.now()),
      ]);
      return view;
    });
  }

  async read(ws: AuthenticatedWorkspace, listId: string, manager: EntityManager = this.db.manager): Promise<ListView> {
    return listView(await this.row(manager, ws, listId, false));
  }

  /** Lists of the workspace, newest first, with offset paging (reference `GET /v1/subscriber_list`). */
  async all(ws: AuthenticatedWorkspace, limit: number, offset: number): Promise<{ meta: { count: number; limit: number; offset: number }; results: ListView[] }> {
    const rows = (await this.db.query(
      `SELECT list_id, list_name, list_description, subscribers_count, created_at, updated_at, count(*) OVER ()::int AS total
         FROM audience.lists WHERE workspace_id = $1 ORDER BY created_at DESC, list_id LIMIT $2 OFFSET $3`,
      [ws.id, limit, offset],
    )) as Array<ListRow & { total: number }>;
    const count = rows[0]?.total ?? (await this.db.query(`SELECT count(*)::int AS n FROM audience.lists WHERE workspace_id = $1`, [ws.id]))[0].n;
    return { meta: { count, limit, offset }, results: rows.map(listView) };
  }

  /** Adds users (each once); answers how many were new. */
  async add(ws: AuthenticatedWorkspace, listId: string, body: ListMembers): Promise<number> {
    const ids = distinctIds(body);
    return this.db.transaction(async (tx) => {
      // The list row lock orders writers of one list, so the count stays exact.
      await this.row(tx, ws, listId, true);
      const added = returningRows<{ distinct_id: string }>(await tx.query(
        `INSERT INTO audience.list_subscribers (workspace_id, list_id, distinct_id)
         SELECT $1, $2, d FROM unnest($3::text[]) WITH ORDINALITY AS t(d, ord) ORDER BY ord
         ON CONFLICT (workspace_id, list_id, distinct_id) DO NOTHING RETURNING distinct_id`,
        [ws.id, listId, ids],
      ));
      await this.changed(tx, ws, listId, added.map((r) => r.distinct_id), []);
      return added.length;
    });
  }

  async remove(ws: AuthenticatedWorkspace, listId: string, body: ListMembers): Promise<number> {
    const ids = distinctIds(body);
    return this.db.transaction(async (tx) => {
      await this.row(tx, ws, listId, true);
      const gone = returningRows<{ distinct_id: string }>(await tx.query(
        `DELETE FROM audience.list_subscribers WHERE workspace_id = $1 AND list_id = $2 AND distinct_id = ANY($3::text[]) RETURNING distinct_id`,
        [ws.id, listId, ids],
      ));
      await this.changed(tx, ws, listId, [], gone.map((r) => r.distinct_id));
      return gone.length;
    });
  }

  async delete(ws: AuthenticatedWorkspace, listId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.row(tx, ws, listId, true);
      await tx.query(`DELETE FROM audience.lists WHERE workspace_id = $1 AND list_id = $2`, [ws.id, listId]);
      await writeOutbox(tx, AUDIENCE_OUTBOX, [
        audienceChangedMessage(ws.id, { kind: 'list', change: 'deleted', workspace_slug: ws.slug, list_id: listId }, this.clock.now()),
      ]);
    });
  }

  /** The lists a user is a member of, newest membership first (reference `GET /v1/user/{id}/subscribed_to/list/`), cursor-paged. */
  async listsOf(ws: AuthenticatedWorkspace, distinctId: string, query: CursorQuery): Promise<{ meta: CursorMeta; results: Array<{ list: ListView; created_at: string }> }> {
    const source = {
      from: `audience.list_subscribers s JOIN audience.lists l ON l.workspace_id = s.workspace_id AND l.list_id = s.list_id WHERE s.workspace_id = $1 AND s.distinct_id = $2`,
      params: [ws.id, distinctId],
      id: 's.id',
    };
    const page = await readCursorPage<ListRow & { id: string; joined_at: Date }>(
      this.db.manager,
      source,
      's.id::text AS id, s.created_at AS joined_at, l.list_id, l.list_name, l.list_description, l.subscribers_count, l.created_at, l.updated_at',
      query,
    );
    return { meta: page.meta, results: page.rows.map((row) => ({ list: listView(row), created_at: row.joined_at.toISOString() })) };
  }

  /** One page of members (interface 4.3), by the id that only grows (see readCursorPage). */
  async page(ws: AuthenticatedWorkspace, listId: string, query: CursorQuery): Promise<{ meta: CursorMeta; results: SubscriberEntry[] }> {
    const list = await this.row(this.db.manager, ws, listId, false);
    const source = { from: `audience.list_subscribers s WHERE s.workspace_id = $1 AND s.list_id = $2`, params: [ws.id, listId], id: 's.id' };
    const page = await readCursorPage<{ id: string; distinct_id: string; created_at: Date }>(
      this.db.manager,
      source,
      's.id::text AS id, s.distinct_id, s.created_at',
      query,
      list.subscribers_count,
    );
    return { meta: page.meta, results: page.rows.map((r) => ({ id: r.id, distinct_id: r.distinct_id, created_at: r.created_at.toISOString() })) };
  }

  async row(manager: EntityManager, ws: AuthenticatedWorkspace, listId: string, forUpdate: boolean): Promise<ListRow> {
    const [row] = (await manager.query(
      `SELECT list_id, list_name, list_description, subscribers_count, created_at, updated_at FROM audience.lists
        WHERE workspace_id = $1 AND list_id = $2 ${forUpdate ? 'FOR UPDATE' : ''}`,
      [ws.id, listId],
    )) as ListRow[];
    if (!row) throw listNotFound(listId);
    return row;
  }

  /** Keeps the count and announces a membership change, in the caller's transaction (the list row locked). */
  async changed(tx: EntityManager, ws: AuthenticatedWorkspace, listId: string, added: string[], removed: string[]): Promise<void> {
    if (added.length === 0 && removed.length === 0) return;
    await tx.query(`UPDATE audience.lists SET subscribers_count = subscribers_count + $3, updated_at = now() WHERE workspace_id = $1 AND list_id = $2`, [
      ws.id,
      listId,
      added.length - removed.length,
    ]);
    await writeOutbox(tx, AUDIENCE_OUTBOX, [
      audienceChangedMessage(ws.id, { kind: 'list_subscribers', workspace_slug: ws.slug, list_id: listId, added, removed }, this.clock.now()),
    ]);
  }
}

/** The members of an add or remove call, each once. */
export function distinctIds(body: ListMembers): string[] {
  return [...new Set(body.distinct_ids)];
}

export function listView(row: ListRow): ListView {
  return {
    list_id: row.list_id,
    list_name: row.list_name,
    list_description: row.list_description,
    list_type: 'static_list',
    subscribers_count: row.subscribers_count,
    source: null,
    is_readonly: false,
    status: 'active',
    track_user_entry: false,
    track_user_exit: false,
    requested_for_delete: false,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    drafts: null,
  };
}
