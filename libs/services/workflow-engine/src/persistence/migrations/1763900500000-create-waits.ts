import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The wait-until index: runs waiting at a branch_waituntil node for an event of their
 * recipient, written and removed with the run's events (run-projection.ts), so an
 * accepted event finds the runs it may resume without reading their streams.
 */
export class CreateWaits1763900500000 implements MigrationInterface {
  name = 'CreateWaits1763900500000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE engine.waits (
        run_id text PRIMARY KEY,
        workspace_id uuid NOT NULL,
        recipient_key text NOT NULL,
        event_name text NOT NULL,
        stream_id text NOT NULL,
        since timestamptz NOT NULL
      )`);
    await runner.query(`CREATE INDEX waits_by_event ON engine.waits (workspace_id, recipient_key, event_name)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE engine.waits`);
  }
}
