import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, Repository, SelectQueryBuilder } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { DefinitionValidationContext, ValidationResult, WorkflowValidation, validateWorkflow } from '@herald/workflow';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { PreferenceCategoryRepository } from '../preference-categories/preference-category.repository';
import { SchemaRepository } from '../schemas/schema.repository';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { sha256Of } from '../hashing/canonical-hash';
import { EXPRESSION_SYNTAX, ExpressionSyntax, TEMPLATE_CATALOGUE, TemplateCatalogue } from './workflow-validation-ports';
import { WorkflowDocument, WorkflowVersionRow } from './workflow-view';

export type WorkflowMode = 'draft' | 'live';

/** A workflow of a workspace, as stored (its versions are `StoredWorkflowVersion`s). */
export interface StoredWorkflow {
  workspaceId: string;
  slug: string;
  isEnabled: boolean;
  createdAt: Date;
  lastExecutedAt: Date | null;
  /** Counts the changes announced to other services: the version of definition.changed. */
  announcedChanges: number;
}

/** One version of a workflow, as stored. */
export interface StoredWorkflowVersion {
  workspaceId: string;
  slug: string;
  versionNo: number;
  status: WorkflowVersionRow['status'];
  document: WorkflowDocument;
  validationResult: ValidationResult;
  hash: string;
  commitMessage: string | null;
  updatedBy: WorkflowVersionRow['updated_by'];
  createdAt: Date;
  updatedAt: Date;
  activeAt: Date | null;
}

/** The announced changes of a deleted workflow, which its slug goes on counting if created again. */
export interface StoredDeletedWorkflow {
  workspaceId: string;
  slug: string;
  announcedChanges: number;
}

/** `management.workflows` (created by the migrations, never by TypeORM). */
export const WorkflowEntity = new EntitySchema<StoredWorkflow>({
  name: 'Workflow',
  schema: 'management',
  tableName: 'workflows',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    slug: { type: 'text', primary: true },
    isEnabled: { name: 'is_enabled', type: 'boolean' },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    lastExecutedAt: { name: 'last_executed_at', type: 'timestamptz', nullable: true },
    announcedChanges: { name: 'announced_changes', type: 'integer' },
  },
});

/** `management.workflow_versions` (created by the migrations, never by TypeORM). */
export const WorkflowVersionEntity = new EntitySchema<StoredWorkflowVersion>({
  name: 'WorkflowVersion',
  schema: 'management',
  tableName: 'workflow_versions',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    slug: { type: 'text', primary: true },
    versionNo: { name: 'version_no', type: 'integer', primary: true },
    status: { type: 'text' },
    document: { type: 'jsonb' },
    validationResult: { name: 'validation_result', type: 'jsonb' },
    hash: { type: 'text' },
    commitMessage: { name: 'commit_message', type: 'text', nullable: true },
    updatedBy: { name: 'updated_by', type: 'jsonb', nullable: true },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
    activeAt: { name: 'active_at', type: 'timestamptz', nullable: true },
  },
});

/** `management.deleted_workflows` (created by the migrations, never by TypeORM). */
export const DeletedWorkflowEntity = new EntitySchema<StoredDeletedWorkflow>({
  name: 'DeletedWorkflow',
  schema: 'management',
  tableName: 'deleted_workflows',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    slug: { type: 'text', primary: true },
    announcedChanges: { name: 'announced_changes', type: 'integer' },
  },
});

/** Draft mode: the draft if there is one, else the live version. Live mode: the live version. */
function chosenSql(mode: WorkflowMode): string {
  if (mode === 'live') return `v.status = 'active'`;
  return `(v.status = 'draft' OR (v.status = 'active' AND NOT EXISTS (
    SELECT 1 FROM management.workflow_versions d WHERE d.workspace_id = v.workspace_id AND d.slug = v.slug AND d.status = 'draft')))`;
}

/**
 * Workflows and their versions: a draft that changes, committed versions that do
 * not. Only a draft that validates against the workspace's live categories and
 * templates goes live, and going live (or being enabled or disabled) is announced
 * on notify.definition.changed.v1 in the same transaction.
 */
@Injectable()
export class WorkflowRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(EXPRESSION_SYNTAX) private readonly syntax: ExpressionSyntax,
    @Inject(TEMPLATE_CATALOGUE) private readonly templates: TemplateCatalogue,
    private readonly categories: PreferenceCategoryRepository,
    private readonly schemas: SchemaRepository,
  ) {}

  /** The chosen version of each workflow (of those named by `slugs`, if given), last changed first. */
  async list(
    workspace: ScopedWorkspace,
    mode: WorkflowMode,
    slugs: readonly string[] | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ count: number; rows: WorkflowVersionRow[] }> {
    const chosen = (): SelectQueryBuilder<StoredWorkflowVersion> => {
      const query = this.joined(this.db.manager, workspace.id).andWhere(chosenSql(mode));
      // An empty list names no workflow.
      if (slugs) query.andWhere(slugs.length > 0 ? 'w.slug IN (:...slugs)' : 'false', { slugs: [...slugs] });
      return query;
    };
    // count(*), not getCount(): that counts DISTINCT concatenated keys.
    const counted = await chosen().select('count(*)::int', 'count').getRawOne<{ count: number }>();
    const rows = await this.withRowColumns(chosen())
      .orderBy('v.updatedAt', 'DESC')
      .addOrderBy('w.slug')
      .limit(page.limit)
      .offset(page.offset)
      .getRawMany<WorkflowVersionRow>();
    return { count: counted?.count ?? 0, rows };
  }

  async get(workspace: ScopedWorkspace, slug: string, mode: WorkflowMode): Promise<WorkflowVersionRow> {
    const row = await this.withRowColumns(this.joined(this.db.manager, workspace.id).andWhere('w.slug = :slug', { slug }).andWhere(chosenSql(mode))).getRawOne<WorkflowVersionRow>();
    if (!row) throw HeraldError.notFound(mode === 'live' ? `workflow '${slug}' has no live version` : `workflow '${slug}' not found`);
    return row;
  }

  /** Every version, the newest first. */
  async history(workspace: ScopedWorkspace, slug: string): Promise<WorkflowVersionRow[]> {
    const rows = await this.withRowColumns(this.joined(this.db.manager, workspace.id).andWhere('w.slug = :slug', { slug }))
      .orderBy('v.versionNo', 'DESC')
      .getRawMany<WorkflowVersionRow>();
    if (rows.length === 0) throw HeraldError.notFound(`workflow '${slug}' not found`);
    return rows;
  }

  /** Creates the workflow or replaces its draft; the draft records its validation result either way. */
  async saveDraft(workspace: ScopedWorkspace, slug: string, document: WorkflowDocument, isEnabled?: boolean): Promise<WorkflowVersionRow> {
    refuse(schemaLinkProblems(document));
    const { validation_result, categories } = await this.validate(workspace, document);
    refuse(categoryProblems(document, categories));
    return this.db.transaction(async (tx) => {
      // Hand-written: one upsert that keeps is_enabled unless given, and starts the count
      // of a slug used before by a deleted workflow where that one's count stopped.
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
        await this.versions(tx).update({ workspaceId: workspace.id, slug, status: 'draft' }, { validationResult: validation_result });
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
    await this.versions(tx).update({ workspaceId: workspace.id, slug, status: 'active' }, { status: 'archived' });
    const committed = await this.versions(tx)
      .createQueryBuilder()
      .update()
      .set({ status: 'active', commitMessage, validationResult: validation_result, activeAt: () => 'now()', updatedAt: () => 'now()' })
      .where({ workspaceId: workspace.id, slug, status: 'draft' })
      .returning(['versionNo'])
      .updateEntity(false)
      .execute();
    if (returningRows<{ version_no: number }>(committed.raw).length === 0) throw new HeraldError('conflict', `workflow '${slug}' has no draft to commit`);
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
      const updated = await this.workflows(tx)
        .createQueryBuilder()
        .update()
        .set({ isEnabled })
        .where({ workspaceId: workspace.id, slug })
        .returning(['slug'])
        .updateEntity(false)
        .execute();
      if (returningRows<{ slug: string }>(updated.raw).length === 0) throw HeraldError.notFound(`workflow '${slug}' not found`);
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
      const workflow = await this.workflows(tx).findOne({
        select: { slug: true, announcedChanges: true },
        where: { workspaceId: workspace.id, slug },
        lock: { mode: 'pessimistic_write' },
      });
      if (!workflow) throw HeraldError.notFound(`workflow '${slug}' not found`);
      const announcedChanges = workflow.announcedChanges + 1;
      await this.versions(tx).delete({ workspaceId: workspace.id, slug });
      await this.workflows(tx).delete({ workspaceId: workspace.id, slug });
      await this.deleted(tx)
        .createQueryBuilder()
        .insert()
        .values({ workspaceId: workspace.id, slug, announcedChanges })
        .orUpdate(['announced_changes'], ['workspace_id', 'slug'])
        .updateEntity(false)
        .execute();
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [
        definitionChangedMessage(
          {
            kind: 'workflow',
            change: 'deleted',
            workspace_id: workspace.id,
            workspace_slug: workspace.slug,
            id: slug,
            // Above every version announced before, so the read models drop all of them.
            version: announcedChanges,
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
    const counted = await this.workflows(tx)
      .createQueryBuilder()
      .update()
      .set({ announcedChanges: () => 'announced_changes + 1' })
      .where({ workspaceId: workspace.id, slug: live.slug })
      .returning(['announcedChanges'])
      .updateEntity(false)
      .execute();
    const [{ announced_changes: version }] = returningRows<{ announced_changes: number }>(counted.raw);
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
    // Hand-written: one upsert that numbers a new draft after the workflow's last version, or replaces the draft.
    await tx.query(
      `INSERT INTO management.workflow_versions (workspace_id, slug, version_no, status, document, validation_result, hash)
       VALUES ($1, $2, (SELECT coalesce(max(version_no), 0) + 1 FROM management.workflow_versions WHERE workspace_id = $1 AND slug = $2),
               'draft', $3::jsonb, $4::jsonb, $5)
       ON CONFLICT (workspace_id, slug) WHERE status = 'draft'
       DO UPDATE SET document = EXCLUDED.document, validation_result = EXCLUDED.validation_result, hash = EXCLUDED.hash, updated_at = now()`,
      [workspaceId, slug, JSON.stringify(document), JSON.stringify(validation_result), sha256Of(document)],
    );
  }

  /** Saves and commits of one workflow take turns (its row, FOR UPDATE). */
  private async lockWorkflow(tx: EntityManager, workspaceId: string, slug: string): Promise<void> {
    await this.workflows(tx).findOne({ select: { slug: true }, where: { workspaceId, slug }, lock: { mode: 'pessimistic_write' } });
  }

  /** The draft or the live version of a workflow, or a version by its number, if it has one. */
  private version(manager: EntityManager, workspaceId: string, slug: string, which: 'draft' | 'active' | number): Promise<WorkflowVersionRow | undefined> {
    const query = this.joined(manager, workspaceId).andWhere('w.slug = :slug', { slug });
    if (typeof which === 'number') query.andWhere('v.versionNo = :versionNo', { versionNo: which });
    else query.andWhere('v.status = :status', { status: which });
    return this.withRowColumns(query).getRawOne<WorkflowVersionRow>();
  }

  /** A version the same transaction has just written. */
  private async written(tx: EntityManager, workspaceId: string, slug: string, status: 'draft' | 'active'): Promise<WorkflowVersionRow> {
    const row = await this.version(tx, workspaceId, slug, status);
    if (!row) throw new Error(`workflow ${slug}: the ${status} version just written is missing`);
    return row;
  }

  /** The workspace's workflow versions, each joined to its workflow. */
  private joined(manager: EntityManager, workspaceId: string): SelectQueryBuilder<StoredWorkflowVersion> {
    return this.versions(manager)
      .createQueryBuilder('v')
      .innerJoin(WorkflowEntity.options.name, 'w', 'w.workspaceId = v.workspaceId AND w.slug = v.slug')
      .where('w.workspaceId = :workspaceId', { workspaceId });
  }

  /** A WorkflowVersionRow's columns, under its names. */
  private withRowColumns(query: SelectQueryBuilder<StoredWorkflowVersion>): SelectQueryBuilder<StoredWorkflowVersion> {
    return query
      .select('w.slug', 'slug')
      .addSelect('w.isEnabled', 'is_enabled')
      .addSelect('w.createdAt', 'created_at')
      .addSelect('w.lastExecutedAt', 'last_executed_at')
      .addSelect('v.versionNo', 'version_no')
      .addSelect('v.status', 'status')
      .addSelect('v.document', 'document')
      .addSelect('v.validationResult', 'validation_result')
      .addSelect('v.hash', 'hash')
      .addSelect('v.commitMessage', 'commit_message')
      .addSelect('v.updatedBy', 'updated_by')
      .addSelect('v.updatedAt', 'updated_at')
      .addSelect('v.activeAt', 'active_at');
  }

  private workflows(manager: EntityManager = this.db.manager): Repository<StoredWorkflow> {
    return manager.getRepository(WorkflowEntity);
  }

  private versions(manager: EntityManager = this.db.manager): Repository<StoredWorkflowVersion> {
    return manager.getRepository(WorkflowVersionEntity);
  }

  private deleted(manager: EntityManager = this.db.manager): Repository<StoredDeletedWorkflow> {
    return manager.getRepository(DeletedWorkflowEntity);
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
