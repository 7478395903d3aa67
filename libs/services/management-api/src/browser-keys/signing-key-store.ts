import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { MANAGEMENT_OUTBOX, credentialsChangedMessage } from '../management-events/management-events';
import { OffsetPage } from '../http/offset-page';
import { ScopedWorkspace, lockWorkspaceForWrites } from '../workspaces/workspace-scope';

export interface SigningKeyRow {
  id: string;
  uid: string;
  status: 'active' | 'rolled';
  public_key_pem: string;
  created_at: Date;
  rolled_at: Date | null;
  deleted_at: Date | null;
}

/** The private half, in the reference's two encodings; it exists only in the create or roll response. */
export interface PrivateKeyMaterial {
  readonly private_key_pem: string;
  readonly private_key_base64: string;
}

const COLUMNS = 'id, uid, status, public_key_pem, created_at, rolled_at, deleted_at';

/**
 * Workspace signing keys (ES256, P-256): the customer's backend signs its users' inbox
 * tokens with the private half, which Herald hands over once and does not keep. Only
 * the public half is stored and announced on notify.credentials.changed.v1. A rolled
 * key keeps verifying until it is deleted, so backends can switch without a gap.
 */
@Injectable()
export class SigningKeyStore {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(workspace: ScopedWorkspace, page: OffsetPage): Promise<{ count: number; rows: SigningKeyRow[] }> {
    const [{ count }] = (await this.db.query(
      `SELECT count(*)::int AS count FROM management.signing_keys WHERE workspace_id = $1 AND deleted_at IS NULL`,
      [workspace.id],
    )) as Array<{ count: number }>;
    const rows = (await this.db.query(
      `SELECT ${COLUMNS} FROM management.signing_keys WHERE workspace_id = $1 AND deleted_at IS NULL
        ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`,
      [workspace.id, page.limit, page.offset],
    )) as SigningKeyRow[];
    return { count, rows };
  }

  /** 400 when the workspace has an active key: the reference allows one, and rolling replaces it. */
  async create(workspace: ScopedWorkspace): Promise<SigningKeyRow & PrivateKeyMaterial> {
    return this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      const active = (await tx.query(
        `SELECT uid FROM management.signing_keys WHERE workspace_id = $1 AND status = 'active' AND deleted_at IS NULL`,
        [workspace.id],
      )) as unknown[];
      if (active.length > 0) throw HeraldError.validation([{ path: '', message: 'only 1 active signing key is allowed; roll it to replace it' }]);
      return this.insert(tx, workspace);
    });
  }

  /** Marks the active key `uid` rolled and creates its replacement. */
  async roll(workspace: ScopedWorkspace, uid: string): Promise<SigningKeyRow & PrivateKeyMaterial> {
    return this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      const [rolled] = returningRows<SigningKeyRow>(
        await tx.query(
          `UPDATE management.signing_keys SET status = 'rolled', rolled_at = now()
            WHERE workspace_id = $1 AND uid = $2 AND deleted_at IS NULL AND status = 'active' RETURNING ${COLUMNS}`,
          [workspace.id, uid],
        ),
      );
      if (!rolled) throw HeraldError.notFound(`active signing key '${uid}' not found`);
      await this.announce(tx, workspace, rolled, 'rolled');
      return this.insert(tx, workspace);
    });
  }

  /** Tokens signed with the key are refused once the inbox's read model applies this. */
  async remove(workspace: ScopedWorkspace, uid: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [deleted] = returningRows<SigningKeyRow>(
        await tx.query(
          `UPDATE management.signing_keys SET deleted_at = now() WHERE workspace_id = $1 AND uid = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
          [workspace.id, uid],
        ),
      );
      if (!deleted) throw HeraldError.notFound(`signing key '${uid}' not found`);
      await this.announce(tx, workspace, deleted, 'deleted');
    });
  }

  private async insert(tx: EntityManager, workspace: ScopedWorkspace): Promise<SigningKeyRow & PrivateKeyMaterial> {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const [created] = (await tx.query(
      `INSERT INTO management.signing_keys (id, uid, workspace_id, status, public_key_pem) VALUES ($1, $2, $3, 'active', $4) RETURNING ${COLUMNS}`,
      [`ws_signk_${randomBytes(12).toString('base64url')}`, newUid(this.clock.now()), workspace.id, publicKeyPem],
    )) as SigningKeyRow[];
    await this.announce(tx, workspace, created, 'created');
    return { ...created, private_key_pem: privateKeyPem, private_key_base64: Buffer.from(privateKeyPem).toString('base64') };
  }

  private async announce(tx: EntityManager, workspace: ScopedWorkspace, row: SigningKeyRow, change: 'created' | 'rolled' | 'deleted'): Promise<void> {
    await writeOutbox(tx, MANAGEMENT_OUTBOX, [
      credentialsChangedMessage(
        {
          kind: 'signing_key',
          change,
          signing_key_uid: row.uid,
          workspace_id: workspace.id,
          workspace_slug: workspace.slug,
          public_key_pem: row.public_key_pem,
        },
        this.clock.now(),
      ),
    ]);
  }
}

/** The reference's `signing_key_<UTC time>`, with a random tail so two keys of one second differ. */
function newUid(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').slice(0, 15);
  return `signing_key_${stamp}_${randomBytes(3).toString('hex')}`;
}
