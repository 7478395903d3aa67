import { MigrationClass } from '@herald/database';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { EventStoreTables } from '../event-store-tables';

/**
 * Messages written in the same transaction as the events that caused them. The
 * relay deletes a row in the transaction that published it; nothing else changes
 * a row. `id` is the publish order.
 */
export function outboxMigration({ outbox }: EventStoreTables): MigrationClass {
  return class CreateOutbox1763700200000 implements MigrationInterface {
    name = 'CreateOutbox1763700200000';

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`
        CREATE TABLE ${outbox} (
          id bigserial PRIMARY KEY,
          message_id text NOT NULL UNIQUE,
          topic text NOT NULL,
          key text NOT NULL,
          value text NOT NULL,
          headers jsonb NOT NULL DEFAULT '{}'::jsonb,
          created_at timestamptz NOT NULL DEFAULT now()
        )`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP TABLE ${outbox}`);
    }
  };
}
