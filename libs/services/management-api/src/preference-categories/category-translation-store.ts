import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { CategoryTranslation } from './category-translation';

/** Per workspace and locale, the translated names and descriptions of the preference categories. */
@Injectable()
export class CategoryTranslationStore {
  constructor(@InjectDataSource('management') private readonly db: DataSource) {}

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
    await this.db.query(
      `INSERT INTO management.preference_category_translations (workspace_id, locale, document) VALUES ($1, $2, $3::jsonb)
       ON CONFLICT (workspace_id, locale) DO UPDATE SET document = EXCLUDED.document, updated_at = now()`,
      [workspace.id, locale, JSON.stringify(translation)],
    );
    return this.get(workspace, locale);
  }

  async remove(workspace: ScopedWorkspace, locale: string): Promise<void> {
    const removed = returningRows(
      await this.db.query(`DELETE FROM management.preference_category_translations WHERE workspace_id = $1 AND locale = $2 RETURNING locale`, [workspace.id, locale]),
    );
    if (removed.length === 0) throw notFound(locale);
  }
}

const notFound = (locale: string) => HeraldError.notFound(`translation not found for locale: ${locale}`);
