import { MigrationInterface, QueryRunner } from 'typeorm';

/** What-if replay jobs and the chunks of results the engine reported for each (applied once each). */
export class CreateReplayJobs1763701300000 implements MigrationInterface {
  name = 'CreateReplayJobs1763701300000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.replay_jobs (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        workflow_slug text NOT NULL,
        source jsonb NOT NULL,
        selection jsonb NOT NULL,
        status text NOT NULL,
        total integer,
        done integer NOT NULL DEFAULT 0,
        summary jsonb,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX replay_jobs_workspace ON management.replay_jobs (workspace_id, workflow_slug, created_at DESC)`);
    await runner.query(`
      CREATE TABLE management.replay_chunks (
        job_id uuid NOT NULL REFERENCES management.replay_jobs(id) ON DELETE CASCADE,
        chunk integer NOT NULL,
        results jsonb NOT NULL,
        PRIMARY KEY (job_id, chunk)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.replay_chunks`);
    await runner.query(`DROP TABLE management.replay_jobs`);
  }
}
