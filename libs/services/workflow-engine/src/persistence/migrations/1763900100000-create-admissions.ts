import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When runs of a workflow were admitted for a recipient: what a workflow's per-user
 * `ratelimit` counts. Written after the run's step commits (an index, not the truth:
 * the run logs hold `run.admitted.v1`); kept for a day, longer than any useful window.
 */
export class CreateAdmissions1763900100000 implements MigrationInterface {
  name = 'CreateAdmissions1763900100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE engine.admissions (
        workspace_id uuid NOT NULL,
        workflow_slug text NOT NULL,
        recipient_key text NOT NULL,
        run_id text NOT NULL,
        admitted_at timestamptz NOT NULL,
        PRIMARY KEY (workspace_id, workflow_slug, recipient_key, run_id)
      )`);
    await runner.query(`CREATE INDEX admissions_by_time ON engine.admissions (workspace_id, workflow_slug, recipient_key, admitted_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE engine.admissions`);
  }
}
