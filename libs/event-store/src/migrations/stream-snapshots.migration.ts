import { MigrationClass } from '@herald/database';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { EventStoreTables } from '../event-store-tables';

/**
 * The folded state of a stream at a position, so a long-lived stream is read from
 * its snapshot and the events after it. Compaction then deletes the events before
 * the snapshot's position, and only those: the trigger that kept the log append-only
 * now lets a DELETE through for exactly these rows (UPDATE and TRUNCATE stay refused).
 * The event at the snapshot's position is kept, so the stream's last position, which
 * an append checks its expected position against, survives compaction.
 */
export function streamSnapshotsMigration({ schema, streamEvents, streamSnapshots }: EventStoreTables): MigrationClass {
  const refuse = `"${schema}".refuse_stream_events_change`;
  const guardDelete = `"${schema}".refuse_stream_events_uncompacted_delete`;
  return class CreateStreamSnapshots1764300000000 implements MigrationInterface {
    name = 'CreateStreamSnapshots1764300000000';

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`
        CREATE TABLE ${streamSnapshots} (
          stream_id text PRIMARY KEY,
          position integer NOT NULL CHECK (position >= 1),
          state jsonb NOT NULL,
          taken_at timestamptz NOT NULL DEFAULT now()
        )`);
      await runner.query(`
        CREATE FUNCTION ${guardDelete}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF OLD.position < (SELECT position FROM ${streamSnapshots} WHERE stream_id = OLD.stream_id) THEN
            RETURN OLD;
          END IF;
          RAISE EXCEPTION '%.% is append-only: % refused', TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP
            USING ERRCODE = 'restrict_violation';
        END
        $$`);
      await runner.query(`DROP TRIGGER stream_events_append_only ON ${streamEvents}`);
      await runner.query(`
        CREATE TRIGGER stream_events_append_only BEFORE UPDATE ON ${streamEvents}
        FOR EACH ROW EXECUTE FUNCTION ${refuse}()`);
      await runner.query(`
        CREATE TRIGGER stream_events_delete_compacted_only BEFORE DELETE ON ${streamEvents}
        FOR EACH ROW EXECUTE FUNCTION ${guardDelete}()`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP TRIGGER stream_events_delete_compacted_only ON ${streamEvents}`);
      await runner.query(`DROP TRIGGER stream_events_append_only ON ${streamEvents}`);
      await runner.query(`
        CREATE TRIGGER stream_events_append_only BEFORE UPDATE OR DELETE ON ${streamEvents}
        FOR EACH ROW EXECUTE FUNCTION ${refuse}()`);
      await runner.query(`DROP FUNCTION ${guardDelete}()`);
      await runner.query(`DROP TABLE ${streamSnapshots}`);
    }
  };
}
