import { MigrationInterface, QueryRunner } from 'typeorm';

/** JSON Schemas of trigger data, with a draft and committed versions (the live one and the history). */
export class CreateSchemas1763700900000 implements MigrationInterface {
  name = 'CreateSchemas1763700900000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.schemas (
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        slug text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        -- Counts the changes announced to other services: the version of definition.changed.
        announced_changes integer NOT NULL DEFAULT 0,
        PRIMARY KEY (workspace_id, slug)
      )`);
    await runner.query(`
      CREATE TABLE management.schema_versions (
        workspace_id uuid NOT NULL,
        slug text NOT NULL,
        version_no integer NOT NULL,
        status text NOT NULL CHECK (status IN ('draft', 'active', 'archived')),
        name text NOT NULL,
        description text,
        json_schema jsonb NOT NULL,
        hash text NOT NULL,
        commit_message text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        committed_at timestamptz,
        PRIMARY KEY (workspace_id, slug, version_no),
        FOREIGN KEY (workspace_id, slug) REFERENCES management.schemas(workspace_id, slug)
      )`);
    await runner.query(`CREATE UNIQUE INDEX schema_one_draft ON management.schema_versions (workspace_id, slug) WHERE status = 'draft'`);
    await runner.query(`CREATE UNIQUE INDEX schema_one_active ON management.schema_versions (workspace_id, slug) WHERE status = 'active'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.schema_versions`);
    await runner.query(`DROP TABLE management.schemas`);
  }
}
