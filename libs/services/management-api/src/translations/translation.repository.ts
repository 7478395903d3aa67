import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { WorkspaceEntity } from '../workspaces/workspace.repository';
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

/** A draft change of one file, as stored. */
export interface StoredTranslationDraft {
  workspaceId: string;
  filename: string;
  locale: string;
  namespace: string | null;
  content: TranslationFile['content'];
  /** Deleted at the next commit. */
  isDeleted: boolean;
  updatedAt: Date;
}

/** A committed version of the whole set, as stored. */
export interface StoredTranslationVersion {
  workspaceId: string;
  versionNo: number;
  files: TranslationFile[];
  commitMessage: string | null;
  committedAt: Date;
}

/** `management.translation_drafts` (created by the migrations, never by TypeORM). */
export const TranslationDraftEntity = new EntitySchema<StoredTranslationDraft>({
  name: 'TranslationDraft',
  schema: 'management',
  tableName: 'translation_drafts',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    filename: { type: 'text', primary: true },
    locale: { type: 'text' },
    namespace: { type: 'text', nullable: true },
    content: { type: 'jsonb' },
    isDeleted: { name: 'is_deleted', type: 'boolean' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
  },
});

/** `management.translation_versions` (created by the migrations, never by TypeORM). */
export const TranslationVersionEntity = new EntitySchema<StoredTranslationVersion>({
  name: 'TranslationVersion',
  schema: 'management',
  tableName: 'translation_versions',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    versionNo: { name: 'version_no', type: 'integer', primary: true },
    files: { type: 'jsonb' },
    commitMessage: { name: 'commit_message', type: 'text', nullable: true },
    committedAt: { name: 'committed_at', type: 'timestamptz' },
  },
});

/**
 * A workspace's locale files: drafts per file, and committed versions of the whole set.
 * A commit or a rollback writes the next version and announces it on definition.changed
 * in the same transaction (its version_no is the announcement's version).
 */
@Injectable()
export class TranslationRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The workspace's drafts, by file name. */
  async drafts(workspaceId: string, manager: EntityManager = this.db.manager): Promise<TranslationDraft[]> {
    return this.draftRows(manager, workspaceId);
  }

  /** The live version; version 0 with no files before the first commit. */
  async live(workspaceId: string, manager: EntityManager = this.db.manager): Promise<TranslationVersion> {
    const row = await this.versions(manager).findOne({ select: { versionNo: true, files: true }, where: { workspaceId }, order: { versionNo: 'DESC' } });
    return row ? { version_no: row.versionNo, files: row.files } : { version_no: 0, files: [] };
  }

  async version(workspaceId: string, versionNo: number): Promise<TranslationVersion | undefined> {
    const row = await this.versions().findOne({ select: { versionNo: true, files: true }, where: { workspaceId, versionNo } });
    return row ? { version_no: row.versionNo, files: row.files } : undefined;
  }

  async saveDraft(workspace: ScopedWorkspace, file: Omit<TranslationFile, 'updated_at'>): Promise<TranslationDraft> {
    return this.db.transaction(async (tx) => {
      // Saves take turns with commits, not with each other: FOR KEY SHARE waits for a commit
      // holding the workspace FOR UPDATE and holds the next one off. Without it, a save of an
      // existing draft could land between a commit's read of the drafts and its delete of them,
      // and be lost from both the version and the drafts.
      await this.lock(tx, workspace.id, 'for_key_share');
      await this.draftsTable(tx)
        .createQueryBuilder()
        .insert()
        .values({ workspaceId: workspace.id, filename: file.filename, locale: file.locale, namespace: file.namespace, content: file.content, isDeleted: false, updatedAt: () => 'now()' })
        .orUpdate(['content', 'is_deleted', 'updated_at'], ['workspace_id', 'filename'])
        .execute();
      const [draft] = await this.draftRows(tx, workspace.id, file.filename);
      return draft;
    });
  }

  /** Marks a file for deletion at the next commit; a draft never committed goes at once. 404 when there is no such file. */
  async deleteDraft(workspace: ScopedWorkspace, filename: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.lock(tx, workspace.id);
      const liveFile = (await this.live(workspace.id, tx)).files.find((file) => file.filename === filename);
      if (!liveFile) {
        const removed = await this.draftsTable(tx).delete({ workspaceId: workspace.id, filename });
        if (!removed.affected) throw HeraldError.notFound(`translation file '${filename}' not found`);
        return;
      }
      // A draft of the file keeps its content: only its deletion is marked.
      await this.draftsTable(tx)
        .createQueryBuilder()
        .insert()
        .values({ workspaceId: workspace.id, filename, locale: liveFile.locale, namespace: liveFile.namespace, content: liveFile.content, isDeleted: true, updatedAt: () => 'now()' })
        .orUpdate(['is_deleted', 'updated_at'], ['workspace_id', 'filename'])
        .execute();
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
      const target = await this.versions(tx).findOne({ select: { files: true }, where: { workspaceId: workspace.id, versionNo } });
      if (!target) throw HeraldError.notFound(`translation version ${versionNo} not found`);
      const before = await this.live(workspace.id, tx);
      const after = await this.announce(tx, workspace, before.version_no + 1, target.files, `rollback to version ${versionNo}`);
      return { before, after };
    });
  }

  private async announce(tx: EntityManager, workspace: ScopedWorkspace, versionNo: number, files: TranslationFile[], commitMessage: string | null): Promise<TranslationVersion> {
    await this.versions(tx).insert({ workspaceId: workspace.id, versionNo, files, commitMessage });
    await this.draftsTable(tx).delete({ workspaceId: workspace.id });
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

  /**
   * Takes the workspace row: commits, rollbacks and deletions take it FOR UPDATE and take
   * turns; draft saves take it FOR KEY SHARE, so they wait only for those.
   */
  private async lock(tx: EntityManager, workspaceId: string, mode: 'pessimistic_write' | 'for_key_share' = 'pessimistic_write'): Promise<void> {
    await tx.getRepository(WorkspaceEntity).findOne({ select: { id: true }, where: { id: workspaceId }, lock: { mode } });
  }

  /** The drafts as the API shows them (all of the workspace's, or the one file's), by file name. */
  private draftRows(manager: EntityManager, workspaceId: string, filename?: string): Promise<TranslationDraft[]> {
    const query = this.draftsTable(manager)
      .createQueryBuilder('d')
      .select('d.filename', 'filename')
      .addSelect('d.locale', 'locale')
      .addSelect('d.namespace', 'namespace')
      .addSelect('d.content', 'content')
      .addSelect('d.isDeleted', 'is_deleted')
      // The time as text to the microsecond (a Date keeps milliseconds): it is shown, and committed with the file.
      .addSelect(`to_char(d.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, 'updated_at')
      .where('d.workspaceId = :workspaceId', { workspaceId });
    if (filename !== undefined) query.andWhere('d.filename = :filename', { filename });
    return query.orderBy('d.filename').getRawMany<TranslationDraft>();
  }

  private draftsTable(manager: EntityManager = this.db.manager): Repository<StoredTranslationDraft> {
    return manager.getRepository(TranslationDraftEntity);
  }

  private versions(manager: EntityManager = this.db.manager): Repository<StoredTranslationVersion> {
    return manager.getRepository(TranslationVersionEntity);
  }
}
