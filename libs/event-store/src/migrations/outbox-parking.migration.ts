import { MigrationClass } from '@herald/database';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { EventStoreTables } from '../event-store-tables';

/**
 * Where the relay sets aside an outbox row that cannot be published (larger than the
 * broker takes, or failing past the bounded attempts while the broker answers), so
 * the rows behind it go on. `publish_failures` and `last_error` count a row's failed
 * attempts that were not an outage; an operator reads them, and the parked rows.
 */
export function outboxParkingMigration({ outbox, outboxParked }: EventStoreTables): MigrationClass {
  return class ParkOutboxRows1764900000000 implements MigrationInterface {
    name = 'ParkOutboxRows1764900000000';

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`
        ALTER TABLE ${outbox}
          ADD COLUMN publish_failures integer NOT NULL DEFAULT 0,
          ADD COLUMN last_error text`);
      await runner.query(`
        CREATE TABLE ${outboxParked} (
          outbox_id bigint PRIMARY KEY,
          message_id text NOT NULL,
          topic text NOT NULL,
          key text NOT NULL,
          value text NOT NULL,
          headers jsonb NOT NULL,
          created_at timestamptz NOT NULL,
          publish_failures integer NOT NULL,
          reason text NOT NULL,
          parked_at timestamptz NOT NULL DEFAULT now()
        )`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP TABLE ${outboxParked}`);
      await runner.query(`ALTER TABLE ${outbox} DROP COLUMN publish_failures, DROP COLUMN last_error`);
    }
  };
}
