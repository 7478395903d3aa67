import { MigrationClass } from '@herald/database';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { EventStoreTables } from '../event-store-tables';
import { STREAM_POSITION_CONSTRAINT } from './stream-events.migration';

/**
 * Drops `global_position`, the log's bigserial primary key. Nothing read by it but
 * compaction, which now deletes by (stream_id, position), and every event paid for it: a
 * sequence step and a second index entry, on the index's rightmost page, which every
 * concurrent appender writes to. Without it the event insert took 7-13% less time alone
 * and did up to a third more with two appenders (flow bench, 2026-11-29;
 * docs/architecture.md, The event store). An event is identified by (stream_id,
 * position), unique already; that index
 * becomes the replica identity logical replication would use.
 */
export function streamEventsWithoutGlobalPositionMigration({ streamEvents }: EventStoreTables): MigrationClass {
  return class StreamEventsWithoutGlobalPosition1766800000000 implements MigrationInterface {
    name = 'StreamEventsWithoutGlobalPosition1766800000000';

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`ALTER TABLE ${streamEvents} DROP COLUMN global_position`);
      await runner.query(`ALTER TABLE ${streamEvents} REPLICA IDENTITY USING INDEX ${STREAM_POSITION_CONSTRAINT}`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`ALTER TABLE ${streamEvents} REPLICA IDENTITY DEFAULT`);
      await runner.query(`ALTER TABLE ${streamEvents} ADD COLUMN global_position bigserial PRIMARY KEY`);
    }
  };
}
