import { MigrationInterface, QueryRunner } from 'typeorm';

/** A template's mock data for previews (null until first set: the defaults apply). */
export class TemplateMockData1763700420000 implements MigrationInterface {
  name = 'TemplateMockData1763700420000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE management.templates ADD COLUMN mock_data jsonb`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE management.templates DROP COLUMN mock_data`);
  }
}
