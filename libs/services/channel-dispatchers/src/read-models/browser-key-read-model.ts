import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { KeyObject, createPublicKey } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CREDENTIALS_CHANGED_TYPE, CredentialsChanged, TOPICS, parseCredentialsChanged } from '@herald/contracts';
import { ConsumerRegistry, HERALD_LOGGER, HeraldLogger, hashToken } from '@herald/runtime';
import { InboxWorkspace } from './api-key-read-model';

export interface BrowserPublicKey {
  readonly publicKeyId: string;
  readonly workspace: InboxWorkspace;
  readonly allowedOrigins: readonly string[];
}

const CACHE_TTL_MS = 5_000;
const CACHE_CAPACITY = 10_000;

/**
 * The browser inbox's keys as management-api announces them on
 * notify.credentials.changed.v1: public keys (by hash, with their allowed origins) and
 * the public halves of signing keys. Lookups are cached 5 s; the replica that applies a
 * change drops its cache at once, other replicas within the TTL.
 */
@Injectable()
export class BrowserKeyReadModel implements OnApplicationBootstrap {
  private readonly publicKeys = new Map<string, { key: BrowserPublicKey | null; expiresAt: number }>();
  private readonly signingKeys = new Map<string, { keys: KeyObject[]; expiresAt: number }>();
  private readonly origins = new Map<string, { allowed: boolean; expiresAt: number }>();

  constructor(
    @InjectDataSource('dispatch') private readonly db: DataSource,
    private readonly consumers: ConsumerRegistry,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.credentialsChanged.name], {
      groupId: 'herald.dispatch.browser-keys',
      type: CREDENTIALS_CHANGED_TYPE,
      parsePayload: parseCredentialsChanged,
      handle: (change) => this.apply(change),
    });
  }

  async publicKey(value: string): Promise<BrowserPublicKey | null> {
    const hash = hashToken(value).toString('hex');
    return this.cached<{ key: BrowserPublicKey | null }>(this.publicKeys, hash, async () => {
      const [row] = (await this.db.query(
        `SELECT public_key_id, workspace_id, workspace_slug, allowed_origins FROM dispatch.public_keys WHERE key_hash = $1`,
        [hash],
      )) as Array<{ public_key_id: string; workspace_id: string; workspace_slug: string; allowed_origins: string[] }>;
      const key = row ? { publicKeyId: row.public_key_id, workspace: { id: row.workspace_id, slug: row.workspace_slug }, allowedOrigins: row.allowed_origins } : null;
      return { key };
    }).then((entry) => entry.key);
  }

  /** The workspace's signing keys (active and rolled): a token verifies when one of them signed it. */
  async signingKeysOf(workspaceId: string): Promise<KeyObject[]> {
    return this.cached(this.signingKeys, workspaceId, async () => {
      const rows = (await this.db.query(`SELECT public_key_pem FROM dispatch.signing_keys WHERE workspace_id = $1`, [workspaceId])) as Array<{
        public_key_pem: string;
      }>;
      return { keys: rows.map((row) => createPublicKey(row.public_key_pem)) };
    }).then((entry) => entry.keys);
  }

  /**
   * A preflight carries no credentials, so it is answered for an origin that some public
   * key allows; the request itself is then held to its own key's origins.
   */
  async isAllowedByAnyKey(origin: string): Promise<boolean> {
    return this.cached(this.origins, origin, async () => {
      const rows = (await this.db.query(`SELECT 1 FROM dispatch.public_keys WHERE $1 = ANY(allowed_origins) LIMIT 1`, [origin])) as unknown[];
      return { allowed: rows.length > 0 };
    }).then((entry) => entry.allowed);
  }

  private async cached<T extends object>(cache: Map<string, T & { expiresAt: number }>, key: string, load: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    if (hit && hit.expiresAt > Date.now()) return hit;
    const entry = { ...(await load()), expiresAt: Date.now() + CACHE_TTL_MS };
    if (cache.size >= CACHE_CAPACITY) cache.clear();
    cache.set(key, entry);
    return entry;
  }

  private async apply(change: CredentialsChanged): Promise<void> {
    if (change.kind === 'public_key') {
      if (change.change === 'deleted') {
        await this.db.query(`DELETE FROM dispatch.public_keys WHERE public_key_id = $1`, [change.public_key_id]);
      } else {
        await this.db.query(
          `INSERT INTO dispatch.public_keys (public_key_id, key_hash, workspace_id, workspace_slug, allowed_origins) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (public_key_id) DO UPDATE SET key_hash = EXCLUDED.key_hash, workspace_slug = EXCLUDED.workspace_slug, allowed_origins = EXCLUDED.allowed_origins`,
          [change.public_key_id, change.key_hash, change.workspace_id, change.workspace_slug, change.allowed_origins],
        );
      }
    } else if (change.kind === 'signing_key') {
      if (change.change === 'deleted') {
        await this.db.query(`DELETE FROM dispatch.signing_keys WHERE signing_key_uid = $1`, [change.signing_key_uid]);
      } else {
        // A rolled key keeps verifying until it is deleted: backends switch to the new one without a gap.
        await this.db.query(
          `INSERT INTO dispatch.signing_keys (signing_key_uid, workspace_id, public_key_pem) VALUES ($1, $2, $3) ON CONFLICT (signing_key_uid) DO NOTHING`,
          [change.signing_key_uid, change.workspace_id, change.public_key_pem],
        );
      }
    } else {
      return;
    }
    this.publicKeys.clear();
    this.signingKeys.clear();
    this.origins.clear();
    this.logger.info('browser key read model updated', { kind: change.kind, change: change.change, workspace_id: change.workspace_id });
  }
}
