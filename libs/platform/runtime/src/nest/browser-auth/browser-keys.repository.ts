import { FactoryProvider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { returningRows } from '@herald/database';
import type { BrowserPublicKey } from './browser-keys';

/** An announced public key, as `credentials.changed` carries it. */
export type PublicKeyChange = Extract<CredentialsChanged, { kind: 'public_key' }>;
/** An announced signing key, as `credentials.changed` carries it. */
export type SigningKeyChange = Extract<CredentialsChanged, { kind: 'signing_key' }>;

interface PublicKeyRow {
  readonly public_key_id: string;
  readonly workspace_id: string;
  readonly workspace_slug: string;
  readonly allowed_origins: string[];
}

/**
 * The rows of a service's browser-key read model, `<schema>.public_keys` and
 * `<schema>.signing_keys` (created by `browserKeysMigration`, or by the service's own
 * migration), in the schema of whichever service opens routes to browsers:
 * BrowserAuthModule provides one per service (`forSchema`). Every statement is hand-written: the schema
 * is chosen at run time, so no entity maps these tables, and the reads run on every
 * browser request (and preflight) that misses BrowserKeys' cache; they are kept as they
 * were.
 */
export class BrowserKeysRepository {
  constructor(
    private readonly db: DataSource,
    private readonly schema: string,
  ) {}

  /** The provider of the repository over `schema`'s tables, on the DataSource of that name (the service's). */
  static forSchema(schema: string): FactoryProvider<BrowserKeysRepository> {
    return { provide: BrowserKeysRepository, inject: [getDataSourceToken(schema)], useFactory: (db: DataSource) => new BrowserKeysRepository(db, schema) };
  }

  /**
   * The public key with this hash (hex SHA-256), with its workspace and allowed origins;
   * null for an unknown key.
   *
   * Hand-written: one read by the unique `key_hash`, on the path of every browser request.
   */
  async publicKeyByHash(hash: string): Promise<BrowserPublicKey | null> {
    const [row] = returningRows<PublicKeyRow>(await this.db.query(`SELECT public_key_id, workspace_id, workspace_slug, allowed_origins FROM ${this.schema}.public_keys WHERE key_hash = $1`, [
      hash,
    ]));
    return row ? { publicKeyId: row.public_key_id, workspace: { id: row.workspace_id, slug: row.workspace_slug }, allowedOrigins: row.allowed_origins } : null;
  }

  /**
   * The PEMs of the workspace's signing keys (active and rolled), in no order; none for a
   * workspace without.
   *
   * Hand-written: one read by `signing_keys_by_workspace`, on the path of every user token.
   */
  async signingKeyPemsOf(workspaceId: string): Promise<string[]> {
    const rows = returningRows<{ public_key_pem: string }>(await this.db.query(`SELECT public_key_pem FROM ${this.schema}.signing_keys WHERE workspace_id = $1`, [workspaceId]));
    return rows.map((row) => row.public_key_pem);
  }

  /**
   * Whether some public key, of any workspace, allows the origin.
   *
   * Hand-written: `= ANY(allowed_origins) LIMIT 1` stops at the first key, on every preflight.
   */
  async anyKeyAllows(origin: string): Promise<boolean> {
    const rows = returningRows<unknown>(await this.db.query(`SELECT 1 FROM ${this.schema}.public_keys WHERE $1 = ANY(allowed_origins) LIMIT 1`, [origin]));
    return rows.length > 0;
  }

  /**
   * Whether one of the workspace's public keys allows the origin.
   *
   * Hand-written: `= ANY(allowed_origins) LIMIT 1` stops at the first key.
   */
  async workspaceKeyAllows(workspaceId: string, origin: string): Promise<boolean> {
    const rows = returningRows<unknown>(await this.db.query(`SELECT 1 FROM ${this.schema}.public_keys WHERE workspace_id = $1 AND $2 = ANY(allowed_origins) LIMIT 1`, [workspaceId, origin]));
    return rows.length > 0;
  }

  /**
   * Stores an announced public key, or updates the stored one's hash, slug and allowed
   * origins (an update or a rotation).
   *
   * Hand-written: an upsert into the service's schema, chosen at run time.
   */
  async savePublicKey(change: PublicKeyChange): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.schema}.public_keys (public_key_id, key_hash, workspace_id, workspace_slug, allowed_origins) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (public_key_id) DO UPDATE SET key_hash = EXCLUDED.key_hash, workspace_slug = EXCLUDED.workspace_slug, allowed_origins = EXCLUDED.allowed_origins`,
      [change.public_key_id, change.key_hash, change.workspace_id, change.workspace_slug, change.allowed_origins],
    );
  }

  /**
   * Forgets a deleted public key (nothing when it is unknown).
   *
   * Hand-written: a delete in the service's schema, chosen at run time.
   */
  async removePublicKey(publicKeyId: string): Promise<void> {
    await this.db.query(`DELETE FROM ${this.schema}.public_keys WHERE public_key_id = $1`, [publicKeyId]);
  }

  /**
   * Stores an announced signing key; one already stored is kept as it is (a rolled key
   * keeps verifying until it is deleted).
   *
   * Hand-written: an insert into the service's schema, chosen at run time.
   */
  async saveSigningKey(change: SigningKeyChange): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.schema}.signing_keys (signing_key_uid, workspace_id, public_key_pem) VALUES ($1, $2, $3) ON CONFLICT (signing_key_uid) DO NOTHING`,
      [change.signing_key_uid, change.workspace_id, change.public_key_pem],
    );
  }

  /**
   * Forgets a deleted signing key (nothing when it is unknown).
   *
   * Hand-written: a delete in the service's schema, chosen at run time.
   */
  async removeSigningKey(signingKeyUid: string): Promise<void> {
    await this.db.query(`DELETE FROM ${this.schema}.signing_keys WHERE signing_key_uid = $1`, [signingKeyUid]);
  }
}
