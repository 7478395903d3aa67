import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { CREDENTIALS_CHANGED_TYPE, TOPICS, parseCredentialsChanged } from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { CLOCK, Clock, ConsumerRegistry, ExpiringCache, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS, acknowledgeCredentials, hashToken } from '@herald/runtime';
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
export class InboxApiKeys implements OnApplicationBootstrap {
  private readonly cache = new ExpiringCache<InboxWorkspace | null>(CACHE_TTL_MS, CACHE_CAPACITY);

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly consumers: ConsumerRegistry,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.credentialsChanged.name], {
      groupId: 'herald.dispatch.credentials',
      type: CREDENTIALS_CHANGED_TYPE,
      parsePayload: parseCredentialsChanged,
      handle: async (change, envelope) => {
        // Workspace keys sign SDK requests (WorkspaceKeySecrets); the inbox API takes API keys only.
        if (change.kind === 'api_key') {
          await this.keys.apply(change);
          this.cache.clear();
          this.logger.info('api key read model updated', { change: change.change, workspace_id: change.workspace_id });
        }
        // Management's key routes answer once the inbox API, too, takes (or refuses) the key.
        acknowledgeCredentials(this.bus, this.clock, this.logger, 'channel-dispatchers', envelope);
      },
    });
  }

  /** The workspace of a Bearer API key, or null. */
  workspaceOfApiKey(apiKey: string): Promise<InboxWorkspace | null> {
    const hash = hashToken(apiKey).toString('hex');
    return this.cache.load(hash, () => this.keys.workspaceOfKeyHash(hash));
  }
}
