import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a recipient last reset the bell's badge (SuprSend's feed `reset_bell_count`), per
 * tenant scope (`''`: every tenant): the badge counts the unseen messages stored after it.
 */
export class AddInboxBadgeResets1764730000000 implements MigrationInterface {
  name = 'AddInboxBadgeResets1764730000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE dispatch.inbox_badge_resets (
        workspace_id uuid NOT NULL,
        distinct_id text NOT NULL,
        tenant_scope text NOT NULL,
        reset_at timestamptz NOT NULL,
        PRIMARY KEY (workspace_id, distinct_id, tenant_scope)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE dispatch.inbox_badge_resets`);
  }
}
