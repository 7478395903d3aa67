import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { AUDIENCE_APPLIED_TYPE, TOPICS, parseAudienceApplied, parseEnvelope, readsSchemaVersion } from '@herald/contracts';
import { HeraldConfig } from '../config/herald-config';
import { HeraldLogger } from '../logging/logger';
import { ConsumerRegistry } from '../nest/consumer-registry';
import { resolvesWithin } from '../scheduling/timeouts';
import { HERALD_CONFIG, HERALD_LOGGER } from '../nest/tokens';

interface Waiter {
  readonly remaining: Set<string>;
  readonly resolve: () => void;
}

/**
 * The waits of audience writes for their acknowledgements, without I/O: `waitFor`
 * resolves once every id is acknowledged. Ids acknowledged shortly before their wait
 * began count too (`recentLimit` of them are remembered), so an answer can never miss
 * an acknowledgement that overtook it.
 */
export class AcknowledgementWaits {
  private readonly waiters = new Map<string, Set<Waiter>>();
  /** Acknowledged ids, oldest first (a Map keeps insertion order). */
  private readonly recent = new Map<string, true>();

  constructor(private readonly recentLimit = 100_000) {}

  /** A promise of the moment every id is acknowledged, and a way to stop waiting. */
  waitFor(ids: readonly string[]): { readonly done: Promise<void>; readonly cancel: () => void } {
    const remaining = new Set(ids.filter((id) => !this.recent.has(id)));
    if (remaining.size === 0) return { done: Promise.resolve(), cancel: () => undefined };
    let resolve: () => void = () => undefined;
    const done = new Promise<void>((r) => (resolve = r));
    const waiter: Waiter = { remaining, resolve };
    for (const id of remaining) {
      const waiting = this.waiters.get(id) ?? new Set<Waiter>();
      waiting.add(waiter);
      this.waiters.set(id, waiting);
    }
    return { done, cancel: () => this.forget(waiter) };
  }

  acknowledge(ids: readonly string[]): void {
    for (const id of ids) {
      this.remember(id);
      const waiting = this.waiters.get(id);
      if (waiting === undefined) continue;
      this.waiters.delete(id);
      for (const waiter of waiting) {
        waiter.remaining.delete(id);
        if (waiter.remaining.size === 0) waiter.resolve();
      }
    }
  }

  /** How many ids are waited for now (for tests and metrics). */
  pending(): number {
    return this.waiters.size;
  }

  private remember(id: string): void {
    this.recent.set(id, true);
    if (this.recent.size <= this.recentLimit) return;
    const oldest = this.recent.keys().next();
    if (!oldest.done) this.recent.delete(oldest.value);
  }

  private forget(waiter: Waiter): void {
    for (const id of waiter.remaining) {
      const waiting = this.waiters.get(id);
      waiting?.delete(waiter);
      if (waiting?.size === 0) this.waiters.delete(id);
    }
  }
}

/**
 * Read-your-writes for the audience. The engine reads a recipient's profile,
 * preferences, tenant and subscriptions from its own read model, fed through Kafka by
 * preference-service, while a trigger reaches the engine by another path: without an
 * order between the two, a profile saved just before a trigger could be missed by its
 * run. So an audience write answers only once the engine acknowledged it on
 * `notify.audience.applied.v1` (at most HERALD_AUDIENCE_VISIBILITY_TIMEOUT_MS; then it
 * answers anyway, as accepted, and logs). Every instance of a writing service reads
 * every acknowledgement (a consumer group of its own, from the latest offset), like
 * management's commit visibility. Chosen over a trigger waiting for positions it must
 * observe: the cost lands on audience writes, not on every trigger.
 */
@Injectable()
export class AudienceVisibility implements OnApplicationBootstrap {
  private readonly waits = new AcknowledgementWaits();

  constructor(
    private readonly consumers: ConsumerRegistry,
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.audienceVisibilityTimeoutMs === 0) return;
    const subscription = await this.consumers.subscribe({
      groupId: `herald.audience-visibility.${randomUUID()}`,
      topics: [TOPICS.audienceApplied.name],
      startFrom: 'latest',
      handler: async (message) => {
        // Only a hint for waiting writes: a message that does not parse is skipped, never retried.
        const envelope = parseEnvelope(message.value);
        if (!envelope.ok || envelope.value.type !== AUDIENCE_APPLIED_TYPE || !readsSchemaVersion(envelope.value)) return;
        const parsed = parseAudienceApplied(envelope.value.payload);
        if (parsed.ok) this.waits.acknowledge(parsed.value.message_ids);
      },
    });
    // From the latest offset: acknowledgements sent before the join would be missed, so
    // this one join is awaited (a fresh group, alone: it joins at once).
    await subscription.started;
  }

  /**
   * Resolves once the engine holds every one of `messageIds` (audience announcements, or
   * the accepted requests they carried out), or when the timeout passes: the write
   * stands either way, so it then only logs. Answers whether it became visible in time.
   */
  async waitUntilApplied(messageIds: readonly string[], what: string): Promise<boolean> {
    const timeoutMs = this.config.audienceVisibilityTimeoutMs;
    if (timeoutMs === 0 || messageIds.length === 0) return true;
    const wait = this.waits.waitFor(messageIds);
    const visible = await resolvesWithin(wait.done, timeoutMs);
    wait.cancel();
    if (!visible) {
      this.logger.warn('audience write answered before the workflow engine acknowledged it (is the engine running and keeping up?)', {
        what,
        messages: messageIds.length,
        timeout_ms: timeoutMs,
      });
    }
    return visible;
  }
}

/**
 * Imported by the services that take audience writes (ingest-api, preference-service);
 * one instance per process however many of them import it (the embedded mode).
 */
@Module({ providers: [AudienceVisibility], exports: [AudienceVisibility] })
export class AudienceVisibilityModule {}
