import { MigrationInterface, QueryRunner } from 'typeorm';

/** The live translations of each workspace (definition.changed, kind `translation`), by locale then key. */
export class AddTranslations1764710000000 implements MigrationInterface {
  name = 'AddTranslations1764710000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE dispatch.translations (
        workspace_id uuid PRIMARY KEY,
        -- The announcement's version: an older one never overwrites a newer one.
        version integer NOT NULL,
        by_locale jsonb NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE dispatch.translations`);
  }
}
