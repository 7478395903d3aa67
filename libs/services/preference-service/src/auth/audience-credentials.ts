import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CREDENTIALS_CHANGED_TYPE, CredentialsChanged, TOPICS, parseCredentialsChanged } from '@herald/contracts';
import { ConsumerRegistry, HERALD_LOGGER, HeraldLogger, SecretBox, hashToken } from '@herald/runtime';

export const AUDIENCE_SECRET_BOX = Symbol('AUDIENCE_SECRET_BOX');

/** The workspace a request was proven to belong to. */
export interface AudienceWorkspace {
  readonly id: string;
  readonly slug: string;
}

export interface WorkspaceKeySecret {
  readonly workspace: AudienceWorkspace;
  readonly secret: string;
}

/**
 * The API keys and workspace keys management-api announces on
 * `notify.credentials.changed.v1`, kept in `audience` (services never read each
 * other's tables). API keys as SHA-256 hashes; workspace secrets sealed, opened only
 * in memory. Lookups go to the table every time: one primary-key read per request,
 * and a revoked key stops working as soon as the change is applied.
 */
@Injectable()
export class AudienceCredentials implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    private readonly consumers: ConsumerRegistry,
    @Inject(AUDIENCE_SECRET_BOX) private readonly box: SecretBox,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.credentialsChanged.name], {
      groupId: 'herald.audience.credentials',
      type: CREDENTIALS_CHANGED_TYPE,
      parsePayload: parseCredentialsChanged,
      handle: (change) => this.apply(change),
    });
  }

  async workspaceOfApiKey(apiKey: string): Promise<AudienceWorkspace | null> {
    const [row] = (await this.db.query(`SELECT workspace_id, workspace_slug FROM audience.api_keys WHERE key_hash = $1`, [
      hashToken(apiKey).toString('hex'),
    ])) as Array<{ workspace_id: string; workspace_slug: string }>;
    return row ? { id: row.workspace_id, slug: row.workspace_slug } : null;
  }

  async secretsOfWorkspaceKey(key: string): Promise<WorkspaceKeySecret[]> {
    const rows = (await this.db.query(
      `SELECT workspace_key_id, workspace_id, workspace_slug, secret_sealed FROM audience.workspace_keys WHERE key = $1`,
      [key],
    )) as Array<{ workspace_key_id: string; workspace_id: string; workspace_slug: string; secret_sealed: string }>;
    return rows.flatMap((row) => {
      try {
        const secret = this.box.open(Buffer.from(row.secret_sealed, 'base64'), `workspace_key:${row.workspace_key_id}`);
        return [{ workspace: { id: row.workspace_id, slug: row.workspace_slug }, secret }];
      } catch {
        this.logger.error("cannot open a workspace secret; is HERALD_SECRETS_KEY the same as management-api's?", { workspace_key_id: row.workspace_key_id });
        return [];
      }
    });
  }

  private async apply(change: CredentialsChanged): Promise<void> {
    if (change.kind === 'api_key') {
      if (change.change === 'deleted') await this.db.query(`DELETE FROM audience.api_keys WHERE api_key_id = $1`, [change.api_key_id]);
      else
        await this.db.query(
          `INSERT INTO audience.api_keys (api_key_id, key_hash, workspace_id, workspace_slug) VALUES ($1, $2, $3, $4)
           ON CONFLICT (api_key_id) DO UPDATE SET key_hash = EXCLUDED.key_hash, workspace_slug = EXCLUDED.workspace_slug`,
          [change.api_key_id, change.key_hash, change.workspace_id, change.workspace_slug],
        );
    } else if (change.change === 'deleted') {
      await this.db.query(`DELETE FROM audience.workspace_keys WHERE workspace_key_id = $1`, [change.workspace_key_id]);
    } else {
      await this.db.query(
        `INSERT INTO audience.workspace_keys (workspace_key_id, key, workspace_id, workspace_slug, secret_sealed) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (workspace_key_id) DO UPDATE SET key = EXCLUDED.key, secret_sealed = EXCLUDED.secret_sealed, workspace_slug = EXCLUDED.workspace_slug`,
        [change.workspace_key_id, change.key, change.workspace_id, change.workspace_slug, change.secret_sealed],
      );
    }
    this.logger.info('audience credentials updated', { kind: change.kind, change: change.change, workspace_id: change.workspace_id });
  }
}
