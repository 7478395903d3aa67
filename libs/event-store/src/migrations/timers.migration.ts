import { MigrationClass } from '@herald/database';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { EventStoreTables } from '../event-store-tables';

/**
 * Durable timers, written with the events that schedule them and deleted when
 * fired or cancelled. Pollers scan by `due_at`.
 */
export function timersMigration({ schema, timers }: EventStoreTables): MigrationClass {
  return class CreateTimers1763700300000 implements MigrationInterface {
    name = 'CreateTimers1763700300000';

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`
        CREATE TABLE ${timers} (
          timer_id text PRIMARY KEY,
          stream_id text NOT NULL,
          due_at timestamptz NOT NULL,
          topic text NOT NULL,
          key text NOT NULL,
          value text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        )`);
      await runner.query(`CREATE INDEX timers_due_at_idx ON ${timers} (due_at)`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP INDEX "${schema}".timers_due_at_idx`);
      await runner.query(`DROP TABLE ${timers}`);
    }
  };
}
