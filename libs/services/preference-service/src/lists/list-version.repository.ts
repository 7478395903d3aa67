import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { ListFields, ListRepository, ListView, distinctIds, listView } from './list.repository';
import { ListMembers } from './request-bodies';

/** A draft version of a list, as stored. */
export interface ListVersion {
  workspaceId: string;
  listId: string;
  versionId: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A member of a draft version, as stored. */
export interface ListVersionMember {
  workspaceId: string;
  listId: string;
  versionId: string;
  distinctId: string;
}

/** `audience.list_versions` (created by the migrations, never by TypeORM). */
export const ListVersionEntity = new EntitySchema<ListVersion>({
  name: 'ListVersion',
  schema: 'audience',
  tableName: 'list_versions',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    listId: { name: 'list_id', type: 'text', primary: true },
    versionId: { name: 'version_id', type: 'text', primary: true },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
  },
});

/** `audience.list_version_subscribers` (created by the migrations, never by TypeORM). */
export const ListVersionMemberEntity = new EntitySchema<ListVersionMember>({
  name: 'ListVersionMember',
  schema: 'audience',
  tableName: 'list_version_subscribers',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    listId: { name: 'list_id', type: 'text', primary: true },
    versionId: { name: 'version_id', type: 'text', primary: true },
    distinctId: { name: 'distinct_id', type: 'text', primary: true },
  },
});

/** The tables of ListVersionRepository, for AUDIENCE_ENTITIES. */
export const LIST_VERSION_ENTITIES = [ListVersionEntity, ListVersionMemberEntity];

/** A list as a draft version shows it: its members are the draft's. */
export type ListVersionView = Omit<ListView, 'status'> & { status: 'draft' | 'active'; version_id: string | null };

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** 26 characters of Crockford base32, the shape of the reference's version ids. */
function newVersionId(): string {
  return [...randomBytes(26)].map((byte) => CROCKFORD[byte % 32]).join('');
}

const versionNotFound = (listId: string, versionId: string): HeraldError => HeraldError.notFound(`version_id ${versionId} not found for list_id ${listId}`);

/**
 * Draft versions of a list (reference `start_sync` ... `finish_sync`): members are
 * collected into a draft, and finishing the sync makes the draft the list's members
 * in one transaction (the list row locked, as every membership change takes it), so
 * a broadcast sees either the old members or the new ones, never a mix.
 */
@Injectable()
export class ListVersionRepository {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    private readonly lists: ListRepository,
  ) {}

  async start(ws: AuthenticatedWorkspace, listId: string): Promise<ListVersionView> {
    return this.db.transaction(async (tx) => {
      const list = await this.lists.list(tx, ws, listId, false);
      const versionId = newVersionId();
      // created_at and updated_at are the database's defaults.
      await this.versions(tx).insert({ workspaceId: ws.id, listId, versionId });
      return draftView(list, versionId, 0);
    });
  }

  async read(ws: AuthenticatedWorkspace, listId: string, versionId: string): Promise<ListVersionView> {
    const list = await this.lists.list(this.db.manager, ws, listId, false);
    await this.version(this.db.manager, ws, listId, versionId, false);
    return draftView(list, versionId, await this.versionMembers(this.db.manager).countBy({ workspaceId: ws.id, listId, versionId }));
  }

  /** Adds users to the draft (each once); answers how many were new. */
  async add(ws: AuthenticatedWorkspace, listId: string, versionId: string, body: ListMembers): Promise<number> {
    const ids = distinctIds(body);
    return this.db.transaction(async (tx) => {
      await this.version(tx, ws, listId, versionId, true);
      // Hand-written: up to 10,000 members as one array parameter.
      const added = returningRows<{ distinct_id: string }>(
        await tx.query(
          `INSERT INTO audience.list_version_subscribers (workspace_id, list_id, version_id, distinct_id)
           SELECT $1, $2, $3, d FROM unnest($4::text[]) AS t(d) ON CONFLICT DO NOTHING RETURNING distinct_id`,
          [ws.id, listId, versionId, ids],
        ),
      );
      return added.length;
    });
  }

  async remove(ws: AuthenticatedWorkspace, listId: string, versionId: string, body: ListMembers): Promise<number> {
    const ids = distinctIds(body);
    return this.db.transaction(async (tx) => {
      await this.version(tx, ws, listId, versionId, true);
      const deleted = await this.versionMembers(tx)
        .createQueryBuilder()
        .delete()
        .where('workspace_id = :workspaceId AND list_id = :listId AND version_id = :versionId AND distinct_id = ANY(:ids)', { workspaceId: ws.id, listId, versionId, ids })
        .returning(['distinctId'])
        .execute();
      return returningRows<{ distinct_id: string }>(deleted.raw).length;
    });
  }

  /** Replaces the list's members by the draft's and drops the draft; the list as it now is. */
  async finish(ws: AuthenticatedWorkspace, listId: string, versionId: string): Promise<ListVersionView> {
    return this.db.transaction(async (tx) => {
      await this.lists.list(tx, ws, listId, true);
      await this.version(tx, ws, listId, versionId, true);
      // Hand-written, both: the members the draft lacks, and those it adds, each in one statement in the database however many there are.
      const removed = returningRows<{ distinct_id: string }>(
        await tx.query(
          `DELETE FROM audience.list_subscribers s WHERE s.workspace_id = $1 AND s.list_id = $2
              AND NOT EXISTS (SELECT 1 FROM audience.list_version_subscribers v
                               WHERE v.workspace_id = $1 AND v.list_id = $2 AND v.version_id = $3 AND v.distinct_id = s.distinct_id)
           RETURNING s.distinct_id`,
          [ws.id, listId, versionId],
        ),
      );
      const added = returningRows<{ distinct_id: string }>(
        await tx.query(
          `INSERT INTO audience.list_subscribers (workspace_id, list_id, distinct_id)
           SELECT workspace_id, list_id, distinct_id FROM audience.list_version_subscribers
            WHERE workspace_id = $1 AND list_id = $2 AND version_id = $3 ORDER BY distinct_id
           ON CONFLICT (workspace_id, list_id, distinct_id) DO NOTHING RETURNING distinct_id`,
          [ws.id, listId, versionId],
        ),
      );
      await this.versions(tx).delete({ workspaceId: ws.id, listId, versionId });
      await this.lists.changed(tx, ws, listId, added.map((r) => r.distinct_id), removed.map((r) => r.distinct_id));
      const list = await this.lists.list(tx, ws, listId, false);
      return { ...listView(list), version_id: null };
    });
  }

  async delete(ws: AuthenticatedWorkspace, listId: string, versionId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.lists.list(tx, ws, listId, false);
      await this.version(tx, ws, listId, versionId, true);
      // Its members go with it (ON DELETE CASCADE).
      await this.versions(tx).delete({ workspaceId: ws.id, listId, versionId });
    });
  }

  /** Throws unless the draft exists (locked for update in the caller's transaction when asked). */
  private async version(manager: EntityManager, ws: AuthenticatedWorkspace, listId: string, versionId: string, forUpdate: boolean): Promise<void> {
    const found = await this.versions(manager).findOne({
      select: { versionId: true },
      where: { workspaceId: ws.id, listId, versionId },
      ...(forUpdate ? { lock: { mode: 'pessimistic_write' } } : {}),
    });
    if (!found) {
      // A missing list is named as such, not as a missing version.
      await this.lists.list(manager, ws, listId, false);
      throw versionNotFound(listId, versionId);
    }
  }

  private versions(manager: EntityManager): Repository<ListVersion> {
    return manager.getRepository(ListVersionEntity);
  }

  private versionMembers(manager: EntityManager): Repository<ListVersionMember> {
    return manager.getRepository(ListVersionMemberEntity);
  }
}

function draftView(list: ListFields, versionId: string, members: number): ListVersionView {
  return { ...listView(list), status: 'draft', subscribers_count: members, version_id: versionId };
}
