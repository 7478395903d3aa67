import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { HeraldLogger } from '../../logging/logger';
import { SecretBox, hashToken } from '../../security/secret-box';

/** The workspace a request or a message was proven to belong to. */
export interface AuthenticatedWorkspace {
  readonly id: string;
  readonly slug: string;
  /** Proven by a read-only API key: WorkspaceAuthGuard lets it GET and HEAD only. */
  readonly readOnly?: boolean;
}

/** A workspace key's secret, opened, with the workspace it proves. */
export interface WorkspaceKeySecret {
  readonly workspace: AuthenticatedWorkspace;
  readonly secret: string;
}

const CACHE_TTL_MS = 5_000;
const CACHE_CAPACITY = 10_000;

/**
 * A service's read model of the credentials management-api announces on
 * `notify.credentials.changed.v1`, in the service's own schema (`<schema>.api_keys`,
 * `<schema>.workspace_keys`, created by `workspaceCredentialsMigration`). API keys are
 * kept as SHA-256 hashes; workspace secrets stay sealed in the table and are opened
 * only in memory. Lookups are cached for 5 s per replica; the replica that applies a
 * change drops its cache at once, the others see it within the TTL.
 */
export class WorkspaceCredentials {
  private readonly apiKeys = new ExpiringCache<AuthenticatedWorkspace | null>(CACHE_TTL_MS, CACHE_CAPACITY);
  private readonly workspaceKeys = new ExpiringCache<readonly WorkspaceKeySecret[]>(CACHE_TTL_MS, CACHE_CAPACITY);

  constructor(
    private readonly db: DataSource,
    private readonly schema: string,
    private readonly box: SecretBox,
    private readonly logger: HeraldLogger,
  ) {}

  /** The workspace of a Bearer API key, or null. */
  async workspaceOfApiKey(apiKey: string): Promise<AuthenticatedWorkspace | null> {
    const hash = hashToken(apiKey).toString('hex');
    return this.apiKeys.load(hash, async () => {
      const [row] = (await this.db.query(`SELECT workspace_id, workspace_slug, read_only FROM ${this.schema}.api_keys WHERE key_hash = $1`, [hash])) as Array<{
        workspace_id: string;
        workspace_slug: string;
        read_only: boolean;
      }>;
      if (!row) return null;
      return row.read_only ? { id: row.workspace_id, slug: row.workspace_slug, readOnly: true } : { id: row.workspace_id, slug: row.workspace_slug };
    });
  }

  /** The secrets a workspace key signs with (none when unknown). */
  secretsOfWorkspaceKey(key: string): Promise<readonly WorkspaceKeySecret[]> {
    return this.workspaceKeys.load(key, () => this.loadSecretsOfWorkspaceKey(key));
  }

  private async loadSecretsOfWorkspaceKey(key: string): Promise<readonly WorkspaceKeySecret[]> {
    const rows = (await this.db.query(
      `SELECT workspace_key_id, workspace_id, workspace_slug, secret_sealed FROM ${this.schema}.workspace_keys WHERE key = $1`,
      [key],
    )) as Array<{ workspace_key_id: string; workspace_id: string; workspace_slug: string; secret_sealed: string }>;
    const secrets = rows.flatMap((row) => {
      try {
        const secret = this.box.open(Buffer.from(row.secret_sealed, 'base64'), `workspace_key:${row.workspace_key_id}`);
        return [{ workspace: { id: row.workspace_id, slug: row.workspace_slug }, secret }];
      } catch {
        // Sealed under another HERALD_SECRETS_KEY: the services disagree on the key.
        this.logger.error("cannot open a workspace secret; is HERALD_SECRETS_KEY the same as management-api's?", { workspace_key_id: row.workspace_key_id });
        return [];
      }
    });
    return secrets;
  }

  async apply(change: CredentialsChanged): Promise<void> {
    if (change.kind === 'api_key') {
      if (change.change === 'deleted') {
        await this.db.query(`DELETE FROM ${this.schema}.api_keys WHERE api_key_id = $1`, [change.api_key_id]);
      } else {
        await this.db.query(
          `INSERT INTO ${this.schema}.api_keys (api_key_id, key_hash, workspace_id, workspace_slug, read_only) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (api_key_id) DO UPDATE SET key_hash = EXCLUDED.key_hash, workspace_slug = EXCLUDED.workspace_slug, read_only = EXCLUDED.read_only`,
          [change.api_key_id, change.key_hash, change.workspace_id, change.workspace_slug, change.read_only === true],
        );
      }
      this.apiKeys.clear();
    } else if (change.kind === 'workspace_key') {
      if (change.change === 'deleted') {
        await this.db.query(`DELETE FROM ${this.schema}.workspace_keys WHERE workspace_key_id = $1`, [change.workspace_key_id]);
      } else {
        await this.db.query(
          `INSERT INTO ${this.schema}.workspace_keys (workspace_key_id, key, workspace_id, workspace_slug, secret_sealed) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (workspace_key_id) DO UPDATE SET key = EXCLUDED.key, secret_sealed = EXCLUDED.secret_sealed, workspace_slug = EXCLUDED.workspace_slug`,
          [change.workspace_key_id, change.key, change.workspace_id, change.workspace_slug, change.secret_sealed],
        );
      }
      this.workspaceKeys.clear();
    } else {
      // The browser inbox's keys are channel-dispatchers' business.
      return;
    }
    this.logger.info('credentials read model updated', { kind: change.kind, change: change.change, workspace_id: change.workspace_id });
  }
}

/** A bounded map whose entries expire. */
export class ExpiringCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly loads = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    // Map keeps insertion order: the first key is the oldest.
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  /**
   * The cached value, or what `load` returns (cached when `keep` says so). Misses of one
   * key share one load: a batch of messages or a burst of requests that find an entry
   * expired makes one query, not one each (the Kafka ingress's batches made hundreds
   * every 5 s). A load that a `clear` overtook is returned but not cached.
   */
  load(key: string, load: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    const cached = this.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    const inFlight = this.loads.get(key);
    if (inFlight !== undefined) return inFlight;
    const loading = load().then(
      (value) => {
        if (this.loads.get(key) === loading) {
          this.loads.delete(key);
          if (keep(value)) this.set(key, value);
        }
        return value;
      },
      (error: unknown) => {
        if (this.loads.get(key) === loading) this.loads.delete(key);
        throw error;
      },
    );
    this.loads.set(key, loading);
    return loading;
  }

  clear(): void {
    this.entries.clear();
    this.loads.clear();
  }
}
