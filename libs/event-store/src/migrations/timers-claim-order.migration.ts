import { MigrationClass } from '@herald/database';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { EventStoreTables } from '../event-store-tables';

/**
 * The timer poller claims `ORDER BY due_at, timer_id LIMIT n`: on an index of `due_at`
 * alone, timers due at the same instant (every digest of a schedule) were all read and
 * sorted on every round, 100,000 of them in 160 ms (sorted on disk) for each 500
 * claimed. On `(due_at, timer_id)` a round reads only the rows it claims (5 ms). The
 * poller's other reads (`min(due_at)`, the backlog) use it as they used the old one.
 */
export function timersClaimOrderMigration({ schema, timers }: EventStoreTables): MigrationClass {
  return class TimersClaimOrder1766700000000 implements MigrationInterface {
    name = 'TimersClaimOrder1766700000000';

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`CREATE INDEX timers_due_at_timer_id_idx ON ${timers} (due_at, timer_id)`);
      await runner.query(`DROP INDEX "${schema}".timers_due_at_idx`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`CREATE INDEX timers_due_at_idx ON ${timers} (due_at)`);
      await runner.query(`DROP INDEX "${schema}".timers_due_at_timer_id_idx`);
    }
  };
}
