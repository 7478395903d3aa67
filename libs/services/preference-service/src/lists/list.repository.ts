import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';
import { HeraldError, JsonRecord } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { returningRows } from '@herald/database';
import { CLOCK, Clock } from '@herald/runtime';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { AUDIENCE_OUTBOX, audienceChangedMessage } from '../outbox/audience-events';
import { CursorMeta, CursorQuery, readCursorPage } from '../http/cursor-page';
import { sqlCursorRows } from '../persistence/cursor-rows.repository';
import { ListMembers, ListUpsert } from './request-bodies';

/** A workspace's subscriber list as stored. */
export interface SubscriberList {
  workspaceId: string;
  listId: string;
  listName: string;
  listDescription: string;
  /** Kept by every membership change, in its transaction. */
  subscribersCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A list's fields as its views read them. */
export type ListFields = Omit<SubscriberList, 'workspaceId'>;

/** A member of a list as stored: `id` (a bigint, as text) only grows, and is the page cursor. */
export interface ListMember {
  id: string;
  workspaceId: string;
  listId: string;
  distinctId: string;
  createdAt: Date;
}

/** `audience.lists` (created by the migrations, never by TypeORM). */
export const SubscriberListEntity = new EntitySchema<SubscriberList>({
  name: 'SubscriberList',
  schema: 'audience',
  tableName: 'lists',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    listId: { name: 'list_id', type: 'text', primary: true },
    listName: { name: 'list_name', type: 'text' },
    listDescription: { name: 'list_description', type: 'text' },
    subscribersCount: { name: 'subscribers_count', type: 'integer' },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
  },
});

/** `audience.list_subscribers` (created by the migrations, never by TypeORM). */
export const ListMemberEntity = new EntitySchema<ListMember>({
  name: 'ListMember',
  schema: 'audience',
  tableName: 'list_subscribers',
  columns: {
    id: { type: 'bigint', primary: true },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    listId: { name: 'list_id', type: 'text' },
    distinctId: { name: 'distinct_id', type: 'text' },
    createdAt: { name: 'created_at', type: 'timestamptz' },
  },
});

/** The tables of ListRepository, for AUDIENCE_ENTITIES. */
export const LIST_ENTITIES = [SubscriberListEntity, ListMemberEntity];

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

/** A member as a broadcast fans out to it: with its stored global profile and its profile in the broadcast's tenant (null where there is none). */
export interface BroadcastMember {
  /** The member's id (a bigint, as text): the fan-out's page cursor. */
  readonly id: string;
  readonly distinct_id: string;
  readonly global_properties: JsonRecord | null;
  readonly global_channels: Record<string, unknown[]> | null;
  readonly tenant_properties: JsonRecord | null;
  readonly tenant_channels: Record<string, unknown[]> | null;
}

export interface SubscriberEntry {
  id: string;
  distinct_id: string;
  created_at: string;
}

/** The list's columns under their field names, for the hand-written statements and pages. */
const LIST_FIELDS = (alias: string): string =>
  `${alias}list_id AS "listId", ${alias}list_name AS "listName", ${alias}list_description AS "listDescription", ${alias}subscribers_count AS "subscribersCount", ${alias}created_at AS "createdAt", ${alias}updated_at AS "updatedAt"`;

/** Interface 7: a missing list is a 404 in the extended shape. */
const listNotFound = (listId: string): HeraldError => HeraldError.notFound(`list_id: ${listId} not found`);

/** Subscriber lists and their members; every change is announced (`audience.changed`) in its transaction. */
@Injectable()
export class ListRepository {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Creates the list, or renames/redescribes it when it exists. */
  async upsert(ws: AuthenticatedWorkspace, body: ListUpsert): Promise<ListView> {
    // The id every /v1/subscriber_list/{list_id}/ route addresses afterwards (its schema checked the trimmed length).
    const listId = body.list_id.trim();
    return this.db.transaction(async (tx) => {
      // Hand-written: one upsert that keeps the stored name and description where the body leaves them out.
      const [row] = returningRows<ListFields>(
        await tx.query(
          `INSERT INTO audience.lists (workspace_id, list_id, list_name, list_description) VALUES ($1, $2, coalesce($3, $2), coalesce($4, ''))
           ON CONFLICT (workspace_id, list_id) DO UPDATE
             SET list_name = coalesce($3, audience.lists.list_name), list_description = coalesce($4, audience.lists.list_description), updated_at = now()
           RETURNING ${LIST_FIELDS('')}`,
          [ws.id, listId, body.list_name ?? null, body.list_description ?? null],
        ),
      );
      const view = listView(row);
      await writeOutbox(tx, AUDIENCE_OUTBOX, [
        audienceChangedMessage(ws.id, { kind: 'list', change: 'upserted', workspace_slug: ws.slug, list_id: listId, list: { ...view } }, this.clock.now()),
      ]);
      return view;
    });
  }

  async read(ws: AuthenticatedWorkspace, listId: string, manager: EntityManager = this.db.manager): Promise<ListView> {
    return listView(await this.list(manager, ws, listId, false));
  }

  /** Lists of the workspace, newest first, with offset paging (reference `GET /v1/subscriber_list`). */
  async all(ws: AuthenticatedWorkspace, limit: number, offset: number): Promise<{ meta: { count: number; limit: number; offset: number }; results: ListView[] }> {
    const [lists, count] = await this.lists().findAndCount({
      where: { workspaceId: ws.id },
      order: { createdAt: 'DESC', listId: 'ASC' },
      take: limit,
      skip: offset,
    });
    return { meta: { count, limit, offset }, results: lists.map(listView) };
  }

  /** Adds users (each once); answers how many were new. */
  async add(ws: AuthenticatedWorkspace, listId: string, body: ListMembers): Promise<number> {
    const ids = distinctIds(body);
    return this.db.transaction(async (tx) => {
      // The list row lock orders writers of one list, so the count stays exact.
      await this.list(tx, ws, listId, true);
      // Hand-written: up to 10,000 members as one array parameter, given ids (the page cursor) in the call's order.
      const added = returningRows<{ distinct_id: string }>(
        await tx.query(
          `INSERT INTO audience.list_subscribers (workspace_id, list_id, distinct_id)
           SELECT $1, $2, d FROM unnest($3::text[]) WITH ORDINALITY AS t(d, ord) ORDER BY ord
           ON CONFLICT (workspace_id, list_id, distinct_id) DO NOTHING RETURNING distinct_id`,
          [ws.id, listId, ids],
        ),
      );
      await this.changed(tx, ws, listId, added.map((r) => r.distinct_id), []);
      return added.length;
    });
  }

  async remove(ws: AuthenticatedWorkspace, listId: string, body: ListMembers): Promise<number> {
    const ids = distinctIds(body);
    return this.db.transaction(async (tx) => {
      await this.list(tx, ws, listId, true);
      const deleted = await this.members(tx)
        .createQueryBuilder()
        .delete()
        .where('workspace_id = :workspaceId AND list_id = :listId AND distinct_id = ANY(:ids)', { workspaceId: ws.id, listId, ids })
        .returning(['distinctId'])
        .execute();
      const gone = returningRows<{ distinct_id: string }>(deleted.raw);
      await this.changed(tx, ws, listId, [], gone.map((r) => r.distinct_id));
      return gone.length;
    });
  }

  async delete(ws: AuthenticatedWorkspace, listId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.list(tx, ws, listId, true);
      // Its members and drafts go with it (ON DELETE CASCADE).
      await this.lists(tx).delete({ workspaceId: ws.id, listId });
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
    const page = await readCursorPage(sqlCursorRows<ListFields & { joinedAt: Date }>(this.db.manager, source, `s.created_at AS "joinedAt", ${LIST_FIELDS('l.')}`), query);
    return { meta: page.meta, results: page.rows.map((row) => ({ list: listView(row), created_at: row.joinedAt.toISOString() })) };
  }

  /** One page of members (interface 4.3), by the id that only grows (see readCursorPage). */
  async page(ws: AuthenticatedWorkspace, listId: string, query: CursorQuery): Promise<{ meta: CursorMeta; results: SubscriberEntry[] }> {
    const list = await this.list(this.db.manager, ws, listId, false);
    const source = { from: `audience.list_subscribers s WHERE s.workspace_id = $1 AND s.list_id = $2`, params: [ws.id, listId], id: 's.id' };
    const page = await readCursorPage(
      sqlCursorRows<{ id: string; distinct_id: string; created_at: Date }>(this.db.manager, source, 's.id::text AS id, s.distinct_id, s.created_at'),
      query,
      list.subscribersCount,
    );
    return { meta: page.meta, results: page.rows.map((r) => ({ id: r.id, distinct_id: r.distinct_id, created_at: r.created_at.toISOString() })) };
  }

  /** How many members the list has, counted (not the kept count); 0 for a list that does not exist. */
  async memberCount(workspaceId: string, listId: string): Promise<number> {
    return this.members(this.db.manager).count({ where: { workspaceId, listId } });
  }

  /**
   * Up to `limit` members of the list after the member id `after` (a bigint as text, '0'
   * from the start), by id, each with its stored profile: the global one and the one in
   * `tenantId` ('' for none: the global one again). None for a list that does not exist.
   */
  async broadcastMembers(workspaceId: string, listId: string, tenantId: string, after: string, limit: number): Promise<BroadcastMember[]> {
    // Hand-written: the members joined to two rows of audience.profiles (ProfileRepository's table, with no entity yet) in one statement.
    return returningRows<BroadcastMember>(
      await this.db.query(
        `SELECT m.id::text AS id, m.distinct_id, g.properties AS global_properties, g.channels AS global_channels, t.properties AS tenant_properties, t.channels AS tenant_channels
           FROM audience.list_subscribers m
           LEFT JOIN audience.profiles g ON g.workspace_id = m.workspace_id AND g.subject_type = 'user' AND g.object_type = '' AND g.subject_id = m.distinct_id AND g.tenant_id = ''
           LEFT JOIN audience.profiles t ON t.workspace_id = m.workspace_id AND t.subject_type = 'user' AND t.object_type = '' AND t.subject_id = m.distinct_id AND t.tenant_id = $4
          WHERE m.workspace_id = $1 AND m.list_id = $2 AND m.id > $3::bigint ORDER BY m.id LIMIT $5`,
        [workspaceId, listId, after, tenantId, limit],
      ),
    );
  }

  /** The list (locked for update in the caller's transaction when asked); 404 when the workspace has none by this id. */
  async list(manager: EntityManager, ws: AuthenticatedWorkspace, listId: string, forUpdate: boolean): Promise<SubscriberList> {
    const list = await this.lists(manager).findOne({ where: { workspaceId: ws.id, listId }, ...(forUpdate ? { lock: { mode: 'pessimistic_write' } } : {}) });
    if (!list) throw listNotFound(listId);
    return list;
  }

  /** Keeps the count and announces a membership change, in the caller's transaction (the list row locked). */
  async changed(tx: EntityManager, ws: AuthenticatedWorkspace, listId: string, added: string[], removed: string[]): Promise<void> {
    if (added.length === 0 && removed.length === 0) return;
    await this.lists(tx)
      .createQueryBuilder()
      .update()
      .set({ subscribersCount: () => 'subscribers_count + :delta', updatedAt: () => 'now()' })
      .where({ workspaceId: ws.id, listId })
      .setParameter('delta', added.length - removed.length)
      .execute();
    await writeOutbox(tx, AUDIENCE_OUTBOX, [
      audienceChangedMessage(ws.id, { kind: 'list_subscribers', workspace_slug: ws.slug, list_id: listId, added, removed }, this.clock.now()),
    ]);
  }

  private lists(manager: EntityManager = this.db.manager): Repository<SubscriberList> {
    return manager.getRepository(SubscriberListEntity);
  }

  private members(manager: EntityManager): Repository<ListMember> {
    return manager.getRepository(ListMemberEntity);
  }
}

/** The members of an add or remove call, each once. */
export function distinctIds(body: ListMembers): string[] {
  return [...new Set(body.distinct_ids)];
}

export function listView(list: ListFields): ListView {
  return {
    list_id: list.listId,
    list_name: list.listName,
    list_description: list.listDescription,
    list_type: 'static_list',
    subscribers_count: list.subscribersCount,
    source: null,
    is_readonly: false,
    status: 'active',
    track_user_entry: false,
    track_user_exit: false,
    requested_for_delete: false,
    created_at: list.createdAt.toISOString(),
    updated_at: list.updatedAt.toISOString(),
    drafts: null,
  };
}
