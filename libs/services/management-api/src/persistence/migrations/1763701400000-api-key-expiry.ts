import { MigrationInterface, QueryRunner } from 'typeorm';

/** An API key may expire (`expires_at`): the console's session keys do, so a tab closed without signing out leaves no live key behind. */
export class ApiKeyExpiry1763701400000 implements MigrationInterface {
  name = 'ApiKeyExpiry1763701400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE management.api_keys ADD COLUMN expires_at timestamptz`);
    await runner.query(`CREATE INDEX api_keys_live_expiry ON management.api_keys (expires_at) WHERE deleted_at IS NULL AND expires_at IS NOT NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX management.api_keys_live_expiry`);
    await runner.query(`ALTER TABLE management.api_keys DROP COLUMN expires_at`);
  }
}
