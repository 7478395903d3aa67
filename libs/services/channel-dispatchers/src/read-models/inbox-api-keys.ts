import { Inject, Injectable } from '@nestjs/common';
import { CredentialsChanged } from '@herald/contracts';
import { ExpiringCache, HERALD_LOGGER, HeraldLogger, hashToken } from '@herald/runtime';
import { ApiKeyRepository, InboxWorkspace } from './api-key.repository';

const CACHE_TTL_MS = 5_000;
const CACHE_CAPACITY = 10_000;

/**
 * API keys as management-api announces them (SHA-256 hashes, kept in `dispatch.api_keys`
 * by the repository), so the inbox API can authenticate `Bearer <api_key>` without
 * reading another service's tables. Lookups are cached for 5 s per replica, by hash;
 * the replica that applies a change drops its cache at once, the others within the TTL.
 */
@Injectable()
export class InboxApiKeys {
  private readonly cache = new ExpiringCache<InboxWorkspace | null>(CACHE_TTL_MS, CACHE_CAPACITY);

  constructor(
    private readonly keys: ApiKeyRepository,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** A change of `notify.credentials.changed.v1` (ReadModelConsumers, which then acknowledges it). */
  async apply(change: CredentialsChanged): Promise<void> {
    // Workspace keys sign SDK requests (WorkspaceKeySecrets); the inbox API takes API keys only.
    if (change.kind !== 'api_key') return;
    await this.keys.apply(change);
    this.cache.clear();
    this.logger.info('api key read model updated', { change: change.change, workspace_id: change.workspace_id });
  }

  /** The workspace of a Bearer API key, or null. */
  workspaceOfApiKey(apiKey: string): Promise<InboxWorkspace | null> {
    const hash = hashToken(apiKey).toString('hex');
    return this.cache.load(hash, () => this.keys.workspaceOfKeyHash(hash));
  }
}
