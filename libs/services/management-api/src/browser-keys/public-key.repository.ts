import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager, EntitySchema, IsNull, Repository } from 'typeorm';
import { HeraldError, normalizeOrigin } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock, hashToken } from '@herald/runtime';
import { MANAGEMENT_OUTBOX, credentialsChangedMessage } from '../management-events/management-events';
import { OffsetPage } from '../http/offset-page';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

/** A workspace public key as stored: no secret (a web page ships it), so kept in clear. */
export interface PublicKey {
  id: string;
  workspaceId: string;
  name: string;
  description: string | null;
  /** `SS.PUBK.` and 43 characters, the reference's shape. */
  apiKey: string;
  /** The browser origins allowed to use it, as the Origin header sends them; null: none set. */
  allowedDomains: string[] | null;
  isSecureModeEnabled: boolean;
  createdAt: Date;
  updatedAt: Date;
  rotatedAt: Date | null;
  deletedAt: Date | null;
}

/** `management.public_keys` (created by the migrations, never by TypeORM). */
export const PublicKeyEntity = new EntitySchema<PublicKey>({
  name: 'PublicKey',
  schema: 'management',
  tableName: 'public_keys',
  columns: {
    id: { type: 'text', primary: true },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    name: { type: 'text' },
    description: { type: 'text', nullable: true },
    apiKey: { name: 'api_key', type: 'text' },
    allowedDomains: { name: 'allowed_domains', type: 'text', array: true, nullable: true },
    isSecureModeEnabled: { name: 'is_secure_mode_enabled', type: 'boolean' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
    rotatedAt: { name: 'rotated_at', type: 'timestamptz', nullable: true },
    deletedAt: { name: 'deleted_at', type: 'timestamptz', nullable: true },
  },
});

/**
 * Workspace public keys: what a web page ships to call the browser inbox. Every change
 * is announced on notify.credentials.changed.v1 in the same transaction (as a hash, with
 * the allowed origins), so channel-dispatchers' read model follows.
 */
@Injectable()
export class PublicKeyRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** A page of the workspace's live keys, oldest first, and how many in all. */
  async list(workspace: ScopedWorkspace, page: OffsetPage): Promise<{ count: number; keys: PublicKey[] }> {
    const [keys, count] = await this.keys().findAndCount({
      where: { workspaceId: workspace.id, deletedAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { count, keys };
  }

  /** `allowedDomains` undefined or null: none set. */
  async create(workspace: ScopedWorkspace, name: string, description: string | null, allowedDomains: readonly string[] | null | undefined): Promise<PublicKey> {
    return this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const created = this.keys(tx).create({
        id: `ws_pubk_${randomBytes(12).toString('base64url')}`,
        workspaceId: workspace.id,
        name,
        description,
        apiKey: newPublicKey(),
        allowedDomains: originsOf(allowedDomains),
        isSecureModeEnabled: true,
        updatedAt: now,
        rotatedAt: null,
        deletedAt: null,
      });
      // The insert reads back the columns the database fills (created_at) into `created`.
      await this.keys(tx).insert(created);
      await this.announce(tx, workspace, created, 'created');
      return created;
    });
  }

  /** The allowed origins become `allowedDomains` (null: none set); undefined leaves them as they are. */
  async update(workspace: ScopedWorkspace, id: string, allowedDomains: readonly string[] | null | undefined): Promise<PublicKey> {
    return this.change(workspace, id, 'updated', () => (allowedDomains === undefined ? {} : { allowedDomains: originsOf(allowedDomains) }));
  }

  /** New key material for the same record: pages with the old value are refused from now on. */
  async rotate(workspace: ScopedWorkspace, id: string): Promise<PublicKey> {
    return this.change(workspace, id, 'rotated', () => ({ apiKey: newPublicKey(), rotatedAt: this.clock.now() }));
  }

  async remove(workspace: ScopedWorkspace, id: string): Promise<void> {
    await this.change(workspace, id, 'deleted', () => ({ deletedAt: this.clock.now() }));
  }

  /** Applies `changes` to the workspace's live key `id` (404 when there is none) and announces the result. */
  private async change(
    workspace: ScopedWorkspace,
    id: string,
    change: 'updated' | 'rotated' | 'deleted',
    changes: () => Partial<Pick<PublicKey, 'apiKey' | 'allowedDomains' | 'rotatedAt' | 'deletedAt'>>,
  ): Promise<PublicKey> {
    return this.db.transaction(async (tx) => {
      const key = await this.keys(tx).findOne({ where: { id, workspaceId: workspace.id, deletedAt: IsNull() }, lock: { mode: 'pessimistic_write' } });
      if (!key) throw HeraldError.notFound(`public key '${id}' not found`);
      const written = { ...changes(), updatedAt: this.clock.now() };
      await this.keys(tx).update({ id }, written);
      const changed: PublicKey = { ...key, ...written };
      await this.announce(tx, workspace, changed, change);
      return changed;
    });
  }

  private async announce(tx: EntityManager, workspace: ScopedWorkspace, key: PublicKey, change: 'created' | 'updated' | 'rotated' | 'deleted'): Promise<void> {
    await writeOutbox(tx, MANAGEMENT_OUTBOX, [
      credentialsChangedMessage(
        {
          kind: 'public_key',
          change,
          public_key_id: key.id,
          workspace_id: workspace.id,
          workspace_slug: workspace.slug,
          key_hash: hashToken(key.apiKey).toString('hex'),
          allowed_origins: key.allowedDomains ?? [],
        },
        this.clock.now(),
      ),
    ]);
  }

  private keys(manager: EntityManager = this.db.manager): Repository<PublicKey> {
    return manager.getRepository(PublicKeyEntity);
  }
}

/** Stored as the Origin header sends them, so the inbox compares plain strings. Null keeps the reference's "none set". */
function originsOf(allowed: readonly string[] | null | undefined): string[] | null {
  if (allowed === undefined || allowed === null) return null;
  return [...new Set(allowed.map((origin) => normalizeOrigin(origin) ?? origin))];
}

/** The reference's shape (`SS.PUBK.` and 43 characters), so SuprSend's browser SDKs accept it unchanged. */
function newPublicKey(): string {
  return `SS.PUBK.${randomBytes(32).toString('base64url')}`;
}
