import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Versions of the category translations, as announced to preference-service (kind
 * `category_translation`). One sequence for every workspace and locale, so a locale
 * deleted and saved again still gets a version above its deletion's.
 */
export class CategoryTranslationVersions1763701210000 implements MigrationInterface {
  name = 'CategoryTranslationVersions1763701210000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SEQUENCE management.preference_category_translation_versions`);
    await runner.query(
      `ALTER TABLE management.preference_category_translations ADD COLUMN version bigint NOT NULL DEFAULT nextval('management.preference_category_translation_versions')`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE management.preference_category_translations DROP COLUMN version`);
    await runner.query(`DROP SEQUENCE management.preference_category_translation_versions`);
  }
}
