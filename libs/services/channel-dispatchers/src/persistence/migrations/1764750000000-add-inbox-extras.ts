import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What SuprSend's inbox templates add to a message besides its text: the columns the
 * feed filters and orders on (`pinned`, `expires_at`, `tags`) and, for display only,
 * `extras` (subtext, action buttons, the avatar's link, open-in-new-tab, extra data,
 * whether the expiry is shown, importance).
 */
export class AddInboxExtras1764750000000 implements MigrationInterface {
  name = 'AddInboxExtras1764750000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE dispatch.inbox_messages
        ADD COLUMN pinned boolean NOT NULL DEFAULT false,
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
        ADD COLUMN extras jsonb`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatch.inbox_messages DROP COLUMN pinned, DROP COLUMN expires_at, DROP COLUMN tags, DROP COLUMN extras`);
  }
}
