import { FactoryProvider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { returningRows } from '@herald/database';
import type { AuthenticatedWorkspace } from './workspace-credentials';

/** An announced API key, as `credentials.changed` carries it. */
export type ApiKeyChange = Extract<CredentialsChanged, { kind: 'api_key' }>;
/** An announced workspace key, as `credentials.changed` carries it. */
export type WorkspaceKeyChange = Extract<CredentialsChanged, { kind: 'workspace_key' }>;

/** A workspace key as stored: its secret still sealed (base64), as management-api sealed it. */
export interface SealedWorkspaceKey {
  readonly workspaceKeyId: string;
  readonly workspace: AuthenticatedWorkspace;
  readonly secretSealed: string;
}

interface ApiKeyRow {
  readonly workspace_id: string;
  readonly workspace_slug: string;
  readonly read_only: boolean;
}

interface WorkspaceKeyRow {
  readonly workspace_key_id: string;
  readonly workspace_id: string;
  readonly workspace_slug: string;
  readonly secret_sealed: string;
}

/**
 * The rows of a service's credentials read model, `<schema>.api_keys` and
 * `<schema>.workspace_keys` (created by `workspaceCredentialsMigration`, or by the
 * service's own first migration), in the schema of whichever service authenticates with
 * them: WorkspaceAuthModule provides one per service (`forSchema`). Every statement is hand-written: the
 * schema is chosen at run time, so no entity maps these tables, and the two reads run on
 * every authenticated request that misses WorkspaceCredentials' cache; they are kept as
 * they were.
 */
export class WorkspaceCredentialsRepository {
  constructor(
    private readonly db: DataSource,
    private readonly schema: string,
  ) {}

  /** The provider of the repository over `schema`'s tables, on the DataSource of that name (the service's). */
  static forSchema(schema: string): FactoryProvider<WorkspaceCredentialsRepository> {
    return { provide: WorkspaceCredentialsRepository, inject: [getDataSourceToken(schema)], useFactory: (db: DataSource) => new WorkspaceCredentialsRepository(db, schema) };
  }

  /**
   * The workspace of the API key with this hash (hex SHA-256), read-only when the key is;
   * null for an unknown key.
   *
   * Hand-written: one read by the unique `key_hash`, on the path of every Bearer request.
   */
  async workspaceOfApiKeyHash(hash: string): Promise<AuthenticatedWorkspace | null> {
    const [row] = returningRows<ApiKeyRow>(await this.db.query(`SELECT workspace_id, workspace_slug, read_only FROM ${this.schema}.api_keys WHERE key_hash = $1`, [hash]));
    if (!row) return null;
    return row.read_only ? { id: row.workspace_id, slug: row.workspace_slug, readOnly: true } : { id: row.workspace_id, slug: row.workspace_slug };
  }

  /**
   * The keys stored under this workspace key (one, unless management-api announced it
   * again under another id), their secrets sealed; none for an unknown key.
   *
   * Hand-written: one read by `workspace_keys_by_key`, on the path of every signed request.
   */
  async sealedKeysOf(key: string): Promise<SealedWorkspaceKey[]> {
    const rows = returningRows<WorkspaceKeyRow>(await this.db.query(
      `SELECT workspace_key_id, workspace_id, workspace_slug, secret_sealed FROM ${this.schema}.workspace_keys WHERE key = $1`,
      [key],
    ));
    return rows.map((row) => ({ workspaceKeyId: row.workspace_key_id, workspace: { id: row.workspace_id, slug: row.workspace_slug }, secretSealed: row.secret_sealed }));
  }

  /**
   * Stores an announced API key, or updates the stored one's hash, slug and read-only
   * flag (its workspace never changes).
   *
   * Hand-written: an upsert into the service's schema, chosen at run time.
   */
  async saveApiKey(change: ApiKeyChange): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.schema}.api_keys (api_key_id, key_hash, workspace_id, workspace_slug, read_only) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (api_key_id) DO UPDATE SET key_hash = EXCLUDED.key_hash, workspace_slug = EXCLUDED.workspace_slug, read_only = EXCLUDED.read_only`,
      [change.api_key_id, change.key_hash, change.workspace_id, change.workspace_slug, change.read_only === true],
    );
  }

  /**
   * Forgets a deleted API key (nothing when it is unknown).
   *
   * Hand-written: a delete in the service's schema, chosen at run time.
   */
  async removeApiKey(apiKeyId: string): Promise<void> {
    await this.db.query(`DELETE FROM ${this.schema}.api_keys WHERE api_key_id = $1`, [apiKeyId]);
  }

  /**
   * Stores an announced workspace key, or updates the stored one's key, sealed secret and
   * slug (a rotation).
   *
   * Hand-written: an upsert into the service's schema, chosen at run time.
   */
  async saveWorkspaceKey(change: WorkspaceKeyChange): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.schema}.workspace_keys (workspace_key_id, key, workspace_id, workspace_slug, secret_sealed) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (workspace_key_id) DO UPDATE SET key = EXCLUDED.key, secret_sealed = EXCLUDED.secret_sealed, workspace_slug = EXCLUDED.workspace_slug`,
      [change.workspace_key_id, change.key, change.workspace_id, change.workspace_slug, change.secret_sealed],
    );
  }

  /**
   * Forgets a deleted workspace key (nothing when it is unknown).
   *
   * Hand-written: a delete in the service's schema, chosen at run time.
   */
  async removeWorkspaceKey(workspaceKeyId: string): Promise<void> {
    await this.db.query(`DELETE FROM ${this.schema}.workspace_keys WHERE workspace_key_id = $1`, [workspaceKeyId]);
  }
}
