import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every run and message row is written once when the run is decided and updated once
 * more when its delivery's outcome comes back (status, times, vendor: no indexed
 * column). Postgres can make such an update HOT, a new version in the same page with no
 * new index entries, only if the page has room; filled to 100% it had room for about a
 * third of them (flow bench; docs/architecture.md, Workflow engine), and each other
 * update added an entry to every
 * index of the table (five for runs, four for messages). Pages written from now on keep
 * a fifth free; pages already full stay as they are.
 */
export class RoomForOutcomeUpdates1763900700000 implements MigrationInterface {
  name = 'RoomForOutcomeUpdates1763900700000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE engine.runs SET (fillfactor = 80)`);
    await runner.query(`ALTER TABLE engine.messages SET (fillfactor = 80)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE engine.messages RESET (fillfactor)`);
    await runner.query(`ALTER TABLE engine.runs RESET (fillfactor)`);
  }
}
