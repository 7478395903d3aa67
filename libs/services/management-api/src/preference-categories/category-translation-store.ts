import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace, lockWorkspaceForWrites } from '../workspaces/workspace-scope';
import { CategoryTranslation } from './category-translation';

/**
 * Per workspace and locale, the translated names and descriptions of the preference categories.
 * Each save and delete is announced (`definition.changed`, kind `category_translation`, id the
 * locale) so that preference-service translates the preference pages.
 */
@Injectable()
export class CategoryTranslationStore {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async locales(workspace: ScopedWorkspace): Promise<string[]> {
    const rows = (await this.db.query(`SELECT locale FROM management.preference_category_translations WHERE workspace_id = $1 ORDER BY locale`, [workspace.id])) as Array<{
      locale: string;
    }>;
    return rows.map((row) => row.locale);
  }

  /** 404 when the locale has no translation, with the reference's message. */
  async get(workspace: ScopedWorkspace, locale: string): Promise<CategoryTranslation> {
    const [row] = (await this.db.query(`SELECT document FROM management.preference_category_translations WHERE workspace_id = $1 AND locale = $2`, [
      workspace.id,
      locale,
    ])) as Array<{ document: CategoryTranslation }>;
    if (!row) throw notFound(locale);
    return row.document;
  }

  /** Creates or replaces the locale's translation. */
  async save(workspace: ScopedWorkspace, locale: string, translation: CategoryTranslation): Promise<CategoryTranslation> {
    await this.db.transaction(async (tx) => {
      // Versions are taken under the workspace lock, so their order is the order of the commits.
      await lockWorkspaceForWrites(tx, workspace.id);
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
    return this.get(workspace, locale);
  }

  async remove(workspace: ScopedWorkspace, locale: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await lockWorkspaceForWrites(tx, workspace.id);
      const removed = returningRows(
        await tx.query(`DELETE FROM management.preference_category_translations WHERE workspace_id = $1 AND locale = $2 RETURNING locale`, [workspace.id, locale]),
      );
      if (removed.length === 0) throw notFound(locale);
      const [{ version }] = (await tx.query(`SELECT nextval('management.preference_category_translation_versions') AS version`)) as Array<{ version: string }>;
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
}

const notFound = (locale: string) => HeraldError.notFound(`translation not found for locale: ${locale}`);
