import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, In, LessThanOrEqual, Repository } from 'typeorm';
import { CategoryDocument, LocatedCategory, indexCategories } from '@herald/audience';
import { CategoryTranslationDocument, HeraldError } from '@herald/contracts';
import { CategoryTexts, translationLocales } from './category-texts';

/** A workspace's live preference categories, as management-api last announced them. */
export interface AnnouncedCategories {
  workspaceId: string;
  /** The announcement's version: an older one never overwrites a newer one. */
  version: number;
  /** A CategoryDocument, as announced: `NonNullable<unknown>`, as TypeORM's insert types refuse the `unknown` of its default values. */
  document: NonNullable<unknown>;
}

/** One locale's translation of a workspace's categories, as management-api last announced it. */
export interface AnnouncedCategoryTranslation {
  workspaceId: string;
  /** The locale lowercased: lookups match locales whatever their case. */
  localeKey: string;
  /** The announcement's version (a bigint, which the driver reads as text). */
  version: string;
  document: CategoryTranslationDocument;
}

/** `audience.category_documents` (created by the migrations, never by TypeORM). */
export const AnnouncedCategoriesEntity = new EntitySchema<AnnouncedCategories>({
  name: 'AnnouncedCategories',
  schema: 'audience',
  tableName: 'category_documents',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    version: { type: 'integer' },
    document: { type: 'jsonb' },
  },
});

/** `audience.category_translations` (created by the migrations, never by TypeORM). */
export const AnnouncedCategoryTranslationEntity = new EntitySchema<AnnouncedCategoryTranslation>({
  name: 'AnnouncedCategoryTranslation',
  schema: 'audience',
  tableName: 'category_translations',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    localeKey: { name: 'locale_key', type: 'text', primary: true },
    version: { type: 'bigint' },
    document: { type: 'jsonb' },
  },
});

/** The tables of CategoryDocumentRepository, for AUDIENCE_ENTITIES. */
export const CATEGORY_DOCUMENT_ENTITIES = [AnnouncedCategoriesEntity, AnnouncedCategoryTranslationEntity];

/**
 * The live preference categories of each workspace, as management-api announces them
 * (`notify.definition.changed.v1`, kind `category`, the whole document each time), and
 * their translations (kind `category_translation`, one locale each time); LiveCategories
 * applies the announcements. A redelivered or reordered older announcement never
 * overwrites (or deletes) a newer one.
 */
@Injectable()
export class CategoryDocumentRepository {
  constructor(@InjectDataSource('audience') private readonly db: DataSource) {}

  /** Every live category of the workspace, by slug (none before the first commit). */
  async categories(workspaceId: string, manager: EntityManager = this.db.manager): Promise<Map<string, LocatedCategory>> {
    const row = await this.documents(manager).findOne({ select: { workspaceId: true, document: true }, where: { workspaceId } });
    return row ? indexCategories(row.document as CategoryDocument) : new Map();
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
    const rows = await this.translations().find({ select: { workspaceId: true, localeKey: true, document: true }, where: { workspaceId, localeKey: In(chain) } });
    const byLocale = new Map(rows.map((row) => [row.localeKey, row.document]));
    return new CategoryTexts(chain.flatMap((each) => byLocale.get(each) ?? []));
  }

  /** Writes the workspace's categories of an announcement, unless the stored ones are of the same or a newer version. One statement. */
  async saveCategories(workspaceId: string, version: number, document: CategoryDocument): Promise<void> {
    await this.documents()
      .createQueryBuilder('stored')
      .insert()
      .values({ workspaceId, version, document })
      .orUpdate(['version', 'document'], ['workspace_id'], { overwriteCondition: { where: 'stored.version < EXCLUDED.version' } })
      .execute();
  }

  /** Removes the workspace's categories, unless the stored ones are of a newer version. */
  async removeCategories(workspaceId: string, version: number): Promise<void> {
    await this.documents().delete({ workspaceId, version: LessThanOrEqual(version) });
  }

  /** Writes a locale's translation of an announcement, unless the stored one is of the same or a newer version. One statement. */
  async saveTranslation(workspaceId: string, locale: string, version: number, document: CategoryTranslationDocument): Promise<void> {
    await this.translations()
      .createQueryBuilder('stored')
      .insert()
      .values({ workspaceId, localeKey: locale.toLowerCase(), version: String(version), document })
      .orUpdate(['version', 'document'], ['workspace_id', 'locale_key'], { overwriteCondition: { where: 'stored.version < EXCLUDED.version' } })
      .execute();
  }

  /** Removes a locale's translation, unless the stored one is of a newer version. */
  async removeTranslation(workspaceId: string, locale: string, version: number): Promise<void> {
    await this.translations().delete({ workspaceId, localeKey: locale.toLowerCase(), version: LessThanOrEqual(String(version)) });
  }

  private documents(manager: EntityManager = this.db.manager): Repository<AnnouncedCategories> {
    return manager.getRepository(AnnouncedCategoriesEntity);
  }

  private translations(): Repository<AnnouncedCategoryTranslation> {
    return this.db.getRepository(AnnouncedCategoryTranslationEntity);
  }
}
