import { MigrationClass } from '@herald/database';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** The journal's own schema: no service reads it, and the bus reads no service's. */
export const BUS_SCHEMA = 'bus';

/**
 * Topics with their partition counts, records by (topic, partition, offset) and each
 * group's next offset per partition. `published_at` is indexed because pruning scans
 * by it; `committed_at` shows an operator which groups stopped moving (a group retired
 * for good holds records back until its rows are deleted).
 */
class CreateBusJournal1763900000000 implements MigrationInterface {
  name = 'CreateBusJournal1763900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE ${BUS_SCHEMA}.topics (
        name text PRIMARY KEY,
        partitions integer NOT NULL CHECK (partitions >= 1)
      )`);
    await runner.query(`
      CREATE TABLE ${BUS_SCHEMA}.messages (
        topic text NOT NULL,
        partition integer NOT NULL,
        "offset" bigint NOT NULL,
        key text NOT NULL,
        value bytea NOT NULL,
        headers jsonb NOT NULL,
        published_at timestamptz NOT NULL,
        PRIMARY KEY (topic, partition, "offset")
      )`);
    await runner.query(`CREATE INDEX messages_published_at_idx ON ${BUS_SCHEMA}.messages (published_at)`);
    await runner.query(`
      CREATE TABLE ${BUS_SCHEMA}.group_offsets (
        group_id text NOT NULL,
        topic text NOT NULL,
        partition integer NOT NULL,
        next_offset bigint NOT NULL,
        committed_at timestamptz NOT NULL,
        PRIMARY KEY (group_id, topic, partition)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE ${BUS_SCHEMA}.group_offsets`);
    await runner.query(`DROP TABLE ${BUS_SCHEMA}.messages`);
    await runner.query(`DROP TABLE ${BUS_SCHEMA}.topics`);
  }
}

export const busJournalMigrations: MigrationClass[] = [CreateBusJournal1763900000000];
