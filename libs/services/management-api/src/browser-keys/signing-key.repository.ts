import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager, EntitySchema, IsNull, Repository } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { MANAGEMENT_OUTBOX, credentialsChangedMessage } from '../management-events/management-events';
import { OffsetPage } from '../http/offset-page';
import { ScopedWorkspace, lockWorkspaceForWrites } from '../workspaces/workspace-scope';

/** A workspace signing key as stored: its public half only (the private half is handed over once, never kept). */
export interface SigningKey {
  id: string;
  uid: string;
  workspaceId: string;
  status: 'active' | 'rolled';
  publicKeyPem: string;
  createdAt: Date;
  rolledAt: Date | null;
  deletedAt: Date | null;
}

/** `management.signing_keys` (created by the migrations, never by TypeORM). */
export const SigningKeyEntity = new EntitySchema<SigningKey>({
  name: 'SigningKey',
  schema: 'management',
  tableName: 'signing_keys',
  columns: {
    id: { type: 'text', primary: true },
    uid: { type: 'text' },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    status: { type: 'text' },
    publicKeyPem: { name: 'public_key_pem', type: 'text' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
    rolledAt: { name: 'rolled_at', type: 'timestamptz', nullable: true },
    deletedAt: { name: 'deleted_at', type: 'timestamptz', nullable: true },
  },
});

/**
 * Workspace signing keys (ES256, P-256) that the customer's backend signs its users' inbox
 * tokens with. Only the public half is stored and announced on notify.credentials.changed.v1.
 * A rolled key keeps verifying until it is deleted, so backends can switch without a gap.
 */
@Injectable()
export class SigningKeyRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** A page of the workspace's keys (active and rolled), newest first, and how many in all. */
  async list(workspace: ScopedWorkspace, page: OffsetPage): Promise<{ count: number; keys: SigningKey[] }> {
    const [keys, count] = await this.keys().findAndCount({
      where: { workspaceId: workspace.id, deletedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { count, keys };
  }

  /** 400 when the workspace has an active key: the reference allows one, and rolling replaces it. */
  async create(workspace: ScopedWorkspace, publicKeyPem: string): Promise<SigningKey> {
    return this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      if (await this.keys(tx).exists({ where: { workspaceId: workspace.id, status: 'active', deletedAt: IsNull() } })) {
        throw HeraldError.validation([{ path: '', message: 'only 1 active signing key is allowed; roll it to replace it' }]);
      }
      return this.insert(tx, workspace, publicKeyPem);
    });
  }

  /** Marks the active key `uid` rolled and stores its replacement with `publicKeyPem`. */
  async roll(workspace: ScopedWorkspace, uid: string, publicKeyPem: string): Promise<SigningKey> {
    return this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      const active = await this.keys(tx).findOne({ where: { workspaceId: workspace.id, uid, status: 'active', deletedAt: IsNull() } });
      if (!active) throw HeraldError.notFound(`active signing key '${uid}' not found`);
      const rolled: SigningKey = { ...active, status: 'rolled', rolledAt: this.clock.now() };
      await this.keys(tx).update({ id: active.id }, { status: rolled.status, rolledAt: rolled.rolledAt });
      await this.announce(tx, workspace, rolled, 'rolled');
      return this.insert(tx, workspace, publicKeyPem);
    });
  }

  /** Tokens signed with the key are refused once the inbox's read model applies this. */
  async remove(workspace: ScopedWorkspace, uid: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const key = await this.keys(tx).findOne({ where: { workspaceId: workspace.id, uid, deletedAt: IsNull() }, lock: { mode: 'pessimistic_write' } });
      if (!key) throw HeraldError.notFound(`signing key '${uid}' not found`);
      await this.keys(tx).update({ id: key.id }, { deletedAt: this.clock.now() });
      await this.announce(tx, workspace, key, 'deleted');
    });
  }

  private async insert(tx: EntityManager, workspace: ScopedWorkspace, publicKeyPem: string): Promise<SigningKey> {
    const created = this.keys(tx).create({
      id: `ws_signk_${randomBytes(12).toString('base64url')}`,
      uid: newUid(this.clock.now()),
      workspaceId: workspace.id,
      status: 'active',
      publicKeyPem,
      rolledAt: null,
      deletedAt: null,
    });
    // The insert reads back the columns the database fills (created_at) into `created`.
    await this.keys(tx).insert(created);
    await this.announce(tx, workspace, created, 'created');
    return created;
  }

  private async announce(tx: EntityManager, workspace: ScopedWorkspace, key: SigningKey, change: 'created' | 'rolled' | 'deleted'): Promise<void> {
    await writeOutbox(tx, MANAGEMENT_OUTBOX, [
      credentialsChangedMessage(
        { kind: 'signing_key', change, signing_key_uid: key.uid, workspace_id: workspace.id, workspace_slug: workspace.slug, public_key_pem: key.publicKeyPem },
        this.clock.now(),
      ),
    ]);
  }

  private keys(manager: EntityManager = this.db.manager): Repository<SigningKey> {
    return manager.getRepository(SigningKeyEntity);
  }
}

/** The reference's `signing_key_<UTC time>`, with a random tail so two keys of one second differ. */
function newUid(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').slice(0, 15);
  return `signing_key_${stamp}_${randomBytes(3).toString('hex')}`;
}
