import { MigrationClass } from '@herald/database';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { EventStoreTables } from '../event-store-tables';
import { WAKE_CHANNEL, timersWakePayload } from '../polling/wake-channel';

/**
 * Wakes idle timer pollers when timers are scheduled or moved (`NOTIFY` at commit, once
 * per transaction): a poller sleeps until the earliest due time it knows of, and a new
 * or moved timer may be due sooner (tests and operators make a timer due with an
 * UPDATE of `due_at`). See TimerPoller.
 */
export function timersWakeMigration({ schema, timers }: EventStoreTables): MigrationClass {
  const notifyFunction = `"${schema}".timers_wake`;
  return class WakeTimerPollers1766600100000 implements MigrationInterface {
    name = 'WakeTimerPollers1766600100000';

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`
        CREATE FUNCTION ${notifyFunction}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('${WAKE_CHANNEL}', '${timersWakePayload(schema)}');
          RETURN NULL;
        END $$`);
      await runner.query(`CREATE TRIGGER timers_wake AFTER INSERT OR UPDATE OF due_at ON ${timers} FOR EACH STATEMENT EXECUTE FUNCTION ${notifyFunction}()`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP TRIGGER timers_wake ON ${timers}`);
      await runner.query(`DROP FUNCTION ${notifyFunction}()`);
    }
  };
}
