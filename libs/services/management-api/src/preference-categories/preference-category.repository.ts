import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, In, Repository } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace, lockWorkspaceForWrites } from '../workspaces/workspace-scope';
import { CategoryDocument, ROOT_CATEGORIES, categorySlugs } from './category-document';
import { validateCategoryDocument } from './validate-category-document';

export const CATEGORY_SCHEMA_URL = 'https://schema.suprsend.com/preference_category/v1/schema.json';

type VersionStatus = 'draft' | 'active' | 'archived';

/** One version of a workspace's category document, as stored. */
export interface StoredCategoryVersion {
  workspaceId: string;
  versionNo: number;
  status: VersionStatus;
  document: CategoryDocument;
  validationErrors: string[];
  commitMessage: string | null;
  committedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** `management.preference_category_versions` (created by the migrations, never by TypeORM). */
export const PreferenceCategoryVersionEntity = new EntitySchema<StoredCategoryVersion>({
  name: 'PreferenceCategoryVersion',
  schema: 'management',
  tableName: 'preference_category_versions',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    versionNo: { name: 'version_no', type: 'integer', primary: true },
    status: { type: 'text' },
    document: { type: 'jsonb' },
    validationErrors: { name: 'validation_errors', type: 'jsonb' },
    commitMessage: { name: 'commit_message', type: 'text', nullable: true },
    committedAt: { name: 'committed_at', type: 'timestamptz', nullable: true },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
  },
});

/** What a view is made of. */
type VersionRow = Pick<StoredCategoryVersion, 'versionNo' | 'status' | 'document' | 'validationErrors' | 'commitMessage' | 'committedAt'>;
const VIEW_COLUMNS = { versionNo: true, status: true, document: true, validationErrors: true, commitMessage: true, committedAt: true } as const;

export interface CategoryVersionView {
  readonly $schema: string;
  readonly root_categories: CategoryDocument['root_categories'];
  readonly version_no: number;
  readonly status: 'draft' | 'active';
  readonly validation_result: { readonly is_valid: boolean; readonly errors: string[] };
  readonly commit_message: string | null;
  readonly committed_at: Date | null;
}

/** Draft and live versions of a workspace's preference categories. */
@Injectable()
export class PreferenceCategoryRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The draft if there is one, else the live version, else an empty document. */
  async draftOrLive(workspace: ScopedWorkspace): Promise<CategoryVersionView> {
    const rows = await this.versions(this.db.manager, workspace.id, ['draft', 'active']);
    const row = rows.find((r) => r.status === 'draft') ?? rows.find((r) => r.status === 'active');
    return row ? view(row) : emptyDraft();
  }

  async live(workspace: ScopedWorkspace): Promise<CategoryVersionView> {
    const [row] = await this.versions(this.db.manager, workspace.id, ['active']);
    if (!row) throw HeraldError.notFound(`no live preference categories in workspace '${workspace.slug}'`);
    return view(row);
  }

  /** Slugs of the live categories, which workflows may name. */
  async liveCategorySlugs(workspaceId: string): Promise<Set<string>> {
    const [row] = await this.versions(this.db.manager, workspaceId, ['active']);
    return new Set(row ? categorySlugs(row.document) : []);
  }

  /** Saves the body as the draft (valid or not: validation_result says which). */
  async saveDraft(workspace: ScopedWorkspace, body: unknown): Promise<CategoryVersionView> {
    const { document, errors } = validateCategoryDocument(body);
    return this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      // Hand-written: one upsert that numbers a new draft after the workspace's last version, or replaces the draft.
      const [row] = returningRows<VersionRow>(
        await tx.query(
          `INSERT INTO management.preference_category_versions (workspace_id, version_no, status, document, validation_errors)
           VALUES ($1, (SELECT coalesce(max(version_no), 0) + 1 FROM management.preference_category_versions WHERE workspace_id = $1),
                   'draft', $2::jsonb, $3::jsonb)
           ON CONFLICT (workspace_id) WHERE status = 'draft'
           DO UPDATE SET document = EXCLUDED.document, validation_errors = EXCLUDED.validation_errors, updated_at = now()
           RETURNING version_no AS "versionNo", status, document, validation_errors AS "validationErrors", commit_message AS "commitMessage", committed_at AS "committedAt"`,
          [workspace.id, JSON.stringify(document), JSON.stringify(errors)],
        ),
      );
      return view(row);
    });
  }

  /** Makes the draft live and announces it; an invalid draft cannot go live. */
  async commit(workspace: ScopedWorkspace, commitMessage: string): Promise<CategoryVersionView> {
    return this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      const [draft] = await this.versions(tx, workspace.id, ['draft']);
      if (!draft) throw new HeraldError('conflict', 'there is no draft to commit');
      if (draft.validationErrors.length > 0) {
        throw HeraldError.fromValidationMessages(draft.validationErrors);
      }
      await this.versionsTable(tx).update({ workspaceId: workspace.id, status: 'active' }, { status: 'archived', updatedAt: () => 'now()' });
      await this.versionsTable(tx).update(
        { workspaceId: workspace.id, versionNo: draft.versionNo },
        { status: 'active', commitMessage, committedAt: () => 'now()', updatedAt: () => 'now()' },
      );
      const row = await this.versionsTable(tx).findOneOrFail({ select: VIEW_COLUMNS, where: { workspaceId: workspace.id, versionNo: draft.versionNo } });
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [
        definitionChangedMessage(
          {
            kind: 'category',
            change: 'committed',
            workspace_id: workspace.id,
            workspace_slug: workspace.slug,
            id: 'categories',
            version: row.versionNo,
            document: row.document,
          },
          this.clock.now(),
        ),
      ]);
      return view(row);
    });
  }

  private async versions(manager: EntityManager, workspaceId: string, statuses: VersionStatus[]): Promise<VersionRow[]> {
    return this.versionsTable(manager).find({
      select: VIEW_COLUMNS,
      where: { workspaceId, status: In(statuses) },
    });
  }

  private versionsTable(manager: EntityManager = this.db.manager): Repository<StoredCategoryVersion> {
    return manager.getRepository(PreferenceCategoryVersionEntity);
  }
}

function view(row: VersionRow): CategoryVersionView {
  return {
    $schema: CATEGORY_SCHEMA_URL,
    root_categories: row.document.root_categories,
    version_no: row.versionNo,
    status: row.status === 'draft' ? 'draft' : 'active',
    validation_result: { is_valid: row.validationErrors.length === 0, errors: row.validationErrors },
    commit_message: row.commitMessage,
    committed_at: row.committedAt,
  };
}

function emptyDraft(): CategoryVersionView {
  return {
    $schema: CATEGORY_SCHEMA_URL,
    root_categories: ROOT_CATEGORIES.map((root_category) => ({ root_category, sections: [] })),
    version_no: 0,
    status: 'draft',
    validation_result: { is_valid: true, errors: [] },
    commit_message: null,
    committed_at: null,
  };
}
