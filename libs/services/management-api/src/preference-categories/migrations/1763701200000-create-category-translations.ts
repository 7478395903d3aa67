import { MigrationInterface, QueryRunner } from 'typeorm';

/** The names and descriptions of a workspace's preference sections and categories, per locale. */
export class CreateCategoryTranslations1763701200000 implements MigrationInterface {
  name = 'CreateCategoryTranslations1763701200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.preference_category_translations (
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        locale text NOT NULL,
        -- {sections: {slug: {name, description}}, categories: {slug: {name, description}}}
        document jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, locale)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.preference_category_translations`);
  }
}
