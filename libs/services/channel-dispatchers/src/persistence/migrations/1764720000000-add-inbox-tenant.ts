import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tenant an inbox message was sent for (the trigger's `tenant_id`; null when it had
 * none, which is the `default` tenant), so a user token that names a tenant sees that
 * tenant's messages only.
 */
export class AddInboxTenant1764720000000 implements MigrationInterface {
  name = 'AddInboxTenant1764720000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatch.inbox_messages ADD COLUMN tenant_id text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatch.inbox_messages DROP COLUMN tenant_id`);
  }
}
