import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Vendor status callbacks (issue 42): a delivery is found by the id its vendor gave the
 * message (partial, so deliveries without one cost the index nothing), and the
 * workspace's suppression list, which sends skip, as `notify.suppression.changed.v1` says.
 */
export class AddVendorCallbacks1764742000000 implements MigrationInterface {
  name = 'AddVendorCallbacks1764742000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX deliveries_vendor_message ON dispatch.deliveries (vendor_message_id) WHERE vendor_message_id IS NOT NULL`);
    // The statuses vendor callbacks reported per delivery: a vendor's retry (hours later, its outcome long relayed) reports nothing twice.
    await runner.query(`ALTER TABLE dispatch.deliveries ADD COLUMN callback_statuses text[] NOT NULL DEFAULT '{}'`);
    // A callback URL names its vendor configuration by id.
    await runner.query(`CREATE INDEX vendors_vendor_id ON dispatch.vendors (vendor_id)`);
    await runner.query(`
      CREATE TABLE dispatch.suppressions (
        workspace_id uuid NOT NULL,
        channel text NOT NULL,
        address text NOT NULL,
        reason text NOT NULL,
        detail text,
        vendor text,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (workspace_id, channel, address)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE dispatch.suppressions`);
    await runner.query(`DROP INDEX dispatch.vendors_vendor_id`);
    await runner.query(`ALTER TABLE dispatch.deliveries DROP COLUMN callback_statuses`);
    await runner.query(`DROP INDEX dispatch.deliveries_vendor_message`);
  }
}
