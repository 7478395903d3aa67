import { Inject, Injectable } from '@nestjs/common';
import { DefinitionChanged, TOPICS, definitionAppliedMessage } from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS } from '@herald/runtime';
import { AnnouncedWorkflow, DefinitionKey, DefinitionRepository, EngineKind } from './definition.repository';

/** Cached documents at most; past it the cache starts over (a workspace has tens of definitions, not thousands). */
const MAX_CACHED = 10_000;
const ENGINE_KINDS: readonly string[] = ['workflow', 'template', 'category'];

function isEngineKind(kind: string): kind is EngineKind {
  return ENGINE_KINDS.includes(kind);
}

/**
 * The engine's copy of management's definitions (workflows with every version, live
 * templates, the category set), from `notify.definition.changed.v1`, kept in
 * `engine.definitions` and `engine.workflow_versions` (DefinitionRepository). One
 * consumer group for all engine replicas: they share the tables. Reads go to the
 * tables; a run reads its definitions once per batch of inputs, through a per-process
 * cache checked against the table's versions (`currentDocuments`).
 */
@Injectable()
export class LiveDefinitions {
  /** Live documents by `cacheKey`, with the version they were announced with (see `currentDocuments`). */
  private readonly cache = new Map<string, { version: number; document: unknown }>();

  constructor(
    private readonly stored: DefinitionRepository,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The live documents of the definitions a batch of runs reads, in the order asked
   * (undefined where there is none). Cached in this process by version: one statement
   * per batch compares the cached versions with the table's and returns only the
   * documents that changed. Checking the table, rather than trusting an invalidation
   * message, keeps read-your-writes with several replicas: management answers a commit
   * once one replica applied the change to the table (notify.definition.applied.v1), and
   * every replica's next batch sees that version.
   */
  async currentDocuments(keys: readonly DefinitionKey[]): Promise<Array<unknown | undefined>> {
    const unique = [...new Map(keys.map((k) => [cacheKey(k), k])).values()];
    if (unique.length === 0) return [];
    const rows = await this.stored.changedDocuments(unique.map((k) => ({ ...k, cachedVersion: this.cache.get(cacheKey(k))?.version ?? -1 })));
    const found = new Set<string>();
    if (this.cache.size > MAX_CACHED) this.cache.clear();
    for (const row of rows) {
      const key = cacheKey(unique[row.index]);
      found.add(key);
      if (row.document !== null) this.cache.set(key, { version: row.version, document: row.document });
    }
    for (const key of unique.map(cacheKey)) if (!found.has(key)) this.cache.delete(key);
    return keys.map((k) => this.cache.get(cacheKey(k))?.document);
  }

  /** The live workflow, enabled or not; null when the workspace has none with this slug. */
  async liveWorkflow(workspaceId: string, slug: string): Promise<AnnouncedWorkflow | null> {
    return (await this.document<AnnouncedWorkflow>(workspaceId, 'workflow', slug)) ?? null;
  }

  /** The definition of one version, for a run that started with it. */
  async workflowVersion(workspaceId: string, slug: string, versionNo: number): Promise<AnnouncedWorkflow['definition'] | null> {
    // The definition is management's, as announced with the workflow.
    return (await this.stored.workflowVersion(workspaceId, slug, versionNo)) as AnnouncedWorkflow['definition'] | null;
  }

  /** Live, enabled workflows whose trigger_events hold this event name (interface 2.2, trigger_type `event`). */
  async workflowsTriggeredBy(workspaceId: string, eventName: string): Promise<AnnouncedWorkflow[]> {
    return this.stored.workflowsTriggeredBy(workspaceId, eventName);
  }

  /** Every template management announced, live document as it sent it, by slug. */
  async liveTemplates<T>(workspaceId: string): Promise<T[]> {
    // The document is management's, as announced: the caller names its shape.
    return (await this.stored.documentsOf(workspaceId, 'template')).map((document) => document as T);
  }

  async liveTemplate<T>(workspaceId: string, slug: string): Promise<T | null> {
    return (await this.document<T>(workspaceId, 'template', slug)) ?? null;
  }

  private async document<T>(workspaceId: string, kind: EngineKind, id: string): Promise<T | undefined> {
    return (await this.stored.documentOf({ workspaceId, kind, id })) as T | undefined;
  }

  /** A change of `notify.definition.changed.v1` (EngineDefinitionChangesConsumer): workflows, templates and the category set, the rest skipped. */
  async apply(change: DefinitionChanged): Promise<void> {
    const kind = change.kind;
    if (!isEngineKind(kind)) return;
    const key = { workspaceId: change.workspace_id, kind, id: change.id };
    if (change.change === 'deleted') {
      await this.stored.remove(key, change.version);
    } else {
      // A redelivered or reordered older announcement never overwrites a newer one (the repository's save).
      const document = change.document as NonNullable<unknown>;
      const workflow = kind === 'workflow' ? (document as AnnouncedWorkflow) : undefined;
      await this.stored.save(
        { ...key, version: change.version, document },
        workflow && { workspaceId: change.workspace_id, slug: change.id, versionNo: workflow.version_no, definition: workflow.definition },
      );
    }
    this.logger.info('definition read model updated', { workspace_id: change.workspace_id, kind: change.kind, id: change.id, change: change.change, version: change.version });
    // Management's commit waits for this before it answers (read-your-writes); a failed
    // publish fails the handler, and the redelivered change is applied (idempotently) and acknowledged again.
    const applied = { service: 'workflow-engine', workspace_id: change.workspace_id, kind: change.kind, id: change.id, version: change.version };
    await this.bus.publish(TOPICS.definitionApplied.name, [definitionAppliedMessage(applied, this.clock.now())]);
  }
}

function cacheKey({ workspaceId, kind, id }: DefinitionKey): string {
  return `${workspaceId}\u0000${kind}\u0000${id}`;
}
