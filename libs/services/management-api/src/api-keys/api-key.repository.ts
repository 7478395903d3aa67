import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, EntitySchema, IsNull, Not, Repository } from 'typeorm';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { returningRows } from '@herald/database';
import { OffsetPage } from '../http/offset-page';
import { MANAGEMENT_OUTBOX, credentialsChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

/** A workspace's API key as stored: its hash only, never the key. */
export interface ApiKey {
  id: string;
  workspaceId: string;
  name: string;
  keyHash: Buffer;
  /** The key's first characters and a mask, shown in lists. */
  keyHint: string;
  createdAt: Date;
  deletedAt: Date | null;
  expiresAt: Date | null;
  /** Only GET and HEAD on `{base_url}`: a console viewer's key, or one minted for a dashboard. */
  readOnly: boolean;
}

/** `management.api_keys` (created by the migrations, never by TypeORM): each column typed once, here. */
export const ApiKeyEntity = new EntitySchema<ApiKey>({
  name: 'ApiKey',
  schema: 'management',
  tableName: 'api_keys',
  columns: {
    id: { type: 'uuid', primary: true },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    name: { type: 'text' },
    keyHash: { name: 'key_hash', type: 'bytea' },
    keyHint: { name: 'key_hint', type: 'text' },
    // The database's default (the transaction's now()), read back by the insert.
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
    deletedAt: { name: 'deleted_at', type: 'timestamptz', nullable: true },
    expiresAt: { name: 'expires_at', type: 'timestamptz', nullable: true },
    readOnly: { name: 'read_only', type: 'boolean' },
  },
});

/** A key the expiry sweep deleted, with the workspace its announcement names. */
interface ExpiredKeyRow {
  id: string;
  key_hash: Buffer;
  workspace_id: string;
  workspace_slug: string;
}

/** Keys expired per statement, so one sweep never holds many row locks. */
const EXPIRY_BATCH = 500;

/** The API keys of workspaces (hashes only); every change is announced on credentials.changed in its transaction. */
@Injectable()
export class ApiKeyRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** A page of the workspace's live keys, oldest first, and how many it has in all. */
  async listLive(workspace: ScopedWorkspace, page: OffsetPage): Promise<{ count: number; keys: ApiKey[] }> {
    const [keys, count] = await this.keys().findAndCount({
      where: { workspaceId: workspace.id, deletedAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { count, keys };
  }

  /** In `tx` when given (the first start's, which makes the account and its keys together), else in a transaction of its own. */
  async create(workspace: ScopedWorkspace, name: string, keyHash: Buffer, keyHint: string, expiresAt: Date | null, readOnly = false, tx?: EntityManager): Promise<ApiKey> {
    const work = async (manager: EntityManager): Promise<ApiKey> => {
      const key: Omit<ApiKey, 'createdAt'> = { id: randomUUID(), workspaceId: workspace.id, name, keyHash, keyHint, deletedAt: null, expiresAt, readOnly };
      // The insert reads back the columns the database fills (created_at) into `created`.
      const created = this.keys(manager).create(key);
      await this.keys(manager).insert(created);
      await this.announce(manager, workspace, created, 'created');
      return created;
    };
    return tx ? work(tx) : this.db.transaction(work);
  }

  /** Soft-deletes the key; false when the workspace has no such live key. */
  async remove(workspace: ScopedWorkspace, id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // Locked, so of two concurrent removals only one finds the key live and announces it.
      const key = await this.keys(tx).findOne({ where: { id, workspaceId: workspace.id, deletedAt: IsNull() }, lock: { mode: 'pessimistic_write' } });
      if (!key) return false;
      await this.keys(tx).update({ id: key.id }, { deletedAt: () => 'now()' });
      await this.announce(tx, workspace, key, 'deleted');
      return true;
    });
  }

  /**
   * Deletes the live keys whose `expires_at` has passed, announcing each as a deletion (so
   * every service stops accepting it), a batch at a time; answers how many, and when the
   * next live key expires. Replicas sweeping at once skip each other's rows.
   */
  async expireDue(): Promise<{ expired: number; nextExpiry: Date | null }> {
    const now = this.clock.now();
    let expired = 0;
    for (;;) {
      const batch = await this.db.transaction(async (tx) => {
        const keys = await this.deleteExpiredBatch(tx, now);
        if (keys.length > 0) {
          await writeOutbox(
            tx,
            MANAGEMENT_OUTBOX,
            keys.map((key) => this.announcement({ id: key.workspace_id, slug: key.workspace_slug }, key.id, key.key_hash, 'deleted')),
          );
        }
        return keys.length;
      });
      expired += batch;
      if (batch < EXPIRY_BATCH) break;
    }
    const next = await this.keys().findOne({
      select: { id: true, expiresAt: true },
      where: { deletedAt: IsNull(), expiresAt: Not(IsNull()) },
      order: { expiresAt: 'ASC' },
    });
    return { expired, nextExpiry: next?.expiresAt ?? null };
  }

  /**
   * Hand-written: one statement claims a batch of due keys (skipping rows another replica
   * holds), deletes them and names each one's workspace for its announcement.
   */
  private async deleteExpiredBatch(tx: EntityManager, now: Date): Promise<ExpiredKeyRow[]> {
    return returningRows<ExpiredKeyRow>(
      await tx.query(
        `UPDATE management.api_keys k SET deleted_at = $1
           FROM management.workspaces w
          WHERE w.id = k.workspace_id
            AND k.id IN (SELECT id FROM management.api_keys
                          WHERE deleted_at IS NULL AND expires_at IS NOT NULL AND expires_at <= $1
                          ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
          RETURNING k.id, k.key_hash, w.id AS workspace_id, w.slug AS workspace_slug`,
        [now, EXPIRY_BATCH],
      ),
    );
  }

  private keys(manager: EntityManager = this.db.manager): Repository<ApiKey> {
    return manager.getRepository(ApiKeyEntity);
  }

  private announce(tx: EntityManager, workspace: ScopedWorkspace, key: Pick<ApiKey, 'id' | 'keyHash' | 'readOnly'>, change: 'created' | 'deleted'): Promise<void> {
    return writeOutbox(tx, MANAGEMENT_OUTBOX, [this.announcement(workspace, key.id, key.keyHash, change, key.readOnly)]);
  }

  private announcement(workspace: ScopedWorkspace, apiKeyId: string, keyHash: Buffer, change: 'created' | 'deleted', readOnly = false) {
    return credentialsChangedMessage(
      {
        kind: 'api_key',
        change,
        api_key_id: apiKeyId,
        workspace_id: workspace.id,
        workspace_slug: workspace.slug,
        key_hash: keyHash.toString('hex'),
        ...(readOnly ? { read_only: true } : {}),
      },
      this.clock.now(),
    );
  }
}
