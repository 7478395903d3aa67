import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A claim can be `queued`: admitted from its command (the command's offset may be
 * committed) but no vendor called yet. A queued claim whose owner died is attempted
 * again as new; only a `sending` one may have reached a vendor. The sweep reads both
 * kinds by their lease.
 */
export class AddQueuedClaims1764700000000 implements MigrationInterface {
  name = 'AddQueuedClaims1764700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE dispatch.deliveries DROP CONSTRAINT deliveries_status_check`);
    await runner.query(`ALTER TABLE dispatch.deliveries ADD CONSTRAINT deliveries_status_check CHECK (status IN ('queued', 'sending', 'retry_scheduled', 'sent', 'failed'))`);
    await runner.query(`CREATE INDEX deliveries_queued_leases ON dispatch.deliveries (lease_expires_at) WHERE status = 'queued'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX dispatch.deliveries_queued_leases`);
    await runner.query(`UPDATE dispatch.deliveries SET status = 'sending' WHERE status = 'queued'`);
    await runner.query(`ALTER TABLE dispatch.deliveries DROP CONSTRAINT deliveries_status_check`);
    await runner.query(`ALTER TABLE dispatch.deliveries ADD CONSTRAINT deliveries_status_check CHECK (status IN ('sending', 'retry_scheduled', 'sent', 'failed'))`);
  }
}
