import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntitySchema, Repository } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { HERALD_LOGGER, HeraldLogger, SecretBox, WorkspaceKeySecret } from '@herald/runtime';
import { DISPATCH_SECRET_BOX } from './dispatch-secret-box';

/** A workspace key as management-api announced it, its secret still sealed. */
export interface AnnouncedWorkspaceKey {
  workspaceKeyId: string;
  /** The public half SDKs send (`hwk_...`). */
  key: string;
  workspaceId: string;
  workspaceSlug: string;
  /** Base64 of the secret sealed with `workspace_key:<id>`, exactly as announced. */
  secretSealed: string;
}

/** `dispatch.workspace_keys` (created by the migrations, never by TypeORM). */
export const AnnouncedWorkspaceKeyEntity = new EntitySchema<AnnouncedWorkspaceKey>({
  name: 'AnnouncedWorkspaceKey',
  schema: 'dispatch',
  tableName: 'workspace_keys',
  columns: {
    workspaceKeyId: { name: 'workspace_key_id', type: 'uuid', primary: true },
    key: { type: 'text' },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    workspaceSlug: { name: 'workspace_slug', type: 'text' },
    secretSealed: { name: 'secret_sealed', type: 'text' },
  },
});

type WorkspaceKeyChange = Extract<CredentialsChanged, { kind: 'workspace_key' }>;

/**
 * `dispatch.workspace_keys`: the workspace keys management-api announces on
 * `notify.credentials.changed.v1`, their secrets sealed in the table and opened only
 * when read (`@suprsend/js-inbox` proves its user with an HMAC under the secret).
 */
@Injectable()
export class WorkspaceKeyRepository {
  constructor(
    @InjectDataSource('dispatch') private readonly db: DataSource,
    @Inject(DISPATCH_SECRET_BOX) private readonly box: SecretBox,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** The opened secrets of a workspace key, each with its workspace (none when the key is unknown). */
  async secretsOf(key: string): Promise<WorkspaceKeySecret[]> {
    const rows = await this.keys().find({ where: { key } });
    return rows.flatMap((row) => {
      try {
        return [{ workspace: { id: row.workspaceId, slug: row.workspaceSlug }, secret: this.box.open(Buffer.from(row.secretSealed, 'base64'), sealContext(row.workspaceKeyId)) }];
      } catch {
        // Sealed under another HERALD_SECRETS_KEY: the services disagree on the key. Never log the blob.
        this.logger.error("cannot open a workspace secret; is HERALD_SECRETS_KEY the same as management-api's?", { workspace_key_id: row.workspaceKeyId });
        return [];
      }
    });
  }

  /** Applies an announcement: a created or rotated key is written (its workspace kept), a deleted one removed. Idempotent. */
  async apply(change: WorkspaceKeyChange): Promise<void> {
    if (change.change === 'deleted') {
      await this.keys().delete({ workspaceKeyId: change.workspace_key_id });
      return;
    }
    await this.keys()
      .createQueryBuilder()
      .insert()
      .values({
        workspaceKeyId: change.workspace_key_id,
        key: change.key,
        workspaceId: change.workspace_id,
        workspaceSlug: change.workspace_slug,
        secretSealed: change.secret_sealed,
      })
      .orUpdate(['key', 'secret_sealed', 'workspace_slug'], ['workspace_key_id'])
      .execute();
  }

  private keys(): Repository<AnnouncedWorkspaceKey> {
    return this.db.getRepository(AnnouncedWorkspaceKeyEntity);
  }
}

/** Bound into the seal by management-api: a secret copied to another key's row does not open. */
const sealContext = (workspaceKeyId: string): string => `workspace_key:${workspaceKeyId}`;
