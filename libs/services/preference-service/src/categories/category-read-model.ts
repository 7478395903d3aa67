import { Controller, Inject, Injectable } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CategoryDocument, LocatedCategory, indexCategories } from '@herald/audience';
import { CategoryTranslationDocument, DEFINITION_CHANGED_TYPE, DefinitionChanged, HeraldError, TOPICS, parseDefinitionChanged } from '@herald/contracts';
import { ConsumerOf, HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { CategoryTexts, translationLocales } from './category-texts';

/**
 * The live preference categories of each workspace, as management-api announces them
 * (`notify.definition.changed.v1`, kind `category`, the whole document each time), and
 * their translations (kind `category_translation`, one locale each time).
 */
@Injectable()
export class CategoryReadModel {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** Every live category of the workspace, by slug (none before the first commit). */
  async categories(workspaceId: string, manager: EntityManager = this.db.manager): Promise<Map<string, LocatedCategory>> {
    const [row] = (await manager.query(`SELECT document FROM audience.category_documents WHERE workspace_id = $1`, [workspaceId])) as Array<{
      document: CategoryDocument;
    }>;
    return row ? indexCategories(row.document) : new Map();
  }

  /** One live category; 404 in the short shape of interface 7 naming it. */
  async category(workspaceId: string, slug: string, manager?: EntityManager): Promise<LocatedCategory> {
    const located = (await this.categories(workspaceId, manager)).get(slug);
    if (!located) throw HeraldError.notFound(`category '${slug}' not found`, 'short');
    return located;
  }

  /** The section and category texts in `locale` (with its fallbacks); untranslated when no locale is asked. */
  async texts(workspaceId: string, locale: string | undefined): Promise<CategoryTexts> {
    const chain = translationLocales(locale);
    if (chain.length === 0) return CategoryTexts.untranslated;
    const rows = (await this.db.query(`SELECT locale_key, document FROM audience.category_translations WHERE workspace_id = $1 AND locale_key = ANY($2::text[])`, [
      workspaceId,
      chain,
    ])) as Array<{ locale_key: string; document: CategoryTranslationDocument }>;
    const byLocale = new Map(rows.map((row) => [row.locale_key, row.document]));
    return new CategoryTexts(chain.flatMap((each) => byLocale.get(each) ?? []));
  }

  /** A change of `notify.definition.changed.v1` (CategoryChangesConsumer): categories and their translations, the rest skipped. */
  async apply(change: DefinitionChanged): Promise<void> {
    if (change.kind === 'category_translation') return this.applyTranslation(change);
    if (change.kind !== 'category') return;
    if (change.change === 'deleted') {
      await this.db.query(`DELETE FROM audience.category_documents WHERE workspace_id = $1 AND version <= $2`, [change.workspace_id, change.version]);
    } else {
      await this.db.query(
        `INSERT INTO audience.category_documents (workspace_id, version, document) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (workspace_id) DO UPDATE SET version = EXCLUDED.version, document = EXCLUDED.document
         WHERE audience.category_documents.version < EXCLUDED.version`,
        [change.workspace_id, change.version, JSON.stringify(change.document)],
      );
    }
    this.logger.info('preference categories updated', { workspace_id: change.workspace_id, version: change.version });
  }

  private async applyTranslation(change: DefinitionChanged): Promise<void> {
    const localeKey = change.id.toLowerCase();
    if (change.change === 'deleted') {
      await this.db.query(`DELETE FROM audience.category_translations WHERE workspace_id = $1 AND locale_key = $2 AND version <= $3`, [
        change.workspace_id,
        localeKey,
        change.version,
      ]);
    } else {
      await this.db.query(
        `INSERT INTO audience.category_translations (workspace_id, locale_key, version, document) VALUES ($1, $2, $3, $4::jsonb)
         ON CONFLICT (workspace_id, locale_key) DO UPDATE SET version = EXCLUDED.version, document = EXCLUDED.document
         WHERE audience.category_translations.version < EXCLUDED.version`,
        [change.workspace_id, localeKey, change.version, JSON.stringify(change.document)],
      );
    }
    this.logger.info('preference category translation updated', { workspace_id: change.workspace_id, locale: change.id, version: change.version });
  }
}

/** Keeps CategoryReadModel from management-api's announcements (one consumer group shared by the replicas). */
@Controller()
export class CategoryChangesConsumer {
  constructor(private readonly categories: CategoryReadModel) {}

  @ConsumerOf({ groupId: 'herald.audience.categories', topics: [TOPICS.definitionChanged.name], messages: { type: DEFINITION_CHANGED_TYPE, parsePayload: parseDefinitionChanged } })
  async apply(@Payload() change: DefinitionChanged): Promise<void> {
    await this.categories.apply(change);
  }
}
