import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delivery claims become leases: the claim records its owner (one dispatcher process)
 * and when its lease runs out unless the owner renews it. Claims in flight when this
 * runs keep the old five-minute rule (claimed_at + 5 min) and have no owner.
 */
export class AddDeliveryLeases1764300000000 implements MigrationInterface {
  name = 'AddDeliveryLeases1764300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatch.deliveries ADD COLUMN owner text, ADD COLUMN lease_expires_at timestamptz`);
    await runner.query(`UPDATE dispatch.deliveries SET lease_expires_at = claimed_at + interval '5 minutes' WHERE status = 'sending'`);
    // The sweep reads the claims whose lease ran out, oldest first.
    await runner.query(`DROP INDEX dispatch.deliveries_in_flight`);
    await runner.query(`CREATE INDEX deliveries_leases ON dispatch.deliveries (lease_expires_at) WHERE status = 'sending'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX dispatch.deliveries_leases`);
    await runner.query(`CREATE INDEX deliveries_in_flight ON dispatch.deliveries (claimed_at) WHERE status = 'sending'`);
    await runner.query(`ALTER TABLE dispatch.deliveries DROP COLUMN lease_expires_at, DROP COLUMN owner`);
  }
}
