import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a delivery's outcome warns of (placeholders the data had no value for, rendered
 * empty): the message log shows them. Nullable without a default, so adding it rewrites
 * nothing; null reads as no warnings.
 */
export class MessageWarnings1763900900000 implements MigrationInterface {
  name = 'MessageWarnings1763900900000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE engine.messages ADD COLUMN IF NOT EXISTS warnings jsonb`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE engine.messages DROP COLUMN IF EXISTS warnings`);
  }
}
