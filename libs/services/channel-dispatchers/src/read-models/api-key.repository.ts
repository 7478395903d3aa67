import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntitySchema, Repository } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';

/** The workspace an API key proves, as the inbox API acts for it. */
export interface InboxWorkspace {
  readonly id: string;
  readonly slug: string;
  /** A read-only API key: the inbox API lets it GET and HEAD only. */
  readonly readOnly?: boolean;
}

/** An API key as management-api announced it: its SHA-256 hash, never the key. */
export interface AnnouncedApiKey {
  apiKeyId: string;
  /** Hex SHA-256 of the key. */
  keyHash: string;
  workspaceId: string;
  workspaceSlug: string;
  readOnly: boolean;
}

/** `dispatch.api_keys` (created by the migrations, never by TypeORM). */
export const AnnouncedApiKeyEntity = new EntitySchema<AnnouncedApiKey>({
  name: 'AnnouncedApiKey',
  schema: 'dispatch',
  tableName: 'api_keys',
  columns: {
    apiKeyId: { name: 'api_key_id', type: 'uuid', primary: true },
    keyHash: { name: 'key_hash', type: 'text', unique: true },
    workspaceId: { name: 'workspace_id', type: 'uuid' },
    workspaceSlug: { name: 'workspace_slug', type: 'text' },
    readOnly: { name: 'read_only', type: 'boolean' },
  },
});

type ApiKeyChange = Extract<CredentialsChanged, { kind: 'api_key' }>;

/**
 * `dispatch.api_keys`: the API keys management-api announces on
 * `notify.credentials.changed.v1`, as SHA-256 hashes, so the inbox API authenticates
 * `Bearer <api_key>` without reading another service's tables.
 */
@Injectable()
export class ApiKeyRepository {
  constructor(@InjectDataSource('dispatch') private readonly db: DataSource) {}

  /** The workspace of the key with this hash, or null when no such key is announced. */
  async workspaceOfKeyHash(keyHash: string): Promise<InboxWorkspace | null> {
    const key = await this.keys().findOne({ select: { workspaceId: true, workspaceSlug: true, readOnly: true }, where: { keyHash } });
    if (!key) return null;
    return key.readOnly ? { id: key.workspaceId, slug: key.workspaceSlug, readOnly: true } : { id: key.workspaceId, slug: key.workspaceSlug };
  }

  /** Applies an announcement: a created key is written (its workspace kept if it was already), a deleted one removed. Idempotent. */
  async apply(change: ApiKeyChange): Promise<void> {
    if (change.change === 'deleted') {
      await this.keys().delete({ apiKeyId: change.api_key_id });
      return;
    }
    await this.keys()
      .createQueryBuilder()
      .insert()
      .values({
        apiKeyId: change.api_key_id,
        keyHash: change.key_hash,
        workspaceId: change.workspace_id,
        workspaceSlug: change.workspace_slug,
        readOnly: change.read_only === true,
      })
      .orUpdate(['key_hash', 'workspace_slug', 'read_only'], ['api_key_id'])
      .execute();
  }

  private keys(): Repository<AnnouncedApiKey> {
    return this.db.getRepository(AnnouncedApiKeyEntity);
  }
}
