import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { OffsetPage } from '../http/offset-page';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { SchemaRepository } from '../schemas/schema.repository';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

export interface EventRow {
  readonly name: string;
  readonly description: string;
  readonly schema_slug: string | null;
  readonly schema_version_no: number | null;
  readonly created_at: Date;
}

export interface EventSchemaLink {
  readonly schema: string;
  /** A committed version; null: the live one. */
  readonly version_no: number | null;
}

/** What an event's definition.changed (kind `event_schema`) carries: the schema checking its properties, if any. */
export interface EventSchemaDocument {
  readonly event: string;
  readonly payload_schema: EventSchemaLink | null;
}

/** What a registration or an update sets; a field left undefined keeps its value. */
export interface EventChange {
  readonly description?: string;
  readonly payload_schema?: EventSchemaLink;
}

export interface LinkedWorkflow {
  readonly slug: string;
  readonly usage: string[];
}

/** An event registered through the management API, as stored. */
export interface StoredEventDefinition {
  workspaceId: string;
  name: string;
  description: string;
  /** The linked schema: none, its live version (versionNo null), or one committed version. */
  schemaSlug: string | null;
  schemaVersionNo: number | null;
  /** Counts the schema links announced to other services: the version of definition.changed. */
  announcedChanges: number;
  createdAt: Date;
  updatedAt: Date;
}

/** `management.events` (created by the migrations, never by TypeORM). */
export const EventDefinitionEntity = new EntitySchema<StoredEventDefinition>({
  name: 'EventDefinition',
  schema: 'management',
  tableName: 'events',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    name: { type: 'text', primary: true },
    description: { type: 'text' },
    schemaSlug: { name: 'schema_slug', type: 'text', nullable: true },
    schemaVersionNo: { name: 'schema_version_no', type: 'integer', nullable: true },
    announcedChanges: { name: 'announced_changes', type: 'integer' },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
  },
});

/**
 * The events seen in a workspace: the ones registered here (POST, PATCH) and the ones a live
 * workflow triggers on, the latter dated by the first such workflow going live. Events ingested
 * by `/event/` are not recorded: that would be a write per request on ingest's hot path.
 */
const SEEN = `
  WITH triggered AS (
    SELECT e.name, min(coalesce(v.active_at, v.created_at)) AS created_at
      FROM management.workflow_versions v
     CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(v.document->'trigger_events') = 'array' THEN v.document->'trigger_events' ELSE '[]'::jsonb END) AS t(event)
     CROSS JOIN LATERAL (SELECT t.event #>> '{}' AS name) e
     WHERE v.workspace_id = $1 AND v.status = 'active' AND v.document->>'trigger_type' = 'event' AND jsonb_typeof(t.event) = 'string'
     GROUP BY e.name),
  registered AS (SELECT name, description, schema_slug, schema_version_no, created_at FROM management.events WHERE workspace_id = $1),
  seen AS (
    SELECT coalesce(r.name, t.name) AS name, coalesce(r.description, '') AS description, r.schema_slug, r.schema_version_no,
           coalesce(r.created_at, t.created_at) AS created_at
      FROM registered r FULL JOIN triggered t ON t.name = r.name)`;

/** An EventRow's columns, named so that a column added to `seen` later never reaches an answer unasked. */
const EVENT_COLUMNS = 'name, description, schema_slug, schema_version_no, created_at';

/**
 * Management's event definitions (not `@herald/event-store`'s EventStore): the events seen
 * in a workspace and their schema links, each link announced on definition.changed.
 */
@Injectable()
export class EventDefinitionRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    private readonly schemas: SchemaRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(workspace: ScopedWorkspace, page: OffsetPage): Promise<{ count: number; rows: EventRow[] }> {
    // Hand-written (here and in get): the seen events are a CTE over the live workflows' jsonb trigger events.
    const [{ count }] = returningRows<{ count: number }>(await this.db.query(`${SEEN} SELECT count(*)::int AS count FROM seen`, [workspace.id]));
    const rows = returningRows<EventRow>(
      await this.db.query(`${SEEN} SELECT ${EVENT_COLUMNS} FROM seen ORDER BY created_at DESC, name LIMIT $2 OFFSET $3`, [workspace.id, page.limit, page.offset]),
    );
    return { count, rows };
  }

  async get(workspace: ScopedWorkspace, name: string): Promise<EventRow> {
    const [row] = returningRows<EventRow>(await this.db.query(`${SEEN} SELECT ${EVENT_COLUMNS} FROM seen WHERE name = $2`, [workspace.id, name]));
    if (!row) throw HeraldError.notFound(`event '${name}' not found in workspace '${workspace.slug}'`);
    return row;
  }

  /** Registers the event or updates it; a linked schema must have a live version, or the committed version named. */
  async save(workspace: ScopedWorkspace, name: string, change: EventChange, mustBeSeen: boolean): Promise<EventRow> {
    if (mustBeSeen) await this.get(workspace, name);
    const link = change.payload_schema;
    if (link) await this.assertLinkable(workspace.id, link.schema, link.version_no);
    await this.db.transaction(async (tx) => {
      // Hand-written: one upsert that keeps the description and the link it is not given.
      await tx.query(
        `INSERT INTO management.events (workspace_id, name, description, schema_slug, schema_version_no)
         VALUES ($1, $2, coalesce($3, ''), $4, $5)
         ON CONFLICT (workspace_id, name) DO UPDATE SET
           description = coalesce($3, management.events.description),
           schema_slug = CASE WHEN $6 THEN EXCLUDED.schema_slug ELSE management.events.schema_slug END,
           schema_version_no = CASE WHEN $6 THEN EXCLUDED.schema_version_no ELSE management.events.schema_version_no END,
           updated_at = now()`,
        [workspace.id, name, change.description ?? null, link?.schema ?? null, link?.version_no ?? null, link !== undefined],
      );
      if (link) await this.announceLink(tx, workspace, name, link);
    });
    return this.get(workspace, name);
  }

  /** Removes the schema link; an event without one answers 400 (as the reference does). */
  async delinkSchema(workspace: ScopedWorkspace, name: string): Promise<EventRow> {
    const event = await this.get(workspace, name);
    if (event.schema_slug === null) throw HeraldError.validation([{ path: 'payload_schema', message: 'the event has no linked schema to delink' }]);
    await this.db.transaction(async (tx) => {
      await this.events(tx).update({ workspaceId: workspace.id, name }, { schemaSlug: null, schemaVersionNo: null, updatedAt: () => 'now()' });
      await this.announceLink(tx, workspace, name, null);
    });
    return this.get(workspace, name);
  }

  /** The live workflows triggered by the event (an unseen event answers 404). */
  async linkedWorkflows(workspace: ScopedWorkspace, name: string): Promise<LinkedWorkflow[]> {
    await this.get(workspace, name);
    // Hand-written: jsonb containment over the live workflow documents.
    const rows = returningRows<{ slug: string }>(
      await this.db.query(
        `SELECT slug FROM management.workflow_versions
          WHERE workspace_id = $1 AND status = 'active' AND document->>'trigger_type' = 'event' AND jsonb_typeof(document->'trigger_events') = 'array' AND document->'trigger_events' @> jsonb_build_array($2::text)
          ORDER BY slug`,
        [workspace.id, name],
      ),
    );
    return rows.map((row) => ({ slug: row.slug, usage: ['Trigger Event'] }));
  }

  /** Tells ingest which schema checks the event's properties (definition.changed, kind `event_schema`), in the same transaction. */
  private async announceLink(tx: EntityManager, workspace: ScopedWorkspace, name: string, link: EventSchemaLink | null): Promise<void> {
    // The event's row is locked by the write before this one, so the count read back is this change's.
    await this.events(tx).increment({ workspaceId: workspace.id, name }, 'announcedChanges', 1);
    const { announcedChanges: version } = await this.events(tx).findOneOrFail({ select: { announcedChanges: true }, where: { workspaceId: workspace.id, name } });
    const document: EventSchemaDocument = { event: name, payload_schema: link };
    await writeOutbox(tx, MANAGEMENT_OUTBOX, [
      definitionChangedMessage({ kind: 'event_schema', change: 'upserted', workspace_id: workspace.id, workspace_slug: workspace.slug, id: name, version, document }, this.clock.now()),
    ]);
  }

  private async assertLinkable(workspaceId: string, slug: string, versionNo: number | null): Promise<void> {
    if (versionNo === null) {
      if (!(await this.schemas.liveSlugs(workspaceId)).has(slug)) {
        throw HeraldError.validation([{ path: 'payload_schema.schema', message: `no live schema with slug "${slug}" (commit it: PATCH /v1/{workspace}/schema/${slug}/commit/)` }]);
      }
    } else if (!(await this.schemas.hasCommittedVersion(workspaceId, slug, versionNo))) {
      throw HeraldError.validation([{ path: 'payload_schema.version_no', message: `schema "${slug}" has no committed version ${versionNo}` }]);
    }
  }

  private events(manager: EntityManager = this.db.manager): Repository<StoredEventDefinition> {
    return manager.getRepository(EventDefinitionEntity);
  }
}
