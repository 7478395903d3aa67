import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { returningRows } from '@herald/database';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { TranslationDraft, TranslationFile, committedFiles } from './translation-files';

export interface TranslationVersion {
  readonly version_no: number;
  readonly files: readonly TranslationFile[];
}

/** What definition.changed (kind `translation`, id `translations`) carries: the live set, which dispatchers render with. */
export interface TranslationsDocument {
  readonly version_no: number;
  readonly files: ReadonlyArray<Pick<TranslationFile, 'filename' | 'locale' | 'namespace' | 'content'>>;
}

export const TRANSLATIONS_ID = 'translations';

/**
 * A workspace's locale files: drafts per file, and committed versions of the whole set.
 * A commit or a rollback writes the next version and announces it on definition.changed
 * in the same transaction (its version_no is the announcement's version).
 */
@Injectable()
export class TranslationStore {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async drafts(workspaceId: string, manager: EntityManager = this.db.manager): Promise<TranslationDraft[]> {
    return (await manager.query(
      `SELECT filename, locale, namespace, content, is_deleted, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_at
         FROM management.translation_drafts WHERE workspace_id = $1 ORDER BY filename`,
      [workspaceId],
    )) as TranslationDraft[];
  }

  /** The live version; version 0 with no files before the first commit. */
  async live(workspaceId: string, manager: EntityManager = this.db.manager): Promise<TranslationVersion> {
    const [row] = (await manager.query(`SELECT version_no, files FROM management.translation_versions WHERE workspace_id = $1 ORDER BY version_no DESC LIMIT 1`, [
      workspaceId,
    ])) as TranslationVersion[];
    return row ?? { version_no: 0, files: [] };
  }

  async version(workspaceId: string, versionNo: number): Promise<TranslationVersion | undefined> {
    const [row] = (await this.db.query(`SELECT version_no, files FROM management.translation_versions WHERE workspace_id = $1 AND version_no = $2`, [
      workspaceId,
      versionNo,
    ])) as TranslationVersion[];
    return row;
  }

  async saveDraft(workspace: ScopedWorkspace, file: Omit<TranslationFile, 'updated_at'>): Promise<TranslationDraft> {
    await this.db.query(
      `INSERT INTO management.translation_drafts (workspace_id, filename, locale, namespace, content, is_deleted) VALUES ($1, $2, $3, $4, $5::jsonb, false)
       ON CONFLICT (workspace_id, filename) DO UPDATE SET content = EXCLUDED.content, is_deleted = false, updated_at = now()`,
      [workspace.id, file.filename, file.locale, file.namespace, JSON.stringify(file.content)],
    );
    return (await this.drafts(workspace.id)).find((draft) => draft.filename === file.filename) as TranslationDraft;
  }

  /** Marks a file for deletion at the next commit; a draft never committed goes at once. 404 when there is no such file. */
  async deleteDraft(workspace: ScopedWorkspace, filename: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.lock(tx, workspace.id);
      const liveFile = (await this.live(workspace.id, tx)).files.find((file) => file.filename === filename);
      if (!liveFile) {
        const removed = returningRows(await tx.query(`DELETE FROM management.translation_drafts WHERE workspace_id = $1 AND filename = $2 RETURNING filename`, [workspace.id, filename]));
        if (removed.length === 0) throw HeraldError.notFound(`translation file '${filename}' not found`);
        return;
      }
      await tx.query(
        `INSERT INTO management.translation_drafts (workspace_id, filename, locale, namespace, content, is_deleted) VALUES ($1, $2, $3, $4, $5::jsonb, true)
         ON CONFLICT (workspace_id, filename) DO UPDATE SET is_deleted = true, updated_at = now()`,
        [workspace.id, filename, liveFile.locale, liveFile.namespace, JSON.stringify(liveFile.content)],
      );
    });
  }

  /** Makes the drafts live as the next version; 409 when there is no draft. Returns the previous and the new live version. */
  async commit(workspace: ScopedWorkspace, commitMessage: string | null): Promise<{ before: TranslationVersion; after: TranslationVersion }> {
    return this.db.transaction(async (tx) => {
      await this.lock(tx, workspace.id);
      const drafts = await this.drafts(workspace.id, tx);
      if (drafts.length === 0) throw new HeraldError('conflict', 'there is no translation draft to commit');
      const before = await this.live(workspace.id, tx);
      const after = await this.announce(tx, workspace, before.version_no + 1, committedFiles(before.files, drafts), commitMessage);
      return { before, after };
    });
  }

  /** Makes version `versionNo`'s files live again as the next version, dropping the drafts; 404 for a version that does not exist. */
  async rollback(workspace: ScopedWorkspace, versionNo: number): Promise<{ before: TranslationVersion; after: TranslationVersion }> {
    return this.db.transaction(async (tx) => {
      await this.lock(tx, workspace.id);
      const [target] = (await tx.query(`SELECT files FROM management.translation_versions WHERE workspace_id = $1 AND version_no = $2`, [workspace.id, versionNo])) as Array<{
        files: TranslationFile[];
      }>;
      if (!target) throw HeraldError.notFound(`translation version ${versionNo} not found`);
      const before = await this.live(workspace.id, tx);
      const after = await this.announce(tx, workspace, before.version_no + 1, target.files, `rollback to version ${versionNo}`);
      return { before, after };
    });
  }

  private async announce(tx: EntityManager, workspace: ScopedWorkspace, versionNo: number, files: TranslationFile[], commitMessage: string | null): Promise<TranslationVersion> {
    await tx.query(`INSERT INTO management.translation_versions (workspace_id, version_no, files, commit_message) VALUES ($1, $2, $3::jsonb, $4)`, [
      workspace.id,
      versionNo,
      JSON.stringify(files),
      commitMessage,
    ]);
    await tx.query(`DELETE FROM management.translation_drafts WHERE workspace_id = $1`, [workspace.id]);
    const document: TranslationsDocument = {
      version_no: versionNo,
      files: files.map(({ filename, locale, namespace, content }) => ({ filename, locale, namespace, content })),
    };
    await writeOutbox(tx, MANAGEMENT_OUTBOX, [
      definitionChangedMessage(
        { kind: 'translation', change: 'committed', workspace_id: workspace.id, workspace_slug: workspace.slug, id: TRANSLATIONS_ID, version: versionNo, document },
        this.clock.now(),
      ),
    ]);
    return { version_no: versionNo, files };
  }

  /** Commits, rollbacks and deletions of one workspace's translations take turns. */
  private async lock(tx: EntityManager, workspaceId: string): Promise<void> {
    await tx.query(`SELECT id FROM management.workspaces WHERE id = $1 FOR UPDATE`, [workspaceId]);
  }
}
