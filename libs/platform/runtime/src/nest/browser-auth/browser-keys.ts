import { KeyObject, createPublicKey } from 'node:crypto';
import { CredentialsChanged } from '@herald/contracts';
import { HeraldLogger } from '../../logging/logger';
import { hashToken } from '../../security/secret-box';
import { AuthenticatedWorkspace, ExpiringCache } from '../workspace-auth/workspace-credentials';
import { BrowserKeysRepository } from './browser-keys.repository';

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
 * `<schema>.signing_keys`, created by `browserKeysMigration`, read and written through
 * BrowserKeysRepository): public keys by hash with their allowed origins, and the public
 * halves of signing keys. Lookups are cached 5 s (concurrent misses of one key share one
 * query); the replica that applies a change drops its cache at once, other replicas
 * within the TTL.
 */
export class BrowserKeys {
  private readonly publicKeys = new ExpiringCache<BrowserPublicKey | null>(CACHE_TTL_MS, CACHE_CAPACITY);
  private readonly signingKeys = new ExpiringCache<KeyObject[]>(CACHE_TTL_MS, CACHE_CAPACITY);
  private readonly origins = new ExpiringCache<boolean>(CACHE_TTL_MS, CACHE_CAPACITY);
  private readonly workspaceOrigins = new ExpiringCache<boolean>(CACHE_TTL_MS, CACHE_CAPACITY);

  constructor(
    private readonly keys: BrowserKeysRepository,
    private readonly schema: string,
    private readonly logger: HeraldLogger,
  ) {}

  async publicKey(value: string): Promise<BrowserPublicKey | null> {
    const hash = hashToken(value).toString('hex');
    return this.publicKeys.load(hash, () => this.keys.publicKeyByHash(hash));
  }

  /** The workspace's signing keys (active and rolled): a token verifies when one of them signed it. */
  async signingKeysOf(workspaceId: string): Promise<KeyObject[]> {
    return this.signingKeys.load(workspaceId, async () => (await this.keys.signingKeyPemsOf(workspaceId)).map((pem) => createPublicKey(pem)));
  }

  /**
   * A preflight carries no credentials, so it is answered for an origin that some public
   * key allows; the request itself is then held to its own key's origins.
   */
  async isAllowedByAnyKey(origin: string): Promise<boolean> {
    return this.origins.load(origin, () => this.keys.anyKeyAllows(origin));
  }

  /**
   * Whether one of the workspace's public keys allows the origin: the allowed origins of a
   * caller that presents no public key (`@suprsend/js-inbox`'s workspace key).
   */
  async isAllowedInWorkspace(workspaceId: string, origin: string): Promise<boolean> {
    return this.workspaceOrigins.load(`${workspaceId} ${origin}`, () => this.keys.workspaceKeyAllows(workspaceId, origin));
  }

  async apply(change: CredentialsChanged): Promise<void> {
    if (change.kind === 'public_key') {
      if (change.change === 'deleted') {
        await this.keys.removePublicKey(change.public_key_id);
      } else {
        await this.keys.savePublicKey(change);
      }
    } else if (change.kind === 'signing_key') {
      if (change.change === 'deleted') {
        await this.keys.removeSigningKey(change.signing_key_uid);
      } else {
        // A rolled key keeps verifying until it is deleted: backends switch to the new one without a gap.
        await this.keys.saveSigningKey(change);
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
