import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A message row is written when its run is decided and updated once when the outcome
 * comes back, usually by one transaction for all the rows one transaction wrote: the
 * new versions of a page's rows must all fit in that page for the updates to be HOT (no
 * new entry in the table's four indexes), and an old version is reclaimed only after
 * the updating transaction. At 80% fill a page had room for about 3 of its 13 rows (30%
 * HOT in the flow bench; docs/architecture.md, Workflow engine); at 50% it has room for
 * each. The table takes twice
 * the pages; its indexes stop growing with every outcome.
 */
export class RoomForEveryOutcome1763900800000 implements MigrationInterface {
  name = 'RoomForEveryOutcome1763900800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE engine.messages SET (fillfactor = 50)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE engine.messages SET (fillfactor = 80)`);
  }
}
