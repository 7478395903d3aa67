import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inbox engagement: when the recipient clicked a message, and which engagement
 * outcomes (`seen`, `clicked`) were published, so each kind is reported once even when
 * a client clears and sets a flag again.
 */
export class AddInboxEngagement1764100000000 implements MigrationInterface {
  name = 'AddInboxEngagement1764100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatch.inbox_messages ADD COLUMN clicked_at timestamptz, ADD COLUMN outcomes_published text[] NOT NULL DEFAULT '{}'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatch.inbox_messages DROP COLUMN outcomes_published, DROP COLUMN clicked_at`);
  }
}
