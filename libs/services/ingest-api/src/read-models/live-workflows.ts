import { Inject, Injectable } from '@nestjs/common';
import { DefinitionChanged, TOPICS, definitionAppliedMessage } from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { CLOCK, Clock, ExpiringCache, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS } from '@herald/runtime';
import { PayloadSchemaLink } from './payload-schema.repository';
import { LiveWorkflow, WorkflowRepository } from './workflow.repository';

/** The document management-api announces for a workflow (`kind: 'workflow'`), as far as ingest reads it. */
interface WorkflowDocument {
  readonly is_enabled?: boolean;
  readonly definition?: { readonly trigger_type?: string };
  readonly payload_schema?: PayloadSchemaLink | null;
}

const CACHE_TTL_MS = 2_000;
const CACHE_CAPACITY = 50_000;

/**
 * Which workflows are live in each workspace, from `notify.definition.changed.v1`, kept
 * in `ingest.workflows` (the repository). Read on every trigger, so a found workflow is
 * cached 2 s per replica (misses of one workflow share one read); the replica that
 * applies a change drops its cache at once.
 */
@Injectable()
export class LiveWorkflows {
  private readonly cache = new ExpiringCache<LiveWorkflow | null>(CACHE_TTL_MS, CACHE_CAPACITY);

  constructor(
    private readonly stored: WorkflowRepository,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The live workflow, or null when the workspace has none with this slug. */
  async find(workspaceId: string, slug: string): Promise<LiveWorkflow | null> {
    // Only found workflows are cached: an unknown one may be committed any moment, and
    // another replica (which applied the commit) cannot clear this replica's cache.
    return this.cache.load(`${workspaceId}\u0000${slug}`, () => this.stored.liveOf(workspaceId, slug), (workflow) => workflow !== null);
  }

  /** A `workflow` change of `notify.definition.changed.v1` (IngestDefinitionChangesConsumer). */
  async apply(change: DefinitionChanged): Promise<void> {
    if (change.change === 'deleted') {
      await this.stored.remove(change.workspace_id, change.id, change.version);
    } else {
      const document = (change.document ?? {}) as WorkflowDocument;
      await this.stored.save({
        workspaceId: change.workspace_id,
        slug: change.id,
        isEnabled: document.is_enabled !== false,
        triggerType: document.definition?.trigger_type ?? 'api',
        version: change.version,
        payloadSchema: document.payload_schema ?? null,
      });
    }
    this.cache.clear();
    this.logger.info('workflow read model updated', { workspace_id: change.workspace_id, workflow: change.id, change: change.change, version: change.version });
    // Management's commit waits for this before it answers, so a trigger right after a commit is not a 404.
    const applied = { service: 'ingest-api', workspace_id: change.workspace_id, kind: change.kind, id: change.id, version: change.version };
    await this.bus.publish(TOPICS.definitionApplied.name, [definitionAppliedMessage(applied, this.clock.now())]);
  }
}
