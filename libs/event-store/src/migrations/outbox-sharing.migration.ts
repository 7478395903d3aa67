import { MigrationClass } from '@herald/database';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { EventStoreTables } from '../event-store-tables';
import { OUTBOX_SLOTS, WAKE_CHANNEL, outboxWakePayload } from '../polling/wake-channel';

/**
 * Lets every replica's relay publish a share of the outbox without breaking the order
 * per key. Each row gets a slot, a hash of its key (so all rows of a key share one);
 * `outbox_slots` has one row per slot, and a relay round locks the slots it serves
 * (`FOR UPDATE SKIP LOCKED`) before it claims their rows, so one key's rows are only
 * ever published by one round at a time, oldest first. See OutboxRelay.
 *
 * A statement-level trigger wakes idle relays (`NOTIFY`, delivered at commit, once
 * per transaction), so they need not poll.
 */
export function outboxSharingMigration({ schema, outbox, outboxSlots }: EventStoreTables): MigrationClass {
  const notifyFunction = `"${schema}".outbox_wake`;
  return class ShareOutboxBySlot1766600000000 implements MigrationInterface {
    name = 'ShareOutboxBySlot1766600000000';

    async up(runner: QueryRunner): Promise<void> {
      // hashtext is immutable; `& (slots - 1)` keeps negative hashes in range.
      await runner.query(`ALTER TABLE ${outbox} ADD COLUMN slot smallint GENERATED ALWAYS AS (hashtext(key) & ${OUTBOX_SLOTS - 1}) STORED`);
      await runner.query(`CREATE INDEX outbox_slot_id_idx ON ${outbox} (slot, id)`);
      await runner.query(`CREATE TABLE ${outboxSlots} (slot smallint PRIMARY KEY)`);
      await runner.query(`INSERT INTO ${outboxSlots} (slot) SELECT generate_series(0, ${OUTBOX_SLOTS - 1})`);
      await runner.query(`
        CREATE FUNCTION ${notifyFunction}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('${WAKE_CHANNEL}', '${outboxWakePayload(schema)}');
          RETURN NULL;
        END $$`);
      await runner.query(`CREATE TRIGGER outbox_wake AFTER INSERT ON ${outbox} FOR EACH STATEMENT EXECUTE FUNCTION ${notifyFunction}()`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP TRIGGER outbox_wake ON ${outbox}`);
      await runner.query(`DROP FUNCTION ${notifyFunction}()`);
      await runner.query(`DROP TABLE ${outboxSlots}`);
      await runner.query(`DROP INDEX "${schema}".outbox_slot_id_idx`);
      await runner.query(`ALTER TABLE ${outbox} DROP COLUMN slot`);
    }
  };
}
