import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, LessThan, Repository } from 'typeorm';
import { returningRows } from '@herald/database';

/** A workflow as management announces it: the live version and its definition. */
export interface AnnouncedWorkflow {
  readonly slug: string;
  readonly version_no: number;
  readonly is_enabled: boolean;
  readonly definition: { readonly trigger_type?: string; readonly trigger_events?: readonly string[] } & Record<string, unknown>;
}

/** The kinds of definition the engine keeps. */
export type EngineKind = 'workflow' | 'template' | 'category';

/** A definition as the runs of a batch name it. */
export interface DefinitionKey {
  readonly workspaceId: string;
  readonly kind: EngineKind;
  readonly id: string;
}

/** A definition's live document in `engine.definitions`, as management-api last announced it. */
export interface StoredDefinition {
  workspaceId: string;
  kind: EngineKind;
  id: string;
  /** The announcement's version: an older one never overwrites a newer one. */
  version: number;
  /** The document as announced: `NonNullable<unknown>`, as TypeORM's insert types refuse the `unknown` of its default values. */
  document: NonNullable<unknown>;
}

/** One version of a workflow in `engine.workflow_versions`, kept as first announced: a run keeps the version it started with. */
export interface StoredWorkflowVersion {
  workspaceId: string;
  slug: string;
  versionNo: number;
  /** The version's definition, as announced (see StoredDefinition.document). */
  definition: NonNullable<unknown>;
}

/** `engine.definitions` (created by the migrations, never by TypeORM). */
export const StoredDefinitionEntity = new EntitySchema<StoredDefinition>({
  name: 'StoredDefinition',
  schema: 'engine',
  tableName: 'definitions',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    kind: { type: 'text', primary: true },
    id: { type: 'text', primary: true },
    version: { type: 'integer' },
    document: { type: 'jsonb' },
  },
});

/** `engine.workflow_versions` (created by the migrations, never by TypeORM). */
export const StoredWorkflowVersionEntity = new EntitySchema<StoredWorkflowVersion>({
  name: 'StoredWorkflowVersion',
  schema: 'engine',
  tableName: 'workflow_versions',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    slug: { type: 'text', primary: true },
    versionNo: { name: 'version_no', type: 'integer', primary: true },
    definition: { type: 'jsonb' },
  },
});

/** The tables of DefinitionRepository, for ENGINE_ENTITIES. */
export const DEFINITION_ENTITIES = [StoredDefinitionEntity, StoredWorkflowVersionEntity];

/** A definition a batch asks for, with the version this process has cached (-1: none). */
export interface CachedDefinitionKey extends DefinitionKey {
  readonly cachedVersion: number;
}

/** A stored definition of `changedDocuments`: its index among the keys asked, its version, and its document unless the cached version is current. */
export interface ChangedDocument {
  readonly index: number;
  readonly version: number;
  /** null when the cached version is the stored one (the document is not read again). */
  readonly document: unknown;
}

/**
 * The engine's copy of management's definitions (`engine.definitions`: the live document
 * of every workflow, template and category set; `engine.workflow_versions`: every
 * workflow version announced), from `notify.definition.changed.v1`; LiveDefinitions
 * applies the announcements and caches the documents runs read. A redelivered or
 * reordered older announcement never overwrites (or deletes) a newer one.
 */
@Injectable()
export class DefinitionRepository {
  constructor(@InjectDataSource('engine') private readonly db: DataSource) {}

  /**
   * The stored versions of the definitions asked, with the document of each whose stored
   * version is not the one cached; a definition not stored has no row. One statement
   * per batch of runs.
   */
  async changedDocuments(asked: readonly CachedDefinitionKey[]): Promise<ChangedDocument[]> {
    // Hand-written: the hot path of every batch of runs; one index probe per key, whose cached version decides in the statement whether the document is sent.
    const rows = returningRows<{ i: string | number; version: number; document: unknown }>(
      await this.db.query(
        `SELECT r.i, d.version, CASE WHEN d.version = r.cached THEN NULL ELSE d.document END AS document
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::integer[]) WITH ORDINALITY AS r(workspace_id, kind, id, cached, i)
         JOIN engine.definitions d ON d.workspace_id = r.workspace_id AND d.kind = r.kind AND d.id = r.id`,
        [asked.map((k) => k.workspaceId), asked.map((k) => k.kind), asked.map((k) => k.id), asked.map((k) => k.cachedVersion)],
      ),
    );
    return rows.map((row) => ({ index: Number(row.i) - 1, version: row.version, document: row.document }));
  }

  /** The live, enabled workflows whose trigger_events hold this event name (trigger_type `event`), by slug. */
  async workflowsTriggeredBy(workspaceId: string, eventName: string): Promise<AnnouncedWorkflow[]> {
    // Hand-written: read for every event a workspace sends; the conditions are on the jsonb document (`?` has no query-builder form).
    const rows = returningRows<{ document: AnnouncedWorkflow }>(
      await this.db.query(
        `SELECT document FROM engine.definitions
        WHERE workspace_id = $1 AND kind = 'workflow' AND (document->>'is_enabled')::boolean
          AND document->'definition'->>'trigger_type' = 'event'
          AND document->'definition'->'trigger_events' ? $2
        ORDER BY id`,
        [workspaceId, eventName],
      ),
    );
    return rows.map((r) => r.document);
  }

  /** One definition's live document; undefined when none is stored. */
  async documentOf(key: DefinitionKey): Promise<unknown> {
    const row = await this.definitions().findOne({ select: { workspaceId: true, kind: true, id: true, document: true }, where: { workspaceId: key.workspaceId, kind: key.kind, id: key.id } });
    return row?.document;
  }

  /** The live documents of a kind in the workspace, by id. */
  async documentsOf(workspaceId: string, kind: EngineKind): Promise<unknown[]> {
    const rows = await this.definitions().find({ select: { workspaceId: true, kind: true, id: true, document: true }, where: { workspaceId, kind }, order: { id: 'ASC' } });
    return rows.map((row) => row.document);
  }

  /** The definition of one workflow version; null when it was never announced. */
  async workflowVersion(workspaceId: string, slug: string, versionNo: number): Promise<unknown> {
    const row = await this.db.getRepository(StoredWorkflowVersionEntity).findOne({ select: { workspaceId: true, slug: true, versionNo: true, definition: true }, where: { workspaceId, slug, versionNo } });
    return row?.definition ?? null;
  }

  /**
   * Writes an announced definition, unless the stored one is of the same or a newer
   * version, and (a workflow's) the version it announces, unless that version is stored
   * already (versions are immutable once committed: the first announcement is kept). One
   * transaction.
   */
  async save(definition: StoredDefinition, workflowVersion?: StoredWorkflowVersion): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.definitions(tx)
        .createQueryBuilder('stored')
        .insert()
        .values(definition)
        .orUpdate(['version', 'document'], ['workspace_id', 'kind', 'id'], { overwriteCondition: { where: 'stored.version < EXCLUDED.version' } })
        .execute();
      if (workflowVersion) await tx.getRepository(StoredWorkflowVersionEntity).createQueryBuilder().insert().values(workflowVersion).orIgnore().execute();
    });
  }

  /** Removes a deleted definition, unless the stored one is of the same or a newer version (created again since). Its workflow versions stay. */
  async remove(key: DefinitionKey, version: number): Promise<void> {
    await this.definitions().delete({ workspaceId: key.workspaceId, kind: key.kind, id: key.id, version: LessThan(version) });
  }

  private definitions(manager: EntityManager = this.db.manager): Repository<StoredDefinition> {
    return manager.getRepository(StoredDefinitionEntity);
  }
}
