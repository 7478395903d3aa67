import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { returningRows } from '@herald/database';
import { OffsetPage } from '../http/offset-page';
import { MANAGEMENT_OUTBOX, credentialsChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

export interface ApiKeyRow {
  id: string;
  name: string;
  key_hint: string;
  key_hash: Buffer;
  created_at: Date;
  deleted_at: Date | null;
  expires_at: Date | null;
}

const COLUMNS = 'id, name, key_hint, key_hash, created_at, deleted_at, expires_at';
/** Keys expired per statement, so one sweep never holds many row locks. */
const EXPIRY_BATCH = 500;

/** The API keys of workspaces (hashes only); every change is announced on credentials.changed in its transaction. */
@Injectable()
export class ApiKeyStore {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(workspace: ScopedWorkspace, page: OffsetPage): Promise<{ count: number; rows: ApiKeyRow[] }> {
    const [{ count }] = (await this.db.query(
      `SELECT count(*)::int AS count FROM management.api_keys WHERE workspace_id = $1 AND deleted_at IS NULL`,
      [workspace.id],
    )) as Array<{ count: number }>;
    const rows = (await this.db.query(
      `SELECT ${COLUMNS} FROM management.api_keys
        WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY created_at, id LIMIT $2 OFFSET $3`,
      [workspace.id, page.limit, page.offset],
    )) as ApiKeyRow[];
    return { count, rows };
  }

  async create(workspace: ScopedWorkspace, name: string, keyHash: Buffer, keyHint: string, expiresAt: Date | null): Promise<ApiKeyRow> {
    return this.db.transaction(async (tx) => {
      const [created] = (await tx.query(
        `INSERT INTO management.api_keys (id, workspace_id, name, key_hash, key_hint, expires_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [randomUUID(), workspace.id, name, keyHash, keyHint, expiresAt],
      )) as ApiKeyRow[];
      await this.announce(tx, workspace, created, 'created');
      return created;
    });
  }

  /** Soft-deletes the key; false when the workspace has no such live key. */
  async remove(workspace: ScopedWorkspace, id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [row] = returningRows<ApiKeyRow>(
        await tx.query(
          `UPDATE management.api_keys SET deleted_at = now() WHERE id = $1 AND workspace_id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
          [id, workspace.id],
        ),
      );
      if (!row) return false;
      await this.announce(tx, workspace, row, 'deleted');
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
        const rows = returningRows<ApiKeyRow & { workspace_id: string; workspace_slug: string }>(
          await tx.query(
            `UPDATE management.api_keys k SET deleted_at = $1
               FROM management.workspaces w
              WHERE w.id = k.workspace_id
                AND k.id IN (SELECT id FROM management.api_keys
                              WHERE deleted_at IS NULL AND expires_at IS NOT NULL AND expires_at <= $1
                              ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
              RETURNING ${COLUMNS.split(', ').map((column) => `k.${column}`).join(', ')}, w.id AS workspace_id, w.slug AS workspace_slug`,
            [now, EXPIRY_BATCH],
          ),
        );
        if (rows.length > 0) {
          await writeOutbox(tx, MANAGEMENT_OUTBOX, rows.map((row) => this.announcement({ id: row.workspace_id, slug: row.workspace_slug }, row, 'deleted')));
        }
        return rows.length;
      });
      expired += batch;
      if (batch < EXPIRY_BATCH) break;
    }
    const [{ next }] = (await this.db.query(
      `SELECT min(expires_at) AS next FROM management.api_keys WHERE deleted_at IS NULL AND expires_at IS NOT NULL`,
    )) as Array<{ next: Date | null }>;
    return { expired, nextExpiry: next === null ? null : new Date(next) };
  }

  private announce(tx: EntityManager, workspace: ScopedWorkspace, row: ApiKeyRow, change: 'created' | 'deleted'): Promise<void> {
    return writeOutbox(tx, MANAGEMENT_OUTBOX, [this.announcement(workspace, row, change)]);
  }

  private announcement(workspace: ScopedWorkspace, row: ApiKeyRow, change: 'created' | 'deleted') {
    return credentialsChangedMessage(
      {
        kind: 'api_key',
        change,
        api_key_id: row.id,
        workspace_id: workspace.id,
        workspace_slug: workspace.slug,
        key_hash: row.key_hash.toString('hex'),
      },
      this.clock.now(),
    );
  }
}
