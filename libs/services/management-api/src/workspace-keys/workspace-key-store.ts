import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock, SecretBox, generateCredential } from '@herald/runtime';
import { returningRows } from '@herald/database';
import { SECRETS_KEY } from '../accounts/secrets-key';
import { OffsetPage } from '../http/offset-page';
import { MANAGEMENT_OUTBOX, credentialsChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

interface WorkspaceKeyRow {
  id: string;
  name: string;
  key: string;
  secret_sealed: Buffer;
  is_default: boolean;
  is_active: boolean;
  is_deleted: boolean;
  allowed_domains: string[];
  created_at: Date;
  created_by: unknown;
  rotated_at: Date | null;
  rotated_by: unknown;
  deleted_at: Date | null;
  deleted_by: unknown;
}

export interface WorkspaceKeyView extends Omit<WorkspaceKeyRow, 'secret_sealed'> {
  readonly secret: string;
}

const COLUMNS = `id, name, key, secret_sealed, is_default, is_active, is_deleted, allowed_domains, created_at, created_by,
                 rotated_at, rotated_by, deleted_at, deleted_by`;

/**
 * Workspace key/secret pairs. The interface returns the secret in full on every
 * response, so it is stored sealed (not hashed) and opened only to answer; every
 * change is announced on credentials.changed in its transaction.
 */
@Injectable()
export class WorkspaceKeyStore {
  private readonly box: SecretBox;

  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(SECRETS_KEY) secretsKey: Buffer,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.box = new SecretBox(secretsKey);
  }

  async list(workspace: ScopedWorkspace, page: OffsetPage): Promise<{ count: number; keys: WorkspaceKeyView[] }> {
    const [{ count }] = (await this.db.query(
      `SELECT count(*)::int AS count FROM management.workspace_keys WHERE workspace_id = $1 AND NOT is_deleted`,
      [workspace.id],
    )) as Array<{ count: number }>;
    const rows = (await this.db.query(
      `SELECT ${COLUMNS} FROM management.workspace_keys WHERE workspace_id = $1 AND NOT is_deleted
        ORDER BY created_at, id LIMIT $2 OFFSET $3`,
      [workspace.id, page.limit, page.offset],
    )) as WorkspaceKeyRow[];
    return { count, keys: rows.map((row) => this.view(row)) };
  }

  async create(workspace: ScopedWorkspace, name: string, allowedDomains: readonly string[]): Promise<WorkspaceKeyView> {
    const id = randomUUID();
    const sealed = this.box.seal(generateCredential('hws'), `workspace_key:${id}`);
    const row = await this.db.transaction(async (tx) => {
      const [created] = (await tx.query(
        `INSERT INTO management.workspace_keys (id, workspace_id, name, key, secret_sealed, allowed_domains)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING ${COLUMNS}`,
        [id, workspace.id, name, generateCredential('hwk', 18), sealed, JSON.stringify(allowedDomains)],
      )) as WorkspaceKeyRow[];
      await this.announce(tx, workspace, created, 'created');
      return created;
    });
    return this.view(row);
  }

  /** A new secret for the same key; undefined when the workspace has no such live key. */
  async rotate(workspace: ScopedWorkspace, id: string): Promise<WorkspaceKeyView | undefined> {
    const sealed = this.box.seal(generateCredential('hws'), `workspace_key:${id}`);
    const row = await this.db.transaction(async (tx) => {
      const [updated] = returningRows<WorkspaceKeyRow>(
        await tx.query(
          `UPDATE management.workspace_keys SET secret_sealed = $3, rotated_at = now()
            WHERE id = $1 AND workspace_id = $2 AND NOT is_deleted RETURNING ${COLUMNS}`,
          [id, workspace.id, sealed],
        ),
      );
      if (updated) await this.announce(tx, workspace, updated, 'rotated');
      return updated;
    });
    return row ? this.view(row) : undefined;
  }

  /** Soft-deletes the key; false when the workspace has no such live key. */
  async remove(workspace: ScopedWorkspace, id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [row] = returningRows<WorkspaceKeyRow>(
        await tx.query(
          `UPDATE management.workspace_keys SET is_deleted = true, is_active = false, deleted_at = now()
            WHERE id = $1 AND workspace_id = $2 AND NOT is_deleted RETURNING ${COLUMNS}`,
          [id, workspace.id],
        ),
      );
      if (!row) return false;
      await this.announce(tx, workspace, row, 'deleted');
      return true;
    });
  }

  private announce(tx: EntityManager, workspace: ScopedWorkspace, row: WorkspaceKeyRow, change: 'created' | 'rotated' | 'deleted'): Promise<void> {
    return writeOutbox(tx, MANAGEMENT_OUTBOX, [
      credentialsChangedMessage(
        {
          kind: 'workspace_key',
          change,
          workspace_key_id: row.id,
          workspace_id: workspace.id,
          workspace_slug: workspace.slug,
          key: row.key,
          secret_sealed: change === 'deleted' ? undefined : row.secret_sealed.toString('base64'),
        },
        this.clock.now(),
      ),
    ]);
  }

  private view({ secret_sealed, ...row }: WorkspaceKeyRow): WorkspaceKeyView {
    return { ...row, secret: this.box.open(secret_sealed, `workspace_key:${row.id}`) };
  }
}
