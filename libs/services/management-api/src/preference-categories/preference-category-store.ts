import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { returningRows } from '@herald/database';
import { ScopedWorkspace, lockWorkspaceForWrites } from '../workspaces/workspace-scope';
import { CategoryDocument, ROOT_CATEGORIES, categorySlugs } from './category-document';
import { validateCategoryDocument } from './validate-category-document';

export const CATEGORY_SCHEMA_URL = 'https://schema.suprsend.com/preference_category/v1/schema.json';

interface VersionRow {
  version_no: number;
  status: 'draft' | 'active' | 'archived';
  document: CategoryDocument;
  validation_errors: string[];
  commit_message: string | null;
  committed_at: Date | null;
}

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
export class PreferenceCategoryStore {
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
      const [row] = (await tx.query(
        `INSERT INTO management.preference_category_versions (workspace_id, version_no, status, document, validation_errors)
         VALUES ($1, (SELECT coalesce(max(version_no), 0) + 1 FROM management.preference_category_versions WHERE workspace_id = $1),
                 'draft', $2::jsonb, $3::jsonb)
         ON CONFLICT (workspace_id) WHERE status = 'draft'
         DO UPDATE SET document = EXCLUDED.document, validation_errors = EXCLUDED.validation_errors, updated_at = now()
         RETURNING version_no, status, document, validation_errors, commit_message, committed_at`,
        [workspace.id, JSON.stringify(document), JSON.stringify(errors)],
      )) as VersionRow[];
      return view(row);
    });
  }

  /** Makes the draft live and announces it; an invalid draft cannot go live. */
  async commit(workspace: ScopedWorkspace, commitMessage: string): Promise<CategoryVersionView> {
    return this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      const [draft] = await this.versions(tx, workspace.id, ['draft']);
      if (!draft) throw new HeraldError('conflict', 'there is no draft to commit');
      if (draft.validation_errors.length > 0) {
        throw HeraldError.fromValidationMessages(draft.validation_errors);
      }
      await tx.query(
        `UPDATE management.preference_category_versions SET status = 'archived', updated_at = now()
          WHERE workspace_id = $1 AND status = 'active'`,
        [workspace.id],
      );
      const [row] = returningRows<VersionRow>(
        await tx.query(
          `UPDATE management.preference_category_versions
              SET status = 'active', commit_message = $3, committed_at = now(), updated_at = now()
            WHERE workspace_id = $1 AND version_no = $2
            RETURNING version_no, status, document, validation_errors, commit_message, committed_at`,
          [workspace.id, draft.version_no, commitMessage],
        ),
      );
      await writeOutbox(tx, MANAGEMENT_OUTBOX, [
        definitionChangedMessage(
          {
            kind: 'category',
            change: 'committed',
            workspace_id: workspace.id,
            workspace_slug: workspace.slug,
            id: 'categories',
            version: row.version_no,
            document: row.document,
          },
          this.clock.now(),
        ),
      ]);
      return view(row);
    });
  }

  private async versions(manager: EntityManager, workspaceId: string, statuses: string[]): Promise<VersionRow[]> {
    return (await manager.query(
      `SELECT version_no, status, document, validation_errors, commit_message, committed_at
         FROM management.preference_category_versions WHERE workspace_id = $1 AND status = ANY($2::text[])`,
      [workspaceId, statuses],
    )) as VersionRow[];
  }
}

function view(row: VersionRow): CategoryVersionView {
  return {
    $schema: CATEGORY_SCHEMA_URL,
    root_categories: row.document.root_categories,
    version_no: row.version_no,
    status: row.status === 'draft' ? 'draft' : 'active',
    validation_result: { is_valid: row.validation_errors.length === 0, errors: row.validation_errors },
    commit_message: row.commit_message,
    committed_at: row.committed_at,
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
