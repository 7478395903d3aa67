import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, Not, Repository, SelectQueryBuilder } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { sha256Of } from '../hashing/canonical-hash';
import { OffsetPage } from '../http/offset-page';
import { Mode } from '../http/query-params';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace } from '../workspaces/workspace-scope';

export interface SchemaRow {
  readonly slug: string;
  readonly version_no: number;
  readonly status: 'draft' | 'active' | 'archived';
  readonly name: string;
  readonly description: string | null;
  readonly json_schema: Record<string, unknown>;
  readonly hash: string;
  readonly commit_message: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly committed_at: Date | null;
}

/** What a schema's definition.changed carries: the live version, which ingest validates trigger data with. */
export interface SchemaDocument {
  readonly slug: string;
  readonly version_no: number;
  readonly json_schema: Record<string, unknown>;
}

export interface SchemaDraft {
  readonly name: string;
  readonly description: string | null;
  readonly json_schema: Record<string, unknown>;
}

/** A schema of a workspace, as stored (its versions are `StoredSchemaVersion`s). */
export interface StoredSchema {
  workspaceId: string;
  slug: string;
  createdAt: Date;
  /** Counts the changes announced to other services: the version of definition.changed. */
  announcedChanges: number;
}

/** One version of a schema, as stored. */
export interface StoredSchemaVersion {
  workspaceId: string;
  slug: string;
  versionNo: number;
  status: SchemaRow['status'];
  name: string;
  description: string | null;
  jsonSchema: Record<string, unknown>;
  hash: string;
  commitMessage: string | null;
  updatedAt: Date;
  committedAt: Date | null;
}

/** `management.schemas` (created by the migrations, never by TypeORM). */
export const SchemaEntity = new EntitySchema<StoredSchema>({
  name: 'Schema',
  schema: 'management',
  tableName: 'schemas',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    slug: { type: 'text', primary: true },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    announcedChanges: { name: 'announced_changes', type: 'integer' },
  },
});

/** `management.schema_versions` (created by the migrations, never by TypeORM). */
export const SchemaVersionEntity = new EntitySchema<StoredSchemaVersion>({
  name: 'SchemaVersion',
  schema: 'management',
  tableName: 'schema_versions',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    slug: { type: 'text', primary: true },
    versionNo: { name: 'version_no', type: 'integer', primary: true },
    status: { type: 'text' },
    name: { type: 'text' },
    description: { type: 'text', nullable: true },
    jsonSchema: { name: 'json_schema', type: 'jsonb' },
    hash: { type: 'text' },
    commitMessage: { name: 'commit_message', type: 'text', nullable: true },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
    committedAt: { name: 'committed_at', type: 'timestamptz', nullable: true },
  },
});

/** Draft mode: the draft if there is one, else the live version. Live mode: the live version. */
function chosenSql(mode: Mode): string {
  if (mode === 'live') return `v.status = 'active'`;
  return `(v.status = 'draft' OR (v.status = 'active' AND NOT EXISTS (
    SELECT 1 FROM management.schema_versions d WHERE d.workspace_id = v.workspace_id AND d.slug = v.slug AND d.status = 'draft')))`;
}

/**
 * JSON Schemas of trigger data: a draft that changes, committed versions that do not.
 * Committing announces the live version on definition.changed (kind `schema`), in the
 * same transaction, for ingest's read model.
 */
@Injectable()
export class SchemaRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(workspace: ScopedWorkspace, mode: Mode, page: OffsetPage): Promise<{ count: number; rows: SchemaRow[] }> {
    // count(*), not getCount(): that counts DISTINCT concatenated keys, which can merge ('a', 11) with ('a1', 1).
    const counted = await this.chosen(this.db.manager, workspace.id, mode).select('count(*)::int', 'count').getRawOne<{ count: number }>();
    const rows = await this.withRowColumns(this.chosen(this.db.manager, workspace.id, mode))
      .orderBy('v.updatedAt', 'DESC')
      .addOrderBy('s.slug')
      .limit(page.limit)
      .offset(page.offset)
      .getRawMany<SchemaRow>();
    return { count: counted?.count ?? 0, rows };
  }

  async get(workspace: ScopedWorkspace, slug: string, mode: Mode): Promise<SchemaRow> {
    const row = await this.version(this.db.manager, workspace.id, slug, mode);
    if (!row) throw HeraldError.notFound(mode === 'live' ? `schema '${slug}' has no live version` : `schema '${slug}' not found`);
    return row;
  }

  /** Slugs of the schemas with a live version, which workflows may link. */
  async liveSlugs(workspaceId: string): Promise<Set<string>> {
    const rows = await this.versions().find({ select: { slug: true }, where: { workspaceId, status: 'active' } });
    return new Set(rows.map((row) => row.slug));
  }

  /** Whether the schema has a committed version with this number (live or archived). */
  async hasCommittedVersion(workspaceId: string, slug: string, versionNo: number): Promise<boolean> {
    return this.versions().exists({ where: { workspaceId, slug, versionNo, status: Not('draft') } });
  }

  /** Creates the schema or replaces its draft. */
  async saveDraft(workspace: ScopedWorkspace, slug: string, draft: SchemaDraft): Promise<SchemaRow> {
    return this.db.transaction(async (tx) => {
      await this.schemas(tx).createQueryBuilder().insert().values({ workspaceId: workspace.id, slug }).orIgnore().execute();
      await this.lock(tx, workspace.id, slug);
      // Hand-written: one upsert that numbers a new draft after the schema's last version, or replaces the draft.
      await tx.query(
        `INSERT INTO management.schema_versions (workspace_id, slug, version_no, status, name, description, json_schema, hash)
         VALUES ($1, $2, (SELECT coalesce(max(version_no), 0) + 1 FROM management.schema_versions WHERE workspace_id = $1 AND slug = $2),
                 'draft', $3, $4, $5::jsonb, $6)
         ON CONFLICT (workspace_id, slug) WHERE status = 'draft'
         DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, json_schema = EXCLUDED.json_schema, hash = EXCLUDED.hash, updated_at = now()`,
        [workspace.id, slug, draft.name, draft.description, JSON.stringify(draft.json_schema), sha256Of(draft)],
      );
      return this.written(tx, workspace.id, slug, 'draft');
    });
  }

  /** Makes the draft live and announces it; a schema without a draft answers 409. */
  async commit(workspace: ScopedWorkspace, slug: string, commitMessage: string | null): Promise<SchemaRow> {
    return this.db.transaction(async (tx) => {
      const schema = await this.lock(tx, workspace.id, slug);
      if (!schema) throw HeraldError.notFound(`schema '${slug}' not found`);
      const draft = await this.versions(tx).findOne({ select: { versionNo: true }, where: { workspaceId: workspace.id, slug, status: 'draft' } });
      if (!draft) throw new HeraldError('conflict', `schema '${slug}' has no draft to commit`);
      await this.versions(tx).update({ workspaceId: workspace.id, slug, status: 'active' }, { status: 'archived' });
      await this.versions(tx).update(
        { workspaceId: workspace.id, slug, status: 'draft' },
        { status: 'active', commitMessage, committedAt: () => 'now()', updatedAt: () => 'now()' },
      );
      const live = await this.written(tx, workspace.id, slug, 'live');
      // The schema's row is locked above, so the count read back is this commit's.
      await this.schemas(tx).increment({ workspaceId: workspace.id, slug }, 'announcedChanges', 1);
      const { announcedChanges: version } = await this.schemas(tx).findOneOrFail({ select: { announcedChanges: true }, where: { workspaceId: workspace.id, slug } });
      const document: SchemaDocument = { slug, version_no: live.version_no, json_schema: live.json_schema };
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [
        definitionChangedMessage({ kind: 'schema', change: 'committed', workspace_id: workspace.id, workspace_slug: workspace.slug, id: slug, version, document }, this.clock.now()),
      ]);
      return live;
    });
  }

  /** Changes to one schema take turns (its row, FOR UPDATE); null when there is no such schema. */
  private lock(tx: EntityManager, workspaceId: string, slug: string): Promise<Pick<StoredSchema, 'slug'> | null> {
    return this.schemas(tx).findOne({ select: { slug: true }, where: { workspaceId, slug }, lock: { mode: 'pessimistic_write' } });
  }

  private version(manager: EntityManager, workspaceId: string, slug: string, mode: Mode): Promise<SchemaRow | undefined> {
    return this.withRowColumns(this.chosen(manager, workspaceId, mode).andWhere('s.slug = :slug', { slug })).getRawOne<SchemaRow>();
  }

  /** A version this transaction has just written. */
  private async written(tx: EntityManager, workspaceId: string, slug: string, mode: Mode): Promise<SchemaRow> {
    const row = await this.version(tx, workspaceId, slug, mode);
    if (!row) throw new Error(`schema '${slug}' has no ${mode} version in the transaction that wrote it`);
    return row;
  }

  /** The workspace's schemas, each with its version chosen by `mode`. */
  private chosen(manager: EntityManager, workspaceId: string, mode: Mode): SelectQueryBuilder<StoredSchemaVersion> {
    return this.versions(manager)
      .createQueryBuilder('v')
      .innerJoin(SchemaEntity.options.name, 's', 's.workspaceId = v.workspaceId AND s.slug = v.slug')
      .where('s.workspaceId = :workspaceId', { workspaceId })
      .andWhere(chosenSql(mode));
  }

  /** A SchemaRow's columns, under its names. */
  private withRowColumns(query: SelectQueryBuilder<StoredSchemaVersion>): SelectQueryBuilder<StoredSchemaVersion> {
    return query
      .select('s.slug', 'slug')
      .addSelect('v.versionNo', 'version_no')
      .addSelect('v.status', 'status')
      .addSelect('v.name', 'name')
      .addSelect('v.description', 'description')
      .addSelect('v.jsonSchema', 'json_schema')
      .addSelect('v.hash', 'hash')
      .addSelect('v.commitMessage', 'commit_message')
      .addSelect('s.createdAt', 'created_at')
      .addSelect('v.updatedAt', 'updated_at')
      .addSelect('v.committedAt', 'committed_at');
  }

  private schemas(manager: EntityManager = this.db.manager): Repository<StoredSchema> {
    return manager.getRepository(SchemaEntity);
  }

  private versions(manager: EntityManager = this.db.manager): Repository<StoredSchemaVersion> {
    return manager.getRepository(SchemaVersionEntity);
  }
}
