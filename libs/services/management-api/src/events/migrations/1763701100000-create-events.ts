import { MigrationInterface, QueryRunner } from 'typeorm';

/** Events registered through the management API, with the schema their properties are checked against. */
export class CreateEvents1763701100000 implements MigrationInterface {
  name = 'CreateEvents1763701100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.events (
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        -- The linked schema: none, its live version (version_no null), or one committed version.
        schema_slug text,
        schema_version_no integer,
        -- Counts the schema links announced to other services: the version of definition.changed.
        announced_changes integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, name),
        CHECK (schema_slug IS NOT NULL OR schema_version_no IS NULL)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.events`);
  }
}
