import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { HeraldError, normalizeOrigin } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock, hashToken } from '@herald/runtime';
import { MANAGEMENT_OUTBOX, credentialsChangedMessage } from '../management-events/management-events';
import { OffsetPage } from '../http/offset-page';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

export interface PublicKeyRow {
  id: string;
  api_key: string;
  name: string;
  allowed_domains: string[] | null;
  is_secure_mode_enabled: boolean;
  created_at: Date;
  updated_at: Date;
  rotated_at: Date | null;
  deleted_at: Date | null;
}

const COLUMNS = 'id, api_key, name, allowed_domains, is_secure_mode_enabled, created_at, updated_at, rotated_at, deleted_at';

/** What a create or an update sets; `allowed_domains` undefined leaves them as they are. */
export interface PublicKeyChanges {
  readonly name?: string;
  readonly description?: string | null;
  readonly allowed_domains?: readonly string[] | null;
}

/**
 * Workspace public keys: what a web page ships to call the browser inbox. Every change
 * is announced on notify.credentials.changed.v1 in the same transaction (as a hash, with
 * the allowed origins), so channel-dispatchers' read model follows.
 */
@Injectable()
export class PublicKeyStore {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(workspace: ScopedWorkspace, page: OffsetPage): Promise<{ count: number; rows: PublicKeyRow[] }> {
    const [{ count }] = (await this.db.query(
      `SELECT count(*)::int AS count FROM management.public_keys WHERE workspace_id = $1 AND deleted_at IS NULL`,
      [workspace.id],
    )) as Array<{ count: number }>;
    const rows = (await this.db.query(
      `SELECT ${COLUMNS} FROM management.public_keys WHERE workspace_id = $1 AND deleted_at IS NULL
        ORDER BY created_at, id LIMIT $2 OFFSET $3`,
      [workspace.id, page.limit, page.offset],
    )) as PublicKeyRow[];
    return { count, rows };
  }

  async create(workspace: ScopedWorkspace, changes: Required<Pick<PublicKeyChanges, 'name'>> & PublicKeyChanges): Promise<PublicKeyRow> {
    return this.db.transaction(async (tx) => {
      const [created] = (await tx.query(
        `INSERT INTO management.public_keys (id, workspace_id, name, description, api_key, allowed_domains)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [newPublicKeyId(), workspace.id, changes.name, changes.description ?? null, newPublicKey(), originsOf(changes.allowed_domains)],
      )) as PublicKeyRow[];
      await this.announce(tx, workspace, created, 'created');
      return created;
    });
  }

  async update(workspace: ScopedWorkspace, id: string, changes: PublicKeyChanges): Promise<PublicKeyRow> {
    return this.change(workspace, id, 'updated', (tx) =>
      tx.query(
        `UPDATE management.public_keys SET allowed_domains = CASE WHEN $3 THEN $4::text[] ELSE allowed_domains END, updated_at = now()
          WHERE id = $1 AND workspace_id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
        [id, workspace.id, changes.allowed_domains !== undefined, originsOf(changes.allowed_domains)],
      ),
    );
  }

  /** New key material for the same record: pages with the old value are refused from now on. */
  async rotate(workspace: ScopedWorkspace, id: string): Promise<PublicKeyRow> {
    return this.change(workspace, id, 'rotated', (tx) =>
      tx.query(
        `UPDATE management.public_keys SET api_key = $3, rotated_at = now(), updated_at = now()
          WHERE id = $1 AND workspace_id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
        [id, workspace.id, newPublicKey()],
      ),
    );
  }

  async remove(workspace: ScopedWorkspace, id: string): Promise<void> {
    await this.change(workspace, id, 'deleted', (tx) =>
      tx.query(
        `UPDATE management.public_keys SET deleted_at = now(), updated_at = now()
          WHERE id = $1 AND workspace_id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
        [id, workspace.id],
      ),
    );
  }

  private async change(
    workspace: ScopedWorkspace,
    id: string,
    change: 'updated' | 'rotated' | 'deleted',
    write: (tx: EntityManager) => Promise<unknown>,
  ): Promise<PublicKeyRow> {
    return this.db.transaction(async (tx) => {
      const [row] = returningRows<PublicKeyRow>(await write(tx));
      if (!row) throw HeraldError.notFound(`public key '${id}' not found`);
      await this.announce(tx, workspace, row, change);
      return row;
    });
  }

  private async announce(tx: EntityManager, workspace: ScopedWorkspace, row: PublicKeyRow, change: 'created' | 'updated' | 'rotated' | 'deleted'): Promise<void> {
    await writeOutbox(tx, MANAGEMENT_OUTBOX, [
      credentialsChangedMessage(
        {
          kind: 'public_key',
          change,
          public_key_id: row.id,
          workspace_id: workspace.id,
          workspace_slug: workspace.slug,
          key_hash: hashToken(row.api_key).toString('hex'),
          allowed_origins: row.allowed_domains ?? [],
        },
        this.clock.now(),
      ),
    ]);
  }
}

/** Stored as the Origin header sends them, so the inbox compares plain strings. Null keeps the reference's "none set". */
function originsOf(allowed: readonly string[] | null | undefined): string[] | null {
  if (allowed === undefined || allowed === null) return null;
  return [...new Set(allowed.map((origin) => normalizeOrigin(origin) ?? origin))];
}

function newPublicKeyId(): string {
  return `ws_pubk_${randomBytes(12).toString('base64url')}`;
}

/** The reference's shape (`SS.PUBK.` and 43 characters), so SuprSend's browser SDKs accept it unchanged. */
function newPublicKey(): string {
  return `SS.PUBK.${randomBytes(32).toString('base64url')}`;
}
