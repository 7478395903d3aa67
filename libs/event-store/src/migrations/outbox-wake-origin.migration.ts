import { MigrationClass } from '@herald/database';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { EventStoreTables } from '../event-store-tables';
import { WAKE_CHANNEL, WAKE_ORIGIN_SEPARATOR, outboxWakePayload } from '../polling/wake-channel';

/**
 * The outbox's wake-up names the process that wrote the rows (its sessions'
 * `herald.origin`, see PROCESS_ORIGIN): `<schema>.outbox@<origin>`, or the bare
 * `<schema>.outbox` from a session without one. A relay rounds at once on its own
 * process's rows and only later on another's, which that process's relay takes (with
 * two replicas each relay had run a round on every append of either; OutboxRelay).
 */
export function outboxWakeOriginMigration({ schema }: EventStoreTables): MigrationClass {
  const notifyFunction = `"${schema}".outbox_wake`;
  const bare = outboxWakePayload(schema);
  return class OutboxWakeNamesItsWriter1766900000000 implements MigrationInterface {
    name = 'OutboxWakeNamesItsWriter1766900000000';

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`
        CREATE OR REPLACE FUNCTION ${notifyFunction}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('${WAKE_CHANNEL}', '${bare}' || coalesce('${WAKE_ORIGIN_SEPARATOR}' || nullif(current_setting('herald.origin', true), ''), ''));
          RETURN NULL;
        END $$`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`
        CREATE OR REPLACE FUNCTION ${notifyFunction}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('${WAKE_CHANNEL}', '${bare}');
          RETURN NULL;
        END $$`);
    }
  };
}
