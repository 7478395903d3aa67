import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, OnApplicationBootstrap } from '@nestjs/common';
import { Observable, from, lastValueFrom } from 'rxjs';
import { CREDENTIALS_APPLIED_TYPE, CredentialsChanged, TOPICS, parseCredentialsApplied, parseEnvelope, readsSchemaVersion } from '@herald/contracts';
import { AcknowledgementWaits, ConsumerRegistry, HERALD_CONFIG, HERALD_LOGGER, HeraldConfig, HeraldLogger, resolvesWithin } from '@herald/runtime';

/**
 * The services that check API keys on `{base_url}`, each from its own read model: a key
 * works once all of them hold it. Workspace keys and the browser's keys are not waited
 * for (yet): only API keys are minted for immediate use (the console's session key).
 */
const API_KEY_READERS = ['ingest-api', 'preference-service', 'workflow-engine', 'channel-dispatchers'] as const;

interface AnnouncedCredentials {
  readonly messageId: string;
  readonly change: CredentialsChanged;
}

/** The credentials changes a management request announced, per request (as `announced-changes.ts` does for definitions). */
const announcedInRequest = new AsyncLocalStorage<AnnouncedCredentials[]>();

export function recordAnnouncedCredentials(messageId: string, change: CredentialsChanged): void {
  announcedInRequest.getStore()?.push({ messageId, change });
}

const ackKey = (service: string, messageId: string): string => `${service}\u0000${messageId}`;

/**
 * Read-your-writes for API keys: the console mints a key and reads runs with it at once,
 * but the engine (like every service) authenticates from its own read model, fed
 * through the bus. So a request that announced an API key's creation or deletion answers
 * once every service that checks keys acknowledged the announcement on
 * `notify.credentials.applied.v1`, at most HERALD_COMMIT_VISIBILITY_TIMEOUT_MS (then it
 * answers anyway and logs), exactly like commits (CommitVisibility). One
 * acknowledgement per service suffices: its replicas share the read model's table, and
 * none can have cached a miss for a key nobody knew before.
 */
@Injectable()
export class CredentialsVisibility implements OnApplicationBootstrap {
  private readonly waits = new AcknowledgementWaits();

  constructor(
    private readonly consumers: ConsumerRegistry,
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.commitVisibilityTimeoutMs === 0) return;
    const subscription = await this.consumers.subscribe({
      groupId: `herald.management.credentials-visibility.${randomUUID()}`,
      topics: [TOPICS.credentialsApplied.name],
      startFrom: 'latest',
      handler: async (message) => {
        // Only a hint for waiting requests: a message that does not parse is skipped, never retried.
        const envelope = parseEnvelope(message.value);
        if (!envelope.ok || envelope.value.type !== CREDENTIALS_APPLIED_TYPE || !readsSchemaVersion(envelope.value)) return;
        const parsed = parseCredentialsApplied(envelope.value.payload);
        if (parsed.ok) this.waits.acknowledge(parsed.value.message_ids.map((id) => ackKey(parsed.value.service, id)));
      },
    });
    // From the latest offset: acknowledgements sent before the join would be missed, so this one join is awaited.
    await subscription.started;
  }

  /** Resolves once every API-key reader applied each announced API key change, or at the timeout (answers which). */
  async waitUntilApplied(announced: readonly AnnouncedCredentials[]): Promise<boolean> {
    const timeoutMs = this.config.commitVisibilityTimeoutMs;
    const ids = announced.filter(({ change }) => change.kind === 'api_key').flatMap(({ messageId }) => API_KEY_READERS.map((service) => ackKey(service, messageId)));
    if (timeoutMs === 0 || ids.length === 0) return true;
    const wait = this.waits.waitFor(ids);
    const visible = await resolvesWithin(wait.done, timeoutMs);
    wait.cancel();
    if (!visible) {
      this.logger.warn('API key change answered before every service acknowledged it (is every service running?)', { changes: announced.length, timeout_ms: timeoutMs });
    }
    return visible;
  }
}

/** Every management request that announced an API key change answers once it is applied everywhere (see CredentialsVisibility). */
@Injectable()
export class CredentialsVisibilityInterceptor implements NestInterceptor {
  constructor(private readonly visibility: CredentialsVisibility) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return from(
      (async () => {
        const announced: AnnouncedCredentials[] = [];
        const result = await announcedInRequest.run(announced, () => lastValueFrom(next.handle(), { defaultValue: undefined }));
        await this.visibility.waitUntilApplied(announced);
        return result;
      })(),
    );
  }
}
