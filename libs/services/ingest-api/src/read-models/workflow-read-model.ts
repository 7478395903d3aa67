import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DefinitionChanged, TOPICS, definitionAppliedMessage } from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { CLOCK, Clock, ExpiringCache, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS } from '@herald/runtime';
import { PayloadSchemaLink } from './payload-schema-read-model';

export interface LiveWorkflow {
  readonly slug: string;
  readonly is_enabled: boolean;
  readonly trigger_type: string;
  /** The schema its triggers' data must satisfy, if it links one. */
  readonly payload_schema: PayloadSchemaLink | null;
}

interface AnnouncedWorkflow {
  readonly is_enabled?: boolean;
  readonly definition?: { readonly trigger_type?: string };
  readonly payload_schema?: PayloadSchemaLink | null;
}

const CACHE_TTL_MS = 2_000;
const CACHE_CAPACITY = 50_000;

/**
 * Which workflows are live in each workspace, from `notify.definition.changed.v1`: all
 * ingest needs to answer 404 for an unknown or disabled workflow. The engine keeps its
 * own read model with the whole definition.
 */
@Injectable()
export class WorkflowReadModel {
  private readonly cache = new ExpiringCache<LiveWorkflow | null>(CACHE_TTL_MS, CACHE_CAPACITY);

  constructor(
    @InjectDataSource('ingest') private readonly db: DataSource,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The live workflow, or null when the workspace has none with this slug. */
  async find(workspaceId: string, slug: string): Promise<LiveWorkflow | null> {
    // Only found workflows are cached: an unknown one may be committed any moment, and
    // another replica (which applied the commit) cannot clear this replica's cache.
    return this.cache.load(
      `${workspaceId}\u0000${slug}`,
      async () => {
        const [row] = (await this.db.query(`SELECT slug, is_enabled, trigger_type, payload_schema FROM ingest.workflows WHERE workspace_id = $1 AND slug = $2`, [
          workspaceId,
          slug,
        ])) as LiveWorkflow[];
        return row ?? null;
      },
      (row) => row !== null,
    );
  }

  /** A `workflow` change of `notify.definition.changed.v1` (DefinitionChangesConsumer). */
  async apply(change: DefinitionChanged): Promise<void> {
    if (change.change === 'deleted') {
      await this.db.query(`DELETE FROM ingest.workflows WHERE workspace_id = $1 AND slug = $2 AND version < $3`, [
        change.workspace_id,
        change.id,
        change.version,
      ]);
    } else {
      const document = (change.document ?? {}) as AnnouncedWorkflow;
      // A redelivered or reordered older announcement never overwrites a newer one.
      await this.db.query(
        `INSERT INTO ingest.workflows (workspace_id, slug, is_enabled, trigger_type, version, payload_schema) VALUES ($1, $2, $3, $4, $5, $6::jsonb)
         ON CONFLICT (workspace_id, slug) DO UPDATE SET is_enabled = EXCLUDED.is_enabled, trigger_type = EXCLUDED.trigger_type, version = EXCLUDED.version,
           payload_schema = EXCLUDED.payload_schema
         WHERE ingest.workflows.version < EXCLUDED.version`,
        [
          change.workspace_id,
          change.id,
          document.is_enabled !== false,
          document.definition?.trigger_type ?? 'api',
          change.version,
          document.payload_schema ? JSON.stringify(document.payload_schema) : null,
        ],
      );
    }
    this.cache.clear();
    this.logger.info('workflow read model updated', { workspace_id: change.workspace_id, workflow: change.id, change: change.change, version: change.version });
    // Management's commit waits for this before it answers, so a trigger right after a commit is not a 404.
    const applied = { service: 'ingest-api', workspace_id: change.workspace_id, kind: change.kind, id: change.id, version: change.version };
    await this.bus.publish(TOPICS.definitionApplied.name, [definitionAppliedMessage(applied, this.clock.now())]);
  }
}
