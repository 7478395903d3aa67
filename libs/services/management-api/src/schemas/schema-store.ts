import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { returningRows } from '@herald/database';
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

const COLUMNS = `s.slug, v.version_no, v.status, v.name, v.description, v.json_schema, v.hash, v.commit_message, s.created_at, v.updated_at, v.committed_at`;
const FROM = `management.schemas s JOIN management.schema_versions v ON v.workspace_id = s.workspace_id AND v.slug = s.slug`;

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
export class SchemaStore {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(workspace: ScopedWorkspace, mode: Mode, page: OffsetPage): Promise<{ count: number; rows: SchemaRow[] }> {
    const [{ count }] = (await this.db.query(`SELECT count(*)::int AS count FROM ${FROM} WHERE s.workspace_id = $1 AND ${chosenSql(mode)}`, [
      workspace.id,
    ])) as Array<{ count: number }>;
    const rows = (await this.db.query(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE s.workspace_id = $1 AND ${chosenSql(mode)} ORDER BY v.updated_at DESC, s.slug LIMIT $2 OFFSET $3`,
      [workspace.id, page.limit, page.offset],
    )) as SchemaRow[];
    return { count, rows };
  }

  async get(workspace: ScopedWorkspace, slug: string, mode: Mode): Promise<SchemaRow> {
    const row = await this.version(this.db.manager, workspace.id, slug, mode);
    if (!row) throw HeraldError.notFound(mode === 'live' ? `schema '${slug}' has no live version` : `schema '${slug}' not found`);
    return row;
  }

  /** Slugs of the schemas with a live version, which workflows may link. */
  async liveSlugs(workspaceId: string): Promise<Set<string>> {
    const rows = (await this.db.query(`SELECT slug FROM management.schema_versions WHERE workspace_id = $1 AND status = 'active'`, [workspaceId])) as Array<{
      slug: string;
    }>;
    return new Set(rows.map((row) => row.slug));
  }

  /** Whether the schema has a committed version with this number (live or archived). */
  async hasCommittedVersion(workspaceId: string, slug: string, versionNo: number): Promise<boolean> {
    const rows = (await this.db.query(
      `SELECT 1 FROM management.schema_versions WHERE workspace_id = $1 AND slug = $2 AND version_no = $3 AND status <> 'draft'`,
      [workspaceId, slug, versionNo],
    )) as unknown[];
    return rows.length > 0;
  }

  /** Creates the schema or replaces its draft. */
  async saveDraft(workspace: ScopedWorkspace, slug: string, draft: SchemaDraft): Promise<SchemaRow> {
    return this.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO management.schemas (workspace_id, slug) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [workspace.id, slug]);
      await this.lock(tx, workspace.id, slug);
      await tx.query(
        `INSERT INTO management.schema_versions (workspace_id, slug, version_no, status, name, description, json_schema, hash)
         VALUES ($1, $2, (SELECT coalesce(max(version_no), 0) + 1 FROM management.schema_versions WHERE workspace_id = $1 AND slug = $2),
                 'draft', $3, $4, $5::jsonb, $6)
         ON CONFLICT (workspace_id, slug) WHERE status = 'draft'
         DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, json_schema = EXCLUDED.json_schema, hash = EXCLUDED.hash, updated_at = now()`,
        [workspace.id, slug, draft.name, draft.description, JSON.stringify(draft.json_schema), sha256Of(draft)],
      );
      return (await this.version(tx, workspace.id, slug, 'draft')) as SchemaRow;
    });
  }

  /** Makes the draft live and announces it; a schema without a draft answers 409. */
  async commit(workspace: ScopedWorkspace, slug: string, commitMessage: string | null): Promise<SchemaRow> {
    return this.db.transaction(async (tx) => {
      const [schema] = await this.lock(tx, workspace.id, slug);
      if (!schema) throw HeraldError.notFound(`schema '${slug}' not found`);
      const [draft] = (await tx.query(`SELECT version_no FROM management.schema_versions WHERE workspace_id = $1 AND slug = $2 AND status = 'draft'`, [
        workspace.id,
        slug,
      ])) as Array<{ version_no: number }>;
      if (!draft) throw new HeraldError('conflict', `schema '${slug}' has no draft to commit`);
      await tx.query(`UPDATE management.schema_versions SET status = 'archived' WHERE workspace_id = $1 AND slug = $2 AND status = 'active'`, [workspace.id, slug]);
      await tx.query(
        `UPDATE management.schema_versions SET status = 'active', commit_message = $3, committed_at = now(), updated_at = now()
          WHERE workspace_id = $1 AND slug = $2 AND status = 'draft'`,
        [workspace.id, slug, commitMessage],
      );
      const live = (await this.version(tx, workspace.id, slug, 'live')) as SchemaRow;
      const [{ announced_changes: version }] = returningRows<{ announced_changes: number }>(
        await tx.query(
          `UPDATE management.schemas SET announced_changes = announced_changes + 1 WHERE workspace_id = $1 AND slug = $2 RETURNING announced_changes`,
          [workspace.id, slug],
        ),
      );
      const document: SchemaDocument = { slug, version_no: live.version_no, json_schema: live.json_schema };
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [
        definitionChangedMessage({ kind: 'schema', change: 'committed', workspace_id: workspace.id, workspace_slug: workspace.slug, id: slug, version, document }, this.clock.now()),
      ]);
      return live;
    });
  }

  private lock(tx: EntityManager, workspaceId: string, slug: string): Promise<Array<{ slug: string }>> {
    return tx.query(`SELECT slug FROM management.schemas WHERE workspace_id = $1 AND slug = $2 FOR UPDATE`, [workspaceId, slug]) as Promise<Array<{ slug: string }>>;
  }

  private async version(manager: EntityManager, workspaceId: string, slug: string, mode: Mode): Promise<SchemaRow | undefined> {
    const [row] = (await manager.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE s.workspace_id = $1 AND s.slug = $2 AND ${chosenSql(mode)}`, [
      workspaceId,
      slug,
    ])) as SchemaRow[];
    return row;
  }
}
