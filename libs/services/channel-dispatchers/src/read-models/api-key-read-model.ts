import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { HERALD_LOGGER, HeraldLogger, hashToken } from '@herald/runtime';

export interface InboxWorkspace {
  readonly id: string;
  readonly slug: string;
  /** A read-only API key: the inbox API lets it GET and HEAD only. */
  readonly readOnly?: boolean;
}

const CACHE_TTL_MS = 5_000;
const CACHE_CAPACITY = 10_000;

/**
 * API keys as management-api announces them (SHA-256 hashes), so the inbox API can
 * authenticate `Bearer <api_key>` without reading another service's tables.
 */
@Injectable()
export class ApiKeyReadModel {
  private readonly cache = new Map<string, { workspace: InboxWorkspace | null; expiresAt: number }>();

  constructor(
    @InjectDataSource('dispatch') private readonly db: DataSource,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async workspaceOfApiKey(apiKey: string): Promise<InboxWorkspace | null> {
    const hash = hashToken(apiKey).toString('hex');
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > Date.now()) return cached.workspace;
    const [row] = (await this.db.query(`SELECT workspace_id, workspace_slug, read_only FROM dispatch.api_keys WHERE key_hash = $1`, [hash])) as Array<{
      workspace_id: string;
      workspace_slug: string;
      read_only: boolean;
    }>;
    const workspace = row ? { id: row.workspace_id, slug: row.workspace_slug, ...(row.read_only ? { readOnly: true } : {}) } : null;
    if (this.cache.size >= CACHE_CAPACITY) this.cache.clear();
    this.cache.set(hash, { workspace, expiresAt: Date.now() + CACHE_TTL_MS });
    return workspace;
  }

  /** A change of `notify.credentials.changed.v1` (ReadModelConsumers). */
  async apply(change: CredentialsChanged): Promise<void> {
    // Workspace keys sign SDK requests; the inbox API takes API keys only (for now).
    if (change.kind !== 'api_key') return;
    if (change.change === 'deleted') {
      await this.db.query(`DELETE FROM dispatch.api_keys WHERE api_key_id = $1`, [change.api_key_id]);
    } else {
      await this.db.query(
        `INSERT INTO dispatch.api_keys (api_key_id, key_hash, workspace_id, workspace_slug, read_only) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (api_key_id) DO UPDATE SET key_hash = EXCLUDED.key_hash, workspace_slug = EXCLUDED.workspace_slug, read_only = EXCLUDED.read_only`,
        [change.api_key_id, change.key_hash, change.workspace_id, change.workspace_slug, change.read_only === true],
      );
    }
    this.cache.clear();
    this.logger.info('api key read model updated', { change: change.change, workspace_id: change.workspace_id });
  }
}
