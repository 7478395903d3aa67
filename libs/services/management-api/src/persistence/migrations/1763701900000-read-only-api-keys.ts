import { MigrationInterface, QueryRunner } from 'typeorm';

/** An API key may be read-only: a console viewer's session key, or one an owner mints for a dashboard. */
export class ReadOnlyApiKeys1763701900000 implements MigrationInterface {
  name = 'ReadOnlyApiKeys1763701900000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE management.api_keys ADD COLUMN read_only boolean NOT NULL DEFAULT false`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE management.api_keys DROP COLUMN read_only`);
  }
}
