import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { ListRow, ListStore, ListView, distinctIds, listView } from './list-store';
import { ListMembers } from './request-bodies';

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
export class ListVersionStore {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    private readonly lists: ListStore,
  ) {}

  async start(ws: AuthenticatedWorkspace, listId: string): Promise<ListVersionView> {
    return this.db.transaction(async (tx) => {
      const list = await this.lists.row(tx, ws, listId, false);
      const versionId = newVersionId();
      await tx.query(`INSERT INTO audience.list_versions (workspace_id, list_id, version_id) VALUES ($1, $2, $3)`, [ws.id, listId, versionId]);
      return draftView(list, versionId, 0);
    });
  }

  async read(ws: AuthenticatedWorkspace, listId: string, versionId: string): Promise<ListVersionView> {
    const list = await this.lists.row(this.db.manager, ws, listId, false);
    await this.version(this.db.manager, ws, listId, versionId, false);
    return draftView(list, versionId, await this.count(this.db.manager, ws, listId, versionId));
  }

  /** Adds users to the draft (each once); answers how many were new. */
  async add(ws: AuthenticatedWorkspace, listId: string, versionId: string, body: ListMembers): Promise<number> {
    const ids = distinctIds(body);
    return this.db.transaction(async (tx) => {
      await this.version(tx, ws, listId, versionId, true);
      const added = returningRows<{ distinct_id: string }>(await tx.query(
        `INSERT INTO audience.list_version_subscribers (workspace_id, list_id, version_id, distinct_id)
         SELECT $1, $2, $3, d FROM unnest($4::text[]) AS t(d) ON CONFLICT DO NOTHING RETURNING distinct_id`,
        [ws.id, listId, versionId, ids],
      ));
      return added.length;
    });
  }

  async remove(ws: AuthenticatedWorkspace, listId: string, versionId: string, body: ListMembers): Promise<number> {
    const ids = distinctIds(body);
    return this.db.transaction(async (tx) => {
      await this.version(tx, ws, listId, versionId, true);
      const gone = returningRows<{ distinct_id: string }>(await tx.query(
        `DELETE FROM audience.list_version_subscribers WHERE workspace_id = $1 AND list_id = $2 AND version_id = $3 AND distinct_id = ANY($4::text[]) RETURNING distinct_id`,
        [ws.id, listId, versionId, ids],
      ));
      return gone.length;
    });
  }

  /** Replaces the list's members by the draft's and drops the draft; the list as it now is. */
  async finish(ws: AuthenticatedWorkspace, listId: string, versionId: string): Promise<ListVersionView> {
    return this.db.transaction(async (tx) => {
      await this.lists.row(tx, ws, listId, true);
      await this.version(tx, ws, listId, versionId, true);
      const removed = returningRows<{ distinct_id: string }>(await tx.query(
        `DELETE FROM audience.list_subscribers s WHERE s.workspace_id = $1 AND s.list_id = $2
            AND NOT EXISTS (SELECT 1 FROM audience.list_version_subscribers v
                             WHERE v.workspace_id = $1 AND v.list_id = $2 AND v.version_id = $3 AND v.distinct_id = s.distinct_id)
         RETURNING s.distinct_id`,
        [ws.id, listId, versionId],
      ));
      const added = returningRows<{ distinct_id: string }>(await tx.query(
        `INSERT INTO audience.list_subscribers (workspace_id, list_id, distinct_id)
         SELECT workspace_id, list_id, distinct_id FROM audience.list_version_subscribers
          WHERE workspace_id = $1 AND list_id = $2 AND version_id = $3 ORDER BY distinct_id
         ON CONFLICT (workspace_id, list_id, distinct_id) DO NOTHING RETURNING distinct_id`,
        [ws.id, listId, versionId],
      ));
      await tx.query(`DELETE FROM audience.list_versions WHERE workspace_id = $1 AND list_id = $2 AND version_id = $3`, [ws.id, listId, versionId]);
      await this.lists.changed(tx, ws, listId, added.map((r) => r.distinct_id), removed.map((r) => r.distinct_id));
      const list = await this.lists.row(tx, ws, listId, false);
      return { ...listView(list), version_id: null };
    });
  }

  async delete(ws: AuthenticatedWorkspace, listId: string, versionId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.lists.row(tx, ws, listId, false);
      await this.version(tx, ws, listId, versionId, true);
      await tx.query(`DELETE FROM audience.list_versions WHERE workspace_id = $1 AND list_id = $2 AND version_id = $3`, [ws.id, listId, versionId]);
    });
  }

  private async version(manager: EntityManager, ws: AuthenticatedWorkspace, listId: string, versionId: string, forUpdate: boolean): Promise<void> {
    const rows = (await manager.query(
      `SELECT 1 FROM audience.list_versions WHERE workspace_id = $1 AND list_id = $2 AND version_id = $3 ${forUpdate ? 'FOR UPDATE' : ''}`,
      [ws.id, listId, versionId],
    )) as unknown[];
    if (rows.length === 0) {
      // A missing list is named as such, not as a missing version.
      await this.lists.row(manager, ws, listId, false);
      throw versionNotFound(listId, versionId);
    }
  }

  private async count(manager: EntityManager, ws: AuthenticatedWorkspace, listId: string, versionId: string): Promise<number> {
    const [{ n }] = (await manager.query(
      `SELECT count(*)::int AS n FROM audience.list_version_subscribers WHERE workspace_id = $1 AND list_id = $2 AND version_id = $3`,
      [ws.id, listId, versionId],
    )) as Array<{ n: number }>;
    return n;
  }
}

function draftView(list: ListRow, versionId: string, members: number): ListVersionView {
  return { ...listView(list), status: 'draft', subscribers_count: members, version_id: versionId };
}
