import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { DefinitionValidationContext, ValidationResult, WorkflowValidation, validateWorkflow } from '@herald/workflow';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { returningRows } from '@herald/database';
import { PreferenceCategoryRepository } from '../preference-categories/preference-category.repository';
import { SchemaRepository } from '../schemas/schema.repository';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { sha256Of } from '../hashing/canonical-hash';
import { EXPRESSION_SYNTAX, ExpressionSyntax, TEMPLATE_CATALOGUE, TemplateCatalogue } from './workflow-validation-ports';
import { WorkflowDocument, WorkflowVersionRow } from './workflow-view';

const VERSION_COLUMNS = `w.slug, w.is_enabled, w.created_at, w.last_executed_at, v.version_no, v.status, v.document,
  v.validation_result, v.hash, v.commit_message, v.updated_by, v.updated_at, v.active_at`;

export type WorkflowMode = 'draft' | 'live';

/**
 * Workflows and their versions: a draft that changes, committed versions that do
 * not. Only a draft that validates against the workspace's live categories and
 * templates goes live, and going live (or being enabled or disabled) is announced
 * on notify.definition.changed.v1 in the same transaction.
 */
@Injectable()
export class WorkflowStore {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(EXPRESSION_SYNTAX) private readonly syntax: ExpressionSyntax,
    @Inject(TEMPLATE_CATALOGUE) private readonly templates: TemplateCatalogue,
    private readonly categories: PreferenceCategoryRepository,
    private readonly schemas: SchemaRepository,
  ) {}

  async list(
    workspace: ScopedWorkspace,
    mode: WorkflowMode,
    slugs: readonly string[] | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ count: number; rows: WorkflowVersionRow[] }> {
    const filter = 'AND ($2::text[] IS NULL OR w.slug = ANY($2::text[]))';
    const params: unknown[] = [workspace.id, slugs ?? null];
    const chosen = this.chosenVersionSql(mode);
    const [{ count }] = (await this.db.query(
      `SELECT count(*)::int AS count FROM management.workflows w JOIN management.workflow_versions v
          ON v.workspace_id = w.workspace_id AND v.slug = w.slug
       WHERE w.workspace_id = $1 ${filter} AND ${chosen}`,
      params,
    )) as Array<{ count: number }>;
    const rows = (await this.db.query(
      `SELECT ${VERSION_COLUMNS} FROM management.workflows w JOIN management.workflow_versions v
          ON v.workspace_id = w.workspace_id AND v.slug = w.slug
       WHERE w.workspace_id = $1 ${filter} AND ${chosen}
       ORDER BY v.updated_at DESC, w.slug LIMIT $3 OFFSET $4`,
      [...params, page.limit, page.offset],
    )) as WorkflowVersionRow[];
    return { count, rows };
  }

  async get(workspace: ScopedWorkspace, slug: string, mode: WorkflowMode): Promise<WorkflowVersionRow> {
    const [row] = (await this.db.query(
      `SELECT ${VERSION_COLUMNS} FROM management.workflows w JOIN management.workflow_versions v
          ON v.workspace_id = w.workspace_id AND v.slug = w.slug
       WHERE w.workspace_id = $1 AND w.slug = $2 AND ${this.chosenVersionSql(mode)}`,
      [workspace.id, slug],
    )) as WorkflowVersionRow[];
    if (!row) throw HeraldError.notFound(mode === 'live' ? `workflow '${slug}' has no live version` : `workflow '${slug}' not found`);
    return row;
  }

  async history(workspace: ScopedWorkspace, slug: string): Promise<WorkflowVersionRow[]> {
    const rows = (await this.db.query(
      `SELECT ${VERSION_COLUMNS} FROM management.workflows w JOIN management.workflow_versions v
          ON v.workspace_id = w.workspace_id AND v.slug = w.slug
       WHERE w.workspace_id = $1 AND w.slug = $2 ORDER BY v.version_no DESC`,
      [workspace.id, slug],
    )) as WorkflowVersionRow[];
    if (rows.length === 0) throw HeraldError.notFound(`workflow '${slug}' not found`);
    return rows;
  }

  /** Creates the workflow or replaces its draft; the draft records its validation result either way. */
  async saveDraft(workspace: ScopedWorkspace, slug: string, document: WorkflowDocument, isEnabled?: boolean): Promise<WorkflowVersionRow> {
    refuse(schemaLinkProblems(document));
    const { validation_result, categories } = await this.validate(workspace, document);
    refuse(categoryProblems(document, categories));
    return this.db.transaction(async (tx) => {
      // A slug used before by a deleted workflow goes on counting its announced changes.
      await tx.query(
        `INSERT INTO management.workflows (workspace_id, slug, is_enabled, announced_changes)
         VALUES ($1, $2, coalesce($3, true),
                 coalesce((SELECT announced_changes FROM management.deleted_workflows WHERE workspace_id = $1 AND slug = $2), 0))
         ON CONFLICT (workspace_id, slug) DO UPDATE SET is_enabled = coalesce($3, management.workflows.is_enabled)`,
        [workspace.id, slug, isEnabled ?? null],
      );
      await this.lockWorkflow(tx, workspace.id, slug);
      await this.writeDraft(tx, workspace.id, slug, document, validation_result);
      return this.written(tx, workspace.id, slug, 'draft');
    });
  }

  /**
   * Makes the draft live. It is validated again, against what is live now (a
   * template or category may have gone since the draft was saved).
   */
  async commit(workspace: ScopedWorkspace, slug: string, commitMessage: string | null): Promise<WorkflowVersionRow> {
    const draft = await this.get(workspace, slug, 'draft');
    if (draft.status !== 'draft') throw new HeraldError('conflict', `workflow '${slug}' has no draft to commit`);
    const { definition, validation_result } = await this.validate(workspace, draft.document);
    await this.refuseSchemaNotLive(workspace, draft.document);
    return this.db.transaction(async (tx) => {
      await this.lockWorkflow(tx, workspace.id, slug);
      if (!definition) {
        await tx.query(
          `UPDATE management.workflow_versions SET validation_result = $3::jsonb WHERE workspace_id = $1 AND slug = $2 AND status = 'draft'`,
          [workspace.id, slug, JSON.stringify(validation_result)],
        );
        throw HeraldError.fromValidationMessages(validation_result.errors);
      }
      return this.commitDraftIn(tx, workspace, slug, commitMessage, validation_result, definition);
    });
  }

  /**
   * Makes an earlier version live again as the next version: its definition, validated
   * against what is live now, replaces any pending draft and is committed at once. The
   * versions in between stay in the history.
   */
  async rollback(workspace: ScopedWorkspace, slug: string, versionNo: number, commitMessage: string | null): Promise<WorkflowVersionRow> {
    const target = await this.version(this.db.manager, workspace.id, slug, versionNo);
    if (!target) throw HeraldError.notFound(`workflow '${slug}' has no version ${versionNo}`);
    if (target.status === 'draft') throw new HeraldError('conflict', `version ${versionNo} of workflow '${slug}' is the draft: commit it instead`);
    const { definition, validation_result } = await this.validate(workspace, target.document);
    if (!definition) throw HeraldError.fromValidationMessages(validation_result.errors);
    await this.refuseSchemaNotLive(workspace, target.document);
    return this.db.transaction(async (tx) => {
      await this.lockWorkflow(tx, workspace.id, slug);
      await this.writeDraft(tx, workspace.id, slug, target.document, validation_result);
      return this.commitDraftIn(tx, workspace, slug, commitMessage ?? `rollback to version ${versionNo}`, validation_result, definition);
    });
  }

  /**
   * A document checked as saving it as a draft would check it, nothing saved: every
   * problem as `path: message`, those a save refuses outright (an unknown category, a
   * malformed payload_schema) included. For editors that check as the user types.
   */
  async check(workspace: ScopedWorkspace, document: WorkflowDocument): Promise<ValidationResult> {
    const refused = [...schemaLinkProblems(document)];
    const { validation_result, categories } = await this.validate(workspace, document);
    refused.push(...categoryProblems(document, categories));
    const errors = [...refused.map((problem) => `${problem.path}: ${problem.message}`), ...validation_result.errors];
    return { is_valid: errors.length === 0, errors };
  }

  /** A committed version, or the draft, by its number. */
  async versionByNumber(workspace: ScopedWorkspace, slug: string, versionNo: number): Promise<WorkflowVersionRow> {
    const row = await this.version(this.db.manager, workspace.id, slug, versionNo);
    if (!row) throw HeraldError.notFound(`workflow '${slug}' has no version ${versionNo}`);
    return row;
  }

  private async commitDraftIn(
    tx: EntityManager,
    workspace: ScopedWorkspace,
    slug: string,
    commitMessage: string | null,
    validation_result: ValidationResult,
    definition: unknown,
  ): Promise<WorkflowVersionRow> {
    await tx.query(
      `UPDATE management.workflow_versions SET status = 'archived' WHERE workspace_id = $1 AND slug = $2 AND status = 'active'`,
      [workspace.id, slug],
    );
    const [committed] = returningRows<{ version_no: number }>(
      await tx.query(
        `UPDATE management.workflow_versions
            SET status = 'active', commit_message = $3, validation_result = $4::jsonb, active_at = now(), updated_at = now()
          WHERE workspace_id = $1 AND slug = $2 AND status = 'draft' RETURNING version_no`,
        [workspace.id, slug, commitMessage, JSON.stringify(validation_result)],
      ),
    );
    if (!committed) throw new HeraldError('conflict', `workflow '${slug}' has no draft to commit`);
    const live = await this.written(tx, workspace.id, slug, 'active');
    await this.announce(tx, workspace, live, 'committed', definition);
    return live;
  }

  async setEnabled(workspace: ScopedWorkspace, slug: string, isEnabled: boolean): Promise<WorkflowVersionRow> {
    // Validated before the transaction: inside one, only the transaction's own
    // connection may be used (the embedded database runs one session, so a second
    // connection would wait for this transaction to end).
    const live = await this.version(this.db.manager, workspace.id, slug, 'active');
    const definition = live ? (await this.validate(workspace, live.document)).definition ?? live.document : undefined;
    return this.db.transaction(async (tx) => {
      const [updated] = returningRows<{ slug: string }>(
        await tx.query(`UPDATE management.workflows SET is_enabled = $3 WHERE workspace_id = $1 AND slug = $2 RETURNING slug`, [
          workspace.id,
          slug,
          isEnabled,
        ]),
      );
      if (!updated) throw HeraldError.notFound(`workflow '${slug}' not found`);
      const current = await this.version(tx, workspace.id, slug, 'active');
      // Only a live workflow can run; a draft-only one changes nothing the engine knows.
      if (!current) return this.written(tx, workspace.id, slug, 'draft');
      await this.announce(tx, workspace, current, isEnabled ? 'enabled' : 'disabled', definition ?? current.document);
      return current;
    });
  }

  /**
   * Deletes the workflow, its draft and every version, and announces it: ingest then
   * refuses new triggers (404). Runs already started are unaffected, since each carries
   * the definition it started with (the engine's run.started event).
   */
  async remove(workspace: ScopedWorkspace, slug: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [workflow] = (await tx.query(
        `SELECT announced_changes FROM management.workflows WHERE workspace_id = $1 AND slug = $2 FOR UPDATE`,
        [workspace.id, slug],
      )) as Array<{ announced_changes: number }>;
      if (!workflow) throw HeraldError.notFound(`workflow '${slug}' not found`);
      await tx.query(`DELETE FROM management.workflow_versions WHERE workspace_id = $1 AND slug = $2`, [workspace.id, slug]);
      await tx.query(`DELETE FROM management.workflows WHERE workspace_id = $1 AND slug = $2`, [workspace.id, slug]);
      await tx.query(
        `INSERT INTO management.deleted_workflows (workspace_id, slug, announced_changes) VALUES ($1, $2, $3)
         ON CONFLICT (workspace_id, slug) DO UPDATE SET announced_changes = EXCLUDED.announced_changes`,
        [workspace.id, slug, workflow.announced_changes + 1],
      );
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [
        definitionChangedMessage(
          {
            kind: 'workflow',
            change: 'deleted',
            workspace_id: workspace.id,
            workspace_slug: workspace.slug,
            id: slug,
            // Above every version announced before, so the read models drop all of them.
            version: workflow.announced_changes + 1,
          },
          this.clock.now(),
        ),
      ]);
    });
  }

  private async announce(
    tx: EntityManager,
    workspace: ScopedWorkspace,
    live: WorkflowVersionRow,
    change: 'committed' | 'enabled' | 'disabled',
    definition: unknown,
  ): Promise<void> {
    // Counts every announced change of this workflow, so a read model can drop stale ones.
    const [{ announced_changes: version }] = returningRows<{ announced_changes: number }>(
      await tx.query(
        `UPDATE management.workflows SET announced_changes = announced_changes + 1
          WHERE workspace_id = $1 AND slug = $2 RETURNING announced_changes`,
        [workspace.id, live.slug],
      ),
    );
    await writeOutbox(tx, MANAGEMENT_OUTBOX, [
      definitionChangedMessage(
        {
          kind: 'workflow',
          change,
          workspace_id: workspace.id,
          workspace_slug: workspace.slug,
          id: live.slug,
          version,
          document: {
            slug: live.slug,
            version_no: live.version_no,
            is_enabled: live.is_enabled,
            hash: live.hash,
            definition,
            // Not part of the engine's definition: ingest checks trigger data with it.
            payload_schema: live.document.payload_schema ?? null,
          },
        },
        this.clock.now(),
      ),
    ]);
  }

  /**
   * The definition a what-if replay runs: the workflow's draft, live version, a version
   * by number, or a document given inline, validated as a commit would be (400 with
   * `definition.<path>` for each error of an inline one).
   */
  async replayDefinition(workspace: ScopedWorkspace, slug: string, choice: { version: 'draft' | 'live' | number } | { document: WorkflowDocument }): Promise<{ definition: unknown; source: Record<string, unknown> }> {
    let document: WorkflowDocument;
    let source: Record<string, unknown>;
    if ('document' in choice) {
      await this.get(workspace, slug, 'live').catch(() => this.get(workspace, slug, 'draft'));
      document = choice.document;
      source = { kind: 'inline' };
    } else if (typeof choice.version === 'number') {
      const version = (await this.history(workspace, slug)).find((row) => row.version_no === choice.version);
      if (!version) throw HeraldError.notFound(`workflow '${slug}' has no version ${choice.version}`);
      document = version.document;
      source = { kind: 'version', version_no: version.version_no };
    } else {
      const row = await this.get(workspace, slug, choice.version);
      document = row.document;
      source = { kind: choice.version, version_no: row.version_no };
    }
    const { definition, validation_result } = await this.validate(workspace, document);
    if (!definition) {
      const prefix = 'document' in choice ? 'definition.' : '';
      throw HeraldError.fromValidationMessages(validation_result.errors.map((error) => `${prefix}${error}`));
    }
    return { definition, source };
  }

  private async validate(workspace: ScopedWorkspace, document: WorkflowDocument): Promise<WorkflowValidation & { categories: Set<string> }> {
    const [categories, templates] = await Promise.all([
      this.categories.liveCategorySlugs(workspace.id),
      this.templates.templateSlugs(workspace.id),
    ]);
    const context: DefinitionValidationContext = {
      jqSyntaxError: (expression) => this.syntax.jqSyntaxError(expression),
      jsonnetSyntaxError: (source) => this.syntax.jsonnetSyntaxError(source),
      categoryExists: (slug) => categories.has(slug),
      templateExists: (slug) => templates.has(slug),
    };
    return { ...validateWorkflow(document, context), categories };
  }

  /** A workflow goes live only linked to a schema that is live (ingest could not check its triggers otherwise). */
  private async refuseSchemaNotLive(workspace: ScopedWorkspace, document: WorkflowDocument): Promise<void> {
    const link = document.payload_schema as { schema: string; version_no?: number | null } | null | undefined;
    if (!link) return;
    if (!(await this.schemas.liveSlugs(workspace.id)).has(link.schema)) {
      throw HeraldError.validation([
        { path: 'payload_schema.schema', message: `no live schema with slug "${link.schema}" (commit it: PATCH /v1/{workspace}/schema/${link.schema}/commit/)` },
      ]);
    }
    if (typeof link.version_no === 'number' && !(await this.schemas.hasCommittedVersion(workspace.id, link.schema, link.version_no))) {
      throw HeraldError.validation([{ path: 'payload_schema.version_no', message: `schema "${link.schema}" has no committed version ${link.version_no}` }]);
    }
  }

  /** Creates the draft version, or replaces the pending one (its number stays). */
  private async writeDraft(tx: EntityManager, workspaceId: string, slug: string, document: WorkflowDocument, validation_result: ValidationResult): Promise<void> {
    await tx.query(
      `INSERT INTO management.workflow_versions (workspace_id, slug, version_no, status, document, validation_result, hash)
       VALUES ($1, $2, (SELECT coalesce(max(version_no), 0) + 1 FROM management.workflow_versions WHERE workspace_id = $1 AND slug = $2),
               'draft', $3::jsonb, $4::jsonb, $5)
       ON CONFLICT (workspace_id, slug) WHERE status = 'draft'
       DO UPDATE SET document = EXCLUDED.document, validation_result = EXCLUDED.validation_result, hash = EXCLUDED.hash, updated_at = now()`,
      [workspaceId, slug, JSON.stringify(document), JSON.stringify(validation_result), sha256Of(document)],
    );
  }

  /** Saves and commits of one workflow take turns. */
  private async lockWorkflow(tx: EntityManager, workspaceId: string, slug: string): Promise<void> {
    await tx.query(`SELECT slug FROM management.workflows WHERE workspace_id = $1 AND slug = $2 FOR UPDATE`, [workspaceId, slug]);
  }

  /** The draft or the live version of a workflow, or a version by its number, if it has one. */
  private async version(
    manager: EntityManager,
    workspaceId: string,
    slug: string,
    which: 'draft' | 'active' | number,
  ): Promise<WorkflowVersionRow | undefined> {
    const [row] = (await manager.query(
      `SELECT ${VERSION_COLUMNS} FROM management.workflows w JOIN management.workflow_versions v
          ON v.workspace_id = w.workspace_id AND v.slug = w.slug
       WHERE w.workspace_id = $1 AND w.slug = $2 AND ${typeof which === 'number' ? 'v.version_no = $3' : 'v.status = $3'}`,
      [workspaceId, slug, which],
    )) as WorkflowVersionRow[];
    return row;
  }

  /** A version the same transaction has just written. */
  private async written(tx: EntityManager, workspaceId: string, slug: string, status: 'draft' | 'active'): Promise<WorkflowVersionRow> {
    const row = await this.version(tx, workspaceId, slug, status);
    if (!row) throw new Error(`workflow ${slug}: the ${status} version just written is missing`);
    return row;
  }


  /** Draft mode: the draft if there is one, else the live version. Live mode: the live version. */
  private chosenVersionSql(mode: WorkflowMode): string {
    if (mode === 'live') return `v.status = 'active'`;
    return `(v.status = 'draft' OR (v.status = 'active' AND NOT EXISTS (
      SELECT 1 FROM management.workflow_versions d WHERE d.workspace_id = v.workspace_id AND d.slug = v.slug AND d.status = 'draft')))`;
  }
}

/** A save refuses these outright (400) rather than keeping them as a draft's validation errors. */
function refuse(problems: ReadonlyArray<{ path: string; message: string }>): void {
  if (problems.length > 0) throw HeraldError.validation(problems);
}

/** `payload_schema`: null, or `{schema, version_no?}` naming a schema by slug (the reference's shape). */
function schemaLinkProblems(document: WorkflowDocument): Array<{ path: string; message: string }> {
  const link = document.payload_schema;
  const errors: Array<{ path: string; message: string }> = [];
  if (link === undefined || link === null) return errors;
  if (typeof link !== 'object' || Array.isArray(link)) errors.push({ path: 'payload_schema', message: 'must be null or an object {schema, version_no}' });
  else {
    const { schema, version_no, ...rest } = link as Record<string, unknown>;
    if (typeof schema !== 'string' || schema === '') errors.push({ path: 'payload_schema.schema', message: 'is required: a schema slug' });
    if (version_no !== undefined && version_no !== null && !(Number.isInteger(version_no) && (version_no as number) >= 1)) {
      errors.push({ path: 'payload_schema.version_no', message: 'must be a positive integer or null (the live version)' });
    }
    for (const key of Object.keys(rest)) errors.push({ path: `payload_schema.${key}`, message: 'is not a field of payload_schema (schema, version_no)' });
  }
  return errors;
}

/**
 * A draft may be incomplete, but one naming a category the workspace does not have is
 * refused at once (not only at commit), with the slugs it could name.
 */
function categoryProblems(document: WorkflowDocument, categories: ReadonlySet<string>): Array<{ path: string; message: string }> {
  const category = (document as { category?: unknown }).category;
  if (typeof category !== 'string' || category === '' || categories.has(category)) return [];
  const valid = [...categories].sort();
  return [
    {
      path: 'category',
      message:
        valid.length > 0
          ? `no notification category with slug "${category}": must be one of ${valid.join(', ')} (or add it: POST /v1/{workspace}/preference_category/)`
          : `no notification category with slug "${category}": this workspace has no live categories yet (add them: POST /v1/{workspace}/preference_category/?commit=true)`,
    },
  ];
}
