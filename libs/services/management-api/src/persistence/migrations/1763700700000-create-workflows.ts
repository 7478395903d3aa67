import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workflows and their versions. A version is immutable once committed (archived
 * versions are the history); the draft is the only version that changes. A run
 * records the version it started with, so history is never deleted.
 */
export class CreateWorkflows1763700700000 implements MigrationInterface {
  name = 'CreateWorkflows1763700700000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.workflows (
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        slug text NOT NULL,
        is_enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_executed_at timestamptz,
        -- Counts the changes announced to other services: the version of definition.changed.
        announced_changes integer NOT NULL DEFAULT 0,
        PRIMARY KEY (workspace_id, slug)
      )`);
    await runner.query(`
      CREATE TABLE management.workflow_versions (
        workspace_id uuid NOT NULL,
        slug text NOT NULL,
        version_no integer NOT NULL,
        status text NOT NULL CHECK (status IN ('draft', 'active', 'archived')),
        document jsonb NOT NULL,
        validation_result jsonb NOT NULL,
        hash text NOT NULL,
        commit_message text,
        updated_by jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        active_at timestamptz,
        PRIMARY KEY (workspace_id, slug, version_no),
        FOREIGN KEY (workspace_id, slug) REFERENCES management.workflows(workspace_id, slug)
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX workflow_one_draft ON management.workflow_versions (workspace_id, slug) WHERE status = 'draft'`,
    );
    await runner.query(
      `CREATE UNIQUE INDEX workflow_one_active ON management.workflow_versions (workspace_id, slug) WHERE status = 'active'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.workflow_versions`);
    await runner.query(`DROP TABLE management.workflows`);
  }
}
