import { randomUUID } from 'node:crypto';
import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, OnApplicationBootstrap } from '@nestjs/common';
import { Observable, from, lastValueFrom } from 'rxjs';
import { DEFINITION_APPLIED_TYPE, DefinitionApplied, DefinitionChanged, DefinitionKind, TOPICS, parseDefinitionApplied, parseEnvelope, readsSchemaVersion } from '@herald/contracts';
import { ConsumerRegistry, HERALD_CONFIG, HERALD_LOGGER, HeraldConfig, HeraldLogger, resolvesWithin } from '@herald/runtime';
import { collectAnnounced } from './announced-changes';

/**
 * The read models a trigger goes through, per kind of definition: ingest-api answers
 * 404 for a workflow it does not know (and checks trigger data against a linked
 * schema, and an event's properties against the one linked to it), and the engine runs it with its templates and
 * categories. A commit is visible once each of them acknowledged the version.
 */
const READERS: Partial<Record<DefinitionKind, readonly string[]>> = {
  workflow: ['ingest-api', 'workflow-engine'],
  template: ['workflow-engine'],
  category: ['workflow-engine'],
  schema: ['ingest-api'],
  event_schema: ['ingest-api'],
};

interface Waiter {
  readonly key: string;
  readonly version: number;
  readonly services: Set<string>;
  readonly resolve: () => void;
}

const keyOf = (workspaceId: string, kind: string, id: string): string => `${workspaceId}\u0000${kind}\u0000${id}`;

/**
 * Read-your-writes for commits. The services that keep read models of definitions
 * acknowledge each change they applied on `notify.definition.applied.v1`; every
 * management-api instance reads all acknowledgements (a consumer group of its own,
 * from the latest offset) and a commit's answer waits until the readers of what it
 * announced have it, at most HERALD_COMMIT_VISIBILITY_TIMEOUT_MS. Chosen over asking
 * ingest's API synchronously: management needs no address of the other services, it
 * works the same on the in-process bus and on Kafka, and it covers the engine too.
 */
@Injectable()
export class CommitVisibility implements OnApplicationBootstrap {
  /** The highest version each service acknowledged, per definition (only those seen since this instance started). */
  private readonly acknowledged = new Map<string, Map<string, number>>();
  private readonly waiters = new Set<Waiter>();

  constructor(
    private readonly consumers: ConsumerRegistry,
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.commitVisibilityTimeoutMs === 0) return;
    const subscription = await this.consumers.subscribe({
      groupId: `herald.management.visibility.${randomUUID()}`,
      topics: [TOPICS.definitionApplied.name],
      startFrom: 'latest',
      handler: async (message) => {
        // Only a hint for waiting commits: a message that does not parse is skipped, never retried.
        const envelope = parseEnvelope(message.value);
        if (!envelope.ok || envelope.value.type !== DEFINITION_APPLIED_TYPE || !readsSchemaVersion(envelope.value)) return;
        const parsed = parseDefinitionApplied(envelope.value.payload);
        if (parsed.ok) this.acknowledge(parsed.value);
      },
    });
    // From the latest offset: acknowledgements sent before the join would be missed, so
    // this one join is awaited (a fresh group, alone: it joins at once).
    await subscription.started;
  }

  /**
   * Resolves once every reader of each change acknowledged its version (or a newer one),
   * or when the timeout passes: the commit stands either way, so it then only logs.
   */
  async waitUntilVisible(changes: readonly DefinitionChanged[]): Promise<boolean> {
    const timeoutMs = this.config.commitVisibilityTimeoutMs;
    const pending = changes.filter((change) => READERS[change.kind] !== undefined);
    if (timeoutMs === 0 || pending.length === 0) return true;
    const waits = pending.map((change) => this.waitFor(keyOf(change.workspace_id, change.kind, change.id), change.version, READERS[change.kind] ?? []));
    const visible = await resolvesWithin(Promise.all(waits.map((w) => w.done)), timeoutMs);
    for (const wait of waits) this.waiters.delete(wait.waiter);
    if (!visible) {
      this.logger.warn('commit answered before the notification API acknowledged it (is every service running?)', {
        definitions: pending.map((change) => `${change.kind}/${change.id}@${change.version}`).join(', '),
        timeout_ms: timeoutMs,
      });
    }
    return visible;
  }

  private waitFor(key: string, version: number, readers: readonly string[]): { waiter: Waiter; done: Promise<void> } {
    let resolve: () => void = () => undefined;
    const done = new Promise<void>((r) => (resolve = r));
    const seen = this.acknowledged.get(key);
    const services = new Set(readers.filter((service) => (seen?.get(service) ?? 0) < version));
    const waiter: Waiter = { key, version, services, resolve };
    if (services.size === 0) resolve();
    else this.waiters.add(waiter);
    return { waiter, done };
  }

  private acknowledge(applied: DefinitionApplied): void {
    const key = keyOf(applied.workspace_id, applied.kind, applied.id);
    const seen = this.acknowledged.get(key) ?? new Map<string, number>();
    seen.set(applied.service, Math.max(seen.get(applied.service) ?? 0, applied.version));
    this.acknowledged.set(key, seen);
    for (const waiter of this.waiters) {
      if (waiter.key !== key || applied.version < waiter.version) continue;
      waiter.services.delete(applied.service);
      if (waiter.services.size === 0) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }
}

/** Every management request that announced a definition answers once it is visible (see CommitVisibility). */
@Injectable()
export class CommitVisibilityInterceptor implements NestInterceptor {
  constructor(private readonly visibility: CommitVisibility) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return from(
      (async () => {
        const { result, announced } = await collectAnnounced(() => lastValueFrom(next.handle(), { defaultValue: undefined }));
        await this.visibility.waitUntilVisible(announced);
        return result;
      })(),
    );
  }
}
