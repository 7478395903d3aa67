import { CredentialsChanged } from '@herald/contracts';
import { HeraldLogger } from '../../logging/logger';
import { SecretBox, hashToken } from '../../security/secret-box';
import { WorkspaceCredentialsRepository } from './workspace-credentials.repository';

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
 * `<schema>.workspace_keys`, created by `workspaceCredentialsMigration`, read and written
 * through WorkspaceCredentialsRepository). API keys are kept as SHA-256 hashes; workspace
 * secrets stay sealed in the table and are opened only in memory. Lookups are cached for
 * 5 s per replica; the replica that applies a change drops its cache at once, the others
 * see it within the TTL.
 */
export class WorkspaceCredentials {
  private readonly apiKeys = new ExpiringCache<AuthenticatedWorkspace | null>(CACHE_TTL_MS, CACHE_CAPACITY);
  private readonly workspaceKeys = new ExpiringCache<readonly WorkspaceKeySecret[]>(CACHE_TTL_MS, CACHE_CAPACITY);

  constructor(
    private readonly credentials: WorkspaceCredentialsRepository,
    private readonly box: SecretBox,
    private readonly logger: HeraldLogger,
  ) {}

  /** The workspace of a Bearer API key, or null. */
  async workspaceOfApiKey(apiKey: string): Promise<AuthenticatedWorkspace | null> {
    const hash = hashToken(apiKey).toString('hex');
    return this.apiKeys.load(hash, () => this.credentials.workspaceOfApiKeyHash(hash));
  }

  /** The secrets a workspace key signs with (none when unknown). */
  secretsOfWorkspaceKey(key: string): Promise<readonly WorkspaceKeySecret[]> {
    return this.workspaceKeys.load(key, () => this.loadSecretsOfWorkspaceKey(key));
  }

  private async loadSecretsOfWorkspaceKey(key: string): Promise<readonly WorkspaceKeySecret[]> {
    const sealed = await this.credentials.sealedKeysOf(key);
    const secrets = sealed.flatMap((stored) => {
      try {
        const secret = this.box.open(Buffer.from(stored.secretSealed, 'base64'), `workspace_key:${stored.workspaceKeyId}`);
        return [{ workspace: stored.workspace, secret }];
      } catch {
        // Sealed under another HERALD_SECRETS_KEY: the services disagree on the key.
        this.logger.error("cannot open a workspace secret; is HERALD_SECRETS_KEY the same as management-api's?", { workspace_key_id: stored.workspaceKeyId });
        return [];
      }
    });
    return secrets;
  }

  async apply(change: CredentialsChanged): Promise<void> {
    if (change.kind === 'api_key') {
      if (change.change === 'deleted') {
        await this.credentials.removeApiKey(change.api_key_id);
      } else {
        await this.credentials.saveApiKey(change);
      }
      this.apiKeys.clear();
    } else if (change.kind === 'workspace_key') {
      if (change.change === 'deleted') {
        await this.credentials.removeWorkspaceKey(change.workspace_key_id);
      } else {
        await this.credentials.saveWorkspaceKey(change);
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
