import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CREDENTIALS_CHANGED_TYPE, CredentialsChanged, TOPICS, parseCredentialsChanged } from '@herald/contracts';
import { ConsumerRegistry, HERALD_LOGGER, HeraldLogger, SecretBox, hashToken } from '@herald/runtime';
import { AuthenticatedWorkspace } from './authenticated-workspace';
import { ExpiringCache } from './expiring-cache';

export const INGEST_SECRET_BOX = Symbol('INGEST_SECRET_BOX');

/** A workspace key's secret, opened, with the workspace it proves. */
export interface WorkspaceKeySecret {
  readonly workspace: AuthenticatedWorkspace;
  readonly secret: string;
}

const CACHE_TTL_MS = 5_000;
const CACHE_CAPACITY = 10_000;

/**
 * Which API keys and workspace keys exist, as management-api announces them on
 * `notify.credentials.changed.v1`. API keys are kept as SHA-256 hashes; workspace
 * secrets stay sealed in the table and are opened only in memory. One consumer group
 * for all ingest replicas: they share this table.
 */
@Injectable()
export class CredentialsReadModel implements OnApplicationBootstrap {
  private readonly apiKeys = new ExpiringCache<AuthenticatedWorkspace | null>(CACHE_TTL_MS, CACHE_CAPACITY);
  private readonly workspaceKeys = new ExpiringCache<readonly WorkspaceKeySecret[]>(CACHE_TTL_MS, CACHE_CAPACITY);

  constructor(
    @InjectDataSource('ingest') private readonly db: DataSource,
    private readonly consumers: ConsumerRegistry,
    @Inject(INGEST_SECRET_BOX) private readonly box: SecretBox,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.credentialsChanged.name], {
      groupId: 'herald.ingest.credentials',
      type: CREDENTIALS_CHANGED_TYPE,
      parsePayload: parseCredentialsChanged,
      handle: (change) => this.apply(change),
    });
  }

  /** The workspace of a Bearer API key, or null. */
  async workspaceOfApiKey(apiKey: string): Promise<AuthenticatedWorkspace | null> {
    const hash = hashToken(apiKey).toString('hex');
    const cached = this.apiKeys.get(hash);
    if (cached !== undefined) return cached;
    const [row] = (await this.db.query(`SELECT workspace_id, workspace_slug FROM ingest.api_keys WHERE key_hash = $1`, [hash])) as Array<{
      workspace_id: string;
      workspace_slug: string;
    }>;
    const workspace = row ? { id: row.workspace_id, slug: row.workspace_slug } : null;
    this.apiKeys.set(hash, workspace);
    return workspace;
  }

  /** The secrets a workspace key signs with (none when unknown). */
  async secretsOfWorkspaceKey(key: string): Promise<readonly WorkspaceKeySecret[]> {
    const cached = this.workspaceKeys.get(key);
    if (cached !== undefined) return cached;
    const rows = (await this.db.query(
      `SELECT workspace_key_id, workspace_id, workspace_slug, secret_sealed FROM ingest.workspace_keys WHERE key = $1`,
      [key],
    )) as Array<{ workspace_key_id: string; workspace_id: string; workspace_slug: string; secret_sealed: string }>;
    const secrets = rows.flatMap((row) => {
      try {
        const secret = this.box.open(Buffer.from(row.secret_sealed, 'base64'), `workspace_key:${row.workspace_key_id}`);
        return [{ workspace: { id: row.workspace_id, slug: row.workspace_slug }, secret }];
      } catch {
        // Sealed under another HERALD_SECRETS_KEY: the services disagree on the key.
        this.logger.error('cannot open a workspace secret; is HERALD_SECRETS_KEY the same as management-api\'s?', {
          workspace_key_id: row.workspace_key_id,
        });
        return [];
      }
    });
    this.workspaceKeys.set(key, secrets);
    return secrets;
  }

  private async apply(change: CredentialsChanged): Promise<void> {
    if (change.kind === 'api_key') {
      if (change.change === 'deleted') {
        await this.db.query(`DELETE FROM ingest.api_keys WHERE api_key_id = $1`, [change.api_key_id]);
      } else {
        await this.db.query(
          `INSERT INTO ingest.api_keys (api_key_id, key_hash, workspace_id, workspace_slug) VALUES ($1, $2, $3, $4)
           ON CONFLICT (api_key_id) DO UPDATE SET key_hash = EXCLUDED.key_hash, workspace_slug = EXCLUDED.workspace_slug`,
          [change.api_key_id, change.key_hash, change.workspace_id, change.workspace_slug],
        );
      }
      this.apiKeys.clear();
    } else {
      if (change.change === 'deleted') {
        await this.db.query(`DELETE FROM ingest.workspace_keys WHERE workspace_key_id = $1`, [change.workspace_key_id]);
      } else {
        await this.db.query(
          `INSERT INTO ingest.workspace_keys (workspace_key_id, key, workspace_id, workspace_slug, secret_sealed) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (workspace_key_id) DO UPDATE SET key = EXCLUDED.key, secret_sealed = EXCLUDED.secret_sealed, workspace_slug = EXCLUDED.workspace_slug`,
          [change.workspace_key_id, change.key, change.workspace_id, change.workspace_slug, change.secret_sealed],
        );
      }
      this.workspaceKeys.clear();
    }
    this.logger.info('credentials read model updated', { kind: change.kind, change: change.change, workspace_id: change.workspace_id });
  }
}
