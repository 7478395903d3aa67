import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace, lockWorkspaceForWrites } from '../workspaces/workspace-scope';
import { CategoryTranslation } from './category-translation';

/** A locale's translation of a workspace's preference categories, as stored. */
export interface StoredCategoryTranslation {
  workspaceId: string;
  locale: string;
  document: CategoryTranslation;
  /** From one sequence for every save and delete, so preference-service applies them in order. */
  version: string;
  updatedAt: Date;
}

/** `management.preference_category_translations` (created by the migrations, never by TypeORM). */
export const CategoryTranslationEntity = new EntitySchema<StoredCategoryTranslation>({
  name: 'CategoryTranslation',
  schema: 'management',
  tableName: 'preference_category_translations',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    locale: { type: 'text', primary: true },
    document: { type: 'jsonb' },
    version: { type: 'bigint' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
  },
});

/**
 * Per workspace and locale, the translated names and descriptions of the preference categories.
 * Each save and delete is announced (`definition.changed`, kind `category_translation`, id the
 * locale) so that preference-service translates the preference pages.
 */
@Injectable()
export class CategoryTranslationRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The locales the workspace has a translation for, in order. */
  async locales(workspace: ScopedWorkspace): Promise<string[]> {
    const rows = await this.translations().find({ select: { locale: true }, where: { workspaceId: workspace.id }, order: { locale: 'ASC' } });
    return rows.map((row) => row.locale);
  }

  /** 404 when the locale has no translation, with the reference's message. */
  async get(workspace: ScopedWorkspace, locale: string): Promise<CategoryTranslation> {
    const row = await this.translations().findOne({ select: { document: true }, where: { workspaceId: workspace.id, locale } });
    if (!row) throw notFound(locale);
    return row.document;
  }

  /** Creates or replaces the locale's translation. */
  async save(workspace: ScopedWorkspace, locale: string, translation: CategoryTranslation): Promise<CategoryTranslation> {
    await this.db.transaction(async (tx) => {
      // Versions are taken under the workspace lock, so their order is the order of the commits.
      await lockWorkspaceForWrites(tx, workspace.id);
      // Hand-written: one upsert that takes a new version from the sequence on every save.
      const [row] = returningRows<{ version: string }>(
        await tx.query(
          `INSERT INTO management.preference_category_translations (workspace_id, locale, document) VALUES ($1, $2, $3::jsonb)
           ON CONFLICT (workspace_id, locale) DO UPDATE
             SET document = EXCLUDED.document, version = nextval('management.preference_category_translation_versions'), updated_at = now()
           RETURNING version`,
          [workspace.id, locale, JSON.stringify(translation)],
        ),
      );
      await this.announce(tx, workspace, locale, Number(row.version), translation);
    });
    return translation;
  }

  async remove(workspace: ScopedWorkspace, locale: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      const removed = await this.translations(tx).delete({ workspaceId: workspace.id, locale });
      if (!removed.affected) throw notFound(locale);
      // A deletion is ordered among the saves by a version of its own.
      const [{ version }] = returningRows<{ version: string }>(await tx.query(`SELECT nextval('management.preference_category_translation_versions') AS version`));
      await this.announce(tx, workspace, locale, Number(version), undefined);
    });
  }

  private async announce(tx: EntityManager, workspace: ScopedWorkspace, locale: string, version: number, translation: CategoryTranslation | undefined): Promise<void> {
    await writeOutbox(tx, MANAGEMENT_OUTBOX, [
      definitionChangedMessage(
        {
          kind: 'category_translation',
          change: translation ? 'upserted' : 'deleted',
          workspace_id: workspace.id,
          workspace_slug: workspace.slug,
          id: locale,
          version,
          ...(translation ? { document: translation } : {}),
        },
        this.clock.now(),
      ),
    ]);
  }

  private translations(manager: EntityManager = this.db.manager): Repository<StoredCategoryTranslation> {
    return manager.getRepository(CategoryTranslationEntity);
  }
}

const notFound = (locale: string) => HeraldError.notFound(`translation not found for locale: ${locale}`);
