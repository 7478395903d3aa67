import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * management's copy of each workspace's suppression list, kept from
 * `notify.suppression.changed.v1` (the dispatchers' bounces and complaints, the API's own
 * changes), for the API to show and edit. No foreign key to the workspace: a vendor's
 * late bounce for a workspace deleted since must not stop the consumer.
 */
export class CreateSuppressions1763701650000 implements MigrationInterface {
  name = 'CreateSuppressions1763701650000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.suppressions (
        workspace_id uuid NOT NULL,
        channel text NOT NULL,
        address text NOT NULL,
        reason text NOT NULL,
        detail text,
        vendor text,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (workspace_id, channel, address)
      )`);
    // The list's order (newest first) within a workspace.
    await runner.query(`CREATE INDEX suppressions_newest ON management.suppressions (workspace_id, created_at DESC, channel, address)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.suppressions`);
  }
}
