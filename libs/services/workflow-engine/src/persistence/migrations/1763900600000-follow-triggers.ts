import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a client needs to follow its trigger (issue 18): runs and messages found by the
 * trigger's `message_id`, why a run ended without sending (`outcome_reason`), and the
 * retries of a delivery still in progress (`attempts`, `next_attempt_at`). Channels a
 * send node skipped are rows of the message log too (status `not_sent`).
 */
export class FollowTriggers1763900600000 implements MigrationInterface {
  name = 'FollowTriggers1763900600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE engine.runs ADD COLUMN outcome_reason text`);
    await runner.query(`CREATE INDEX runs_by_trigger ON engine.runs (workspace_id, message_id)`);
    await runner.query(`ALTER TABLE engine.messages ADD COLUMN attempts integer, ADD COLUMN next_attempt_at timestamptz`);
    await runner.query(`CREATE INDEX messages_by_trigger ON engine.messages (workspace_id, message_id)`);
    await runner.query(`CREATE INDEX messages_by_run ON engine.messages (run_id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX engine.messages_by_run`);
    await runner.query(`DROP INDEX engine.messages_by_trigger`);
    await runner.query(`ALTER TABLE engine.messages DROP COLUMN attempts, DROP COLUMN next_attempt_at`);
    await runner.query(`DROP INDEX engine.runs_by_trigger`);
    await runner.query(`ALTER TABLE engine.runs DROP COLUMN outcome_reason`);
  }
}
