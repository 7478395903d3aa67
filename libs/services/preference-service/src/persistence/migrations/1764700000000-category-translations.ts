import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The category translations management-api announces (kind `category_translation`), per
 * workspace and locale, so the preference reads can answer in a requested locale.
 * `locale_key` is the locale lowercased, as lookups match locales whatever their case.
 */
export class CategoryTranslations1764700000000 implements MigrationInterface {
  name = 'CategoryTranslations1764700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE audience.category_translations (
        workspace_id uuid NOT NULL,
        locale_key text NOT NULL,
        version bigint NOT NULL,
        document jsonb NOT NULL,
        PRIMARY KEY (workspace_id, locale_key)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE audience.category_translations`);
  }
}
