import { Inject, Injectable } from '@nestjs/common';
import { CredentialsChanged } from '@herald/contracts';
import { ExpiringCache, HERALD_LOGGER, HeraldLogger, WorkspaceKeySecret } from '@herald/runtime';
import { WorkspaceKeyRepository } from './workspace-key.repository';

const CACHE_TTL_MS = 5_000;
const CACHE_CAPACITY = 10_000;

/**
 * Workspace keys and their secrets as management-api announces them, kept in
 * `dispatch.workspace_keys` (the repository): `@suprsend/js-inbox` proves its user with
 * an HMAC under the key's secret. Its own consumer group, so a new deployment reads
 * every key announced before it; API keys stay InboxApiKeys', which management-api
 * waits for. Lookups are cached for 5 s per replica (misses of one key share one read);
 * the replica that applies a change drops its cache at once, the others within the TTL.
 */
@Injectable()
export class WorkspaceKeySecrets {
  private readonly cache = new ExpiringCache<readonly WorkspaceKeySecret[]>(CACHE_TTL_MS, CACHE_CAPACITY);

  constructor(
    private readonly keys: WorkspaceKeyRepository,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** A change of `notify.credentials.changed.v1` (ReadModelConsumers): only workspace keys are this model's. */
  async apply(change: CredentialsChanged): Promise<void> {
    if (change.kind !== 'workspace_key') return;
    await this.keys.apply(change);
    this.cache.clear();
    this.logger.info('credentials read model updated', { kind: change.kind, change: change.change, workspace_id: change.workspace_id });
  }

  /** The secrets of a workspace key, each with its workspace (none when the key is unknown). */
  secretsOf(workspaceKey: string): Promise<readonly WorkspaceKeySecret[]> {
    return this.cache.load(workspaceKey, () => this.keys.secretsOf(workspaceKey));
  }
}
