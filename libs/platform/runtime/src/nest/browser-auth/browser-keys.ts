import { KeyObject, createPublicKey } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { HeraldLogger } from '../../logging/logger';
import { hashToken } from '../../security/secret-box';
import { AuthenticatedWorkspace, ExpiringCache } from '../workspace-auth/workspace-credentials';

export interface BrowserPublicKey {
  readonly publicKeyId: string;
  readonly workspace: AuthenticatedWorkspace;
  readonly allowedOrigins: readonly string[];
}

const CACHE_TTL_MS = 5_000;
const CACHE_CAPACITY = 10_000;

/**
 * A service's read model of the browser keys management-api announces on
 * notify.credentials.changed.v1, in the service's own schema (`<schema>.public_keys`,
 * `<schema>.signing_keys`, created by `browserKeysMigration`): public keys by hash with
 * their allowed origins, and the public halves of signing keys. Lookups are cached 5 s
 * (concurrent misses of one key share one query); the replica that applies a change
 * drops its cache at once, other replicas within the TTL.
 */
export class BrowserKeys {
  private readonly publicKeys = new ExpiringCache<BrowserPublicKey | null>(CACHE_TTL_MS, CACHE_CAPACITY);
  private readonly signingKeys = new ExpiringCache<KeyObject[]>(CACHE_TTL_MS, CACHE_CAPACITY);
  private readonly origins = new ExpiringCache<boolean>(CACHE_TTL_MS, CACHE_CAPACITY);
  private readonly workspaceOrigins = new ExpiringCache<boolean>(CACHE_TTL_MS, CACHE_CAPACITY);

  constructor(
    private readonly db: DataSource,
    private readonly schema: string,
    private readonly logger: HeraldLogger,
  ) {}

  async publicKey(value: string): Promise<BrowserPublicKey | null> {
    const hash = hashToken(value).toString('hex');
    return this.publicKeys.load(hash, async () => {
      const [row] = (await this.db.query(`SELECT public_key_id, workspace_id, workspace_slug, allowed_origins FROM ${this.schema}.public_keys WHERE key_hash = $1`, [
        hash,
      ])) as Array<{ public_key_id: string; workspace_id: string; workspace_slug: string; allowed_origins: string[] }>;
      return row ? { publicKeyId: row.public_key_id, workspace: { id: row.workspace_id, slug: row.workspace_slug }, allowedOrigins: row.allowed_origins } : null;
    });
  }

  /** The workspace's signing keys (active and rolled): a token verifies when one of them signed it. */
  async signingKeysOf(workspaceId: string): Promise<KeyObject[]> {
    return this.signingKeys.load(workspaceId, async () => {
      const rows = (await this.db.query(`SELECT public_key_pem FROM ${this.schema}.signing_keys WHERE workspace_id = $1`, [workspaceId])) as Array<{
        public_key_pem: string;
      }>;
      return rows.map((row) => createPublicKey(row.public_key_pem));
    });
  }

  /**
   * A preflight carries no credentials, so it is answered for an origin that some public
   * key allows; the request itself is then held to its own key's origins.
   */
  async isAllowedByAnyKey(origin: string): Promise<boolean> {
    return this.origins.load(origin, async () => {
      const rows = (await this.db.query(`SELECT 1 FROM ${this.schema}.public_keys WHERE $1 = ANY(allowed_origins) LIMIT 1`, [origin])) as unknown[];
      return rows.length > 0;
    });
  }

  /**
   * Whether one of the workspace's public keys allows the origin: the allowed origins of a
   * caller that presents no public key (`@suprsend/js-inbox`'s workspace key).
   */
  async isAllowedInWorkspace(workspaceId: string, origin: string): Promise<boolean> {
    return this.workspaceOrigins.load(`${workspaceId} ${origin}`, async () => {
      const rows = (await this.db.query(`SELECT 1 FROM ${this.schema}.public_keys WHERE workspace_id = $1 AND $2 = ANY(allowed_origins) LIMIT 1`, [workspaceId, origin])) as unknown[];
      return rows.length > 0;
    });
  }

  async apply(change: CredentialsChanged): Promise<void> {
    if (change.kind === 'public_key') {
      if (change.change === 'deleted') {
        await this.db.query(`DELETE FROM ${this.schema}.public_keys WHERE public_key_id = $1`, [change.public_key_id]);
      } else {
        await this.db.query(
          `INSERT INTO ${this.schema}.public_keys (public_key_id, key_hash, workspace_id, workspace_slug, allowed_origins) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (public_key_id) DO UPDATE SET key_hash = EXCLUDED.key_hash, workspace_slug = EXCLUDED.workspace_slug, allowed_origins = EXCLUDED.allowed_origins`,
          [change.public_key_id, change.key_hash, change.workspace_id, change.workspace_slug, change.allowed_origins],
        );
      }
    } else if (change.kind === 'signing_key') {
      if (change.change === 'deleted') {
        await this.db.query(`DELETE FROM ${this.schema}.signing_keys WHERE signing_key_uid = $1`, [change.signing_key_uid]);
      } else {
        // A rolled key keeps verifying until it is deleted: backends switch to the new one without a gap.
        await this.db.query(
          `INSERT INTO ${this.schema}.signing_keys (signing_key_uid, workspace_id, public_key_pem) VALUES ($1, $2, $3) ON CONFLICT (signing_key_uid) DO NOTHING`,
          [change.signing_key_uid, change.workspace_id, change.public_key_pem],
        );
      }
    } else {
      return;
    }
    this.publicKeys.clear();
    this.signingKeys.clear();
    this.origins.clear();
    this.workspaceOrigins.clear();
    this.logger.info('browser key read model updated', { schema: this.schema, kind: change.kind, change: change.change, workspace_id: change.workspace_id });
  }
}
