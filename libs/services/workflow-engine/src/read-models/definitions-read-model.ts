import { Controller, Inject, Injectable } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DEFINITION_CHANGED_TYPE, DefinitionChanged, TOPICS, definitionAppliedMessage, parseDefinitionChanged } from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { CLOCK, Clock, ConsumerOf, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS } from '@herald/runtime';

/** A workflow as management announces it: the live version and its definition. */
export interface AnnouncedWorkflow {
  readonly slug: string;
  readonly version_no: number;
  readonly is_enabled: boolean;
  readonly definition: { readonly trigger_type?: string; readonly trigger_events?: readonly string[] } & Record<string, unknown>;
}

type EngineKind = 'workflow' | 'template' | 'category';

/** A definition as the runs of a batch name it. */
export interface DefinitionKey {
  readonly workspaceId: string;
  readonly kind: EngineKind;
  readonly id: string;
}

/** Cached documents at most; past it the cache starts over (a workspace has tens of definitions, not thousands). */
const MAX_CACHED = 10_000;
const ENGINE_KINDS: readonly string[] = ['workflow', 'template', 'category'];

/**
 * The engine's copy of management's definitions (workflows with every version, live
 * templates, the category set), from `notify.definition.changed.v1`. One consumer group
 * for all engine replicas: they share the table. Reads go to the table; a run reads
 * its definitions once per batch of inputs, through a per-process cache checked against
 * the table's versions (`currentDocuments`).
 */
@Injectable()
export class DefinitionsReadModel {
  /** Live documents by `cacheKey`, with the version they were announced with (see `currentDocuments`). */
  private readonly cache = new Map<string, { version: number; document: unknown }>();

  constructor(
    @InjectDataSource('engine') private readonly db: DataSource,
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
    const rows = (await this.db.query(
      `SELECT r.i, d.version, CASE WHEN d.version = r.cached THEN NULL ELSE d.document END AS document
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::integer[]) WITH ORDINALITY AS r(workspace_id, kind, id, cached, i)
         JOIN engine.definitions d ON d.workspace_id = r.workspace_id AND d.kind = r.kind AND d.id = r.id`,
      [unique.map((k) => k.workspaceId), unique.map((k) => k.kind), unique.map((k) => k.id), unique.map((k) => this.cache.get(cacheKey(k))?.version ?? -1)],
    )) as Array<{ i: string | number; version: number; document: unknown }>;
    const found = new Set<string>();
    if (this.cache.size > MAX_CACHED) this.cache.clear();
    for (const row of rows) {
      const key = cacheKey(unique[Number(row.i) - 1]);
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
    const [row] = (await this.db.query(`SELECT definition FROM engine.workflow_versions WHERE workspace_id = $1 AND slug = $2 AND version_no = $3`, [
      workspaceId,
      slug,
      versionNo,
    ])) as Array<{ definition: AnnouncedWorkflow['definition'] }>;
    return row?.definition ?? null;
  }

  /** Live, enabled workflows whose trigger_events hold this event name (interface 2.2, trigger_type `event`). */
  async workflowsTriggeredBy(workspaceId: string, eventName: string): Promise<AnnouncedWorkflow[]> {
    const rows = (await this.db.query(
      `SELECT document FROM engine.definitions
        WHERE workspace_id = $1 AND kind = 'workflow' AND (document->>'is_enabled')::boolean
          AND document->'definition'->>'trigger_type' = 'event'
          AND document->'definition'->'trigger_events' ? $2
        ORDER BY id`,
      [workspaceId, eventName],
    )) as Array<{ document: AnnouncedWorkflow }>;
    return rows.map((r) => r.document);
  }

  /** Every template management announced, live document as it sent it, by slug. */
  async liveTemplates<T>(workspaceId: string): Promise<T[]> {
    const rows = (await this.db.query(`SELECT document FROM engine.definitions WHERE workspace_id = $1 AND kind = 'template' ORDER BY id`, [workspaceId])) as Array<{ document: T }>;
    return rows.map((r) => r.document);
  }

  async liveTemplate<T>(workspaceId: string, slug: string): Promise<T | null> {
    return (await this.document<T>(workspaceId, 'template', slug)) ?? null;
  }

  private async document<T>(workspaceId: string, kind: EngineKind, id: string): Promise<T | undefined> {
    const [row] = (await this.db.query(`SELECT document FROM engine.definitions WHERE workspace_id = $1 AND kind = $2 AND id = $3`, [
      workspaceId,
      kind,
      id,
    ])) as Array<{ document: T }>;
    return row?.document;
  }

  /** A workflow, template or category change of `notify.definition.changed.v1` (DefinitionChangesConsumer). */
  async apply(change: DefinitionChanged): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (change.change === 'deleted') {
        await tx.query(`DELETE FROM engine.definitions WHERE workspace_id = $1 AND kind = $2 AND id = $3 AND version < $4`, [
          change.workspace_id,
          change.kind,
          change.id,
          change.version,
        ]);
        return;
      }
      // A redelivered or reordered older announcement never overwrites a newer one.
      await tx.query(
        `INSERT INTO engine.definitions (workspace_id, kind, id, version, document) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (workspace_id, kind, id) DO UPDATE SET version = EXCLUDED.version, document = EXCLUDED.document
         WHERE engine.definitions.version < EXCLUDED.version`,
        [change.workspace_id, change.kind, change.id, change.version, JSON.stringify(change.document)],
      );
      if (change.kind === 'workflow') {
        const workflow = change.document as AnnouncedWorkflow;
        // Versions are immutable once committed: the first announcement of one is kept.
        await tx.query(
          `INSERT INTO engine.workflow_versions (workspace_id, slug, version_no, definition) VALUES ($1, $2, $3, $4)
           ON CONFLICT DO NOTHING`,
          [change.workspace_id, change.id, workflow.version_no, JSON.stringify(workflow.definition)],
        );
      }
    });
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

/** Keeps DefinitionsReadModel from management-api's announcements (one consumer group shared by the replicas). */
@Controller()
export class DefinitionChangesConsumer {
  constructor(private readonly definitions: DefinitionsReadModel) {}

  @ConsumerOf({ groupId: 'herald.engine.definitions', topics: [TOPICS.definitionChanged.name], messages: { type: DEFINITION_CHANGED_TYPE, parsePayload: parseDefinitionChanged } })
  async apply(@Payload() change: DefinitionChanged): Promise<void> {
    if (ENGINE_KINDS.includes(change.kind)) await this.definitions.apply(change);
  }
}
