import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock, SecretBox, generateCredential } from '@herald/runtime';
import { SECRETS_KEY } from '../accounts/secrets-key';
import { OffsetPage } from '../http/offset-page';
import { MANAGEMENT_OUTBOX, credentialsChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

/** A workspace key/secret pair as stored: the secret sealed with the installation's secrets key. */
export interface WorkspaceKey {
  id: string;
  workspaceId: string;
  name: string;
  /** The public half SDKs send (`hwk_...`). */
  key: string;
  secretSealed: Buffer;
  isDefault: boolean;
  isActive: boolean;
  isDeleted: boolean;
  allowedDomains: string[];
  createdAt: Date;
  /** The reference's who-did-it fields: Herald records that in the audit log, so they stay null. */
  createdBy: object | null;
  rotatedAt: Date | null;
  rotatedBy: object | null;
  deletedAt: Date | null;
  deletedBy: object | null;
}

/** A key as the API shows it: the secret opened. */
export type OpenedWorkspaceKey = Omit<WorkspaceKey, 'secretSealed'> & { readonly secret: string };

/** `management.workspace_keys` (created by the migrations, never by TypeORM). */
export const WorkspaceKeyEntity = new EntitySchema<WorkspaceKey>({
  name: 'WorkspaceKey',
  schema: 'management',
  tableName: 'workspace_keys',
  columns: {
    id: { type: 'uuid', primary: true },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    name: { type: 'text' },
    key: { type: 'text' },
    secretSealed: { name: 'secret_sealed', type: 'bytea' },
    isDefault: { name: 'is_default', type: 'boolean' },
    isActive: { name: 'is_active', type: 'boolean' },
    isDeleted: { name: 'is_deleted', type: 'boolean' },
    allowedDomains: { name: 'allowed_domains', type: 'jsonb' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
    createdBy: { name: 'created_by', type: 'jsonb', nullable: true },
    rotatedAt: { name: 'rotated_at', type: 'timestamptz', nullable: true },
    rotatedBy: { name: 'rotated_by', type: 'jsonb', nullable: true },
    deletedAt: { name: 'deleted_at', type: 'timestamptz', nullable: true },
    deletedBy: { name: 'deleted_by', type: 'jsonb', nullable: true },
  },
});

/**
 * Workspace key/secret pairs. The interface returns the secret in full on every
 * response, so it is stored sealed (not hashed) and opened only to answer; every
 * change is announced on credentials.changed in its transaction.
 */
@Injectable()
export class WorkspaceKeyRepository {
  private readonly box: SecretBox;

  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(SECRETS_KEY) secretsKey: Buffer,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.box = new SecretBox(secretsKey);
  }

  /** A page of the workspace's live keys, oldest first, and how many it has in all. */
  async list(workspace: ScopedWorkspace, page: OffsetPage): Promise<{ count: number; keys: OpenedWorkspaceKey[] }> {
    const [keys, count] = await this.keys().findAndCount({
      where: { workspaceId: workspace.id, isDeleted: false },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { count, keys: keys.map((key) => this.opened(key)) };
  }

  async create(workspace: ScopedWorkspace, name: string, allowedDomains: readonly string[]): Promise<OpenedWorkspaceKey> {
    return this.db.transaction((tx) =>
      this.insert(tx, workspace, { name, key: generateCredential('hwk', 18), secret: generateCredential('hws'), isDefault: false, allowedDomains }),
    );
  }

  /** The workspace's default key with the key and secret given, in `tx` (the first start's, which makes the workspace). */
  async createDefault(tx: EntityManager, workspace: ScopedWorkspace, key: string, secret: string): Promise<OpenedWorkspaceKey> {
    return this.insert(tx, workspace, { name: 'default', key, secret, isDefault: true, allowedDomains: [] });
  }

  private async insert(
    tx: EntityManager,
    workspace: ScopedWorkspace,
    fields: { name: string; key: string; secret: string; isDefault: boolean; allowedDomains: readonly string[] },
  ): Promise<OpenedWorkspaceKey> {
    const id = randomUUID();
    const created = this.keys(tx).create({
      id,
      workspaceId: workspace.id,
      name: fields.name,
      key: fields.key,
      secretSealed: this.box.seal(fields.secret, sealContext(id)),
      isDefault: fields.isDefault,
      isActive: true,
      isDeleted: false,
      allowedDomains: [...fields.allowedDomains],
      createdBy: null,
      rotatedAt: null,
      rotatedBy: null,
      deletedAt: null,
      deletedBy: null,
    });
    // The insert reads back the columns the database fills (created_at) into `created`.
    await this.keys(tx).insert(created);
    await this.announce(tx, workspace, created, 'created');
    return this.opened(created);
  }

  /** A new secret for the same key; undefined when the workspace has no such live key. */
  async rotate(workspace: ScopedWorkspace, id: string): Promise<OpenedWorkspaceKey | undefined> {
    return this.db.transaction(async (tx) => {
      const key = await this.liveKey(tx, workspace, id);
      if (!key) return undefined;
      const rotated: WorkspaceKey = { ...key, secretSealed: this.box.seal(generateCredential('hws'), sealContext(id)), rotatedAt: this.clock.now() };
      await this.keys(tx).update({ id }, { secretSealed: rotated.secretSealed, rotatedAt: rotated.rotatedAt });
      await this.announce(tx, workspace, rotated, 'rotated');
      return this.opened(rotated);
    });
  }

  /** Soft-deletes the key; false when the workspace has no such live key. */
  async remove(workspace: ScopedWorkspace, id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const key = await this.liveKey(tx, workspace, id);
      if (!key) return false;
      await this.keys(tx).update({ id }, { isDeleted: true, isActive: false, deletedAt: this.clock.now() });
      await this.announce(tx, workspace, key, 'deleted');
      return true;
    });
  }

  /** Locked, so of two concurrent changes of one key the second sees the first's outcome. */
  private liveKey(tx: EntityManager, workspace: ScopedWorkspace, id: string): Promise<WorkspaceKey | null> {
    return this.keys(tx).findOne({ where: { id, workspaceId: workspace.id, isDeleted: false }, lock: { mode: 'pessimistic_write' } });
  }

  private announce(tx: EntityManager, workspace: ScopedWorkspace, key: WorkspaceKey, change: 'created' | 'rotated' | 'deleted'): Promise<void> {
    return writeOutbox(tx, MANAGEMENT_OUTBOX, [
      credentialsChangedMessage(
        {
          kind: 'workspace_key',
          change,
          workspace_key_id: key.id,
          workspace_id: workspace.id,
          workspace_slug: workspace.slug,
          key: key.key,
          secret_sealed: change === 'deleted' ? undefined : key.secretSealed.toString('base64'),
        },
        this.clock.now(),
      ),
    ]);
  }

  private opened({ secretSealed, ...key }: WorkspaceKey): OpenedWorkspaceKey {
    return { ...key, secret: this.box.open(secretSealed, sealContext(key.id)) };
  }

  private keys(manager: EntityManager = this.db.manager): Repository<WorkspaceKey> {
    return manager.getRepository(WorkspaceKeyEntity);
  }
}

/** Bound into the seal: a secret copied to another key's row does not open. */
const sealContext = (id: string): string => `workspace_key:${id}`;
