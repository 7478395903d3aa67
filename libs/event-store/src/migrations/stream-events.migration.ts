import { MigrationClass } from '@herald/database';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { EventStoreTables } from '../event-store-tables';

/** Named so an append can tell a lost race on a stream from any other unique violation. */
export const STREAM_POSITION_CONSTRAINT = 'stream_events_stream_position_key';

/**
 * The run log. Append-only is enforced by the database itself, not by convention:
 * a trigger refuses UPDATE, DELETE and TRUNCATE whoever issues them.
 */
export function streamEventsMigration({ schema, streamEvents }: EventStoreTables): MigrationClass {
  const refuse = `"${schema}".refuse_stream_events_change`;
  return class CreateStreamEvents1763700100000 implements MigrationInterface {
    name = 'CreateStreamEvents1763700100000';

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`
        CREATE TABLE ${streamEvents} (
          global_position bigserial PRIMARY KEY,
          stream_id text NOT NULL,
          position integer NOT NULL CHECK (position >= 1),
          type text NOT NULL,
          data jsonb NOT NULL,
          metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
          recorded_at timestamptz NOT NULL DEFAULT now(),
          CONSTRAINT ${STREAM_POSITION_CONSTRAINT} UNIQUE (stream_id, position)
        )`);
      await runner.query(`
        CREATE FUNCTION ${refuse}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          RAISE EXCEPTION '%.% is append-only: % refused', TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP
            USING ERRCODE = 'restrict_violation';
        END
        $$`);
      await runner.query(`
        CREATE TRIGGER stream_events_append_only BEFORE UPDATE OR DELETE ON ${streamEvents}
        FOR EACH ROW EXECUTE FUNCTION ${refuse}()`);
      await runner.query(`
        CREATE TRIGGER stream_events_no_truncate BEFORE TRUNCATE ON ${streamEvents}
        FOR EACH STATEMENT EXECUTE FUNCTION ${refuse}()`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP TABLE ${streamEvents}`);
      await runner.query(`DROP FUNCTION ${refuse}()`);
    }
  };
}
