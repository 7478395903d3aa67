import { MigrationInterface, QueryRunner } from 'typeorm';

/** A template's strict rendering setting (a missing variable fails the delivery); existing templates stay lenient. */
export class StrictTemplates1763700410000 implements MigrationInterface {
  name = 'StrictTemplates1763700410000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE management.templates ADD COLUMN strict boolean NOT NULL DEFAULT false`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE management.templates DROP COLUMN strict`);
  }
}
