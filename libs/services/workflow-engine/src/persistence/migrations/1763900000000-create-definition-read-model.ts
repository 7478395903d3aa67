import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the engine knows of management's definitions, from `notify.definition.changed.v1`:
 * the live document of every workflow, template and category set, and every workflow
 * version ever announced, because a run keeps the version it started with.
 */
export class CreateDefinitionReadModel1763900000000 implements MigrationInterface {
  name = 'CreateDefinitionReadModel1763900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE engine.definitions (
        workspace_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('workflow', 'template', 'category')),
        id text NOT NULL,
        -- definition.changed version: an older announcement never overwrites a newer one.
        version integer NOT NULL,
        document jsonb NOT NULL,
        PRIMARY KEY (workspace_id, kind, id)
      )`);
    await runner.query(`
      CREATE TABLE engine.workflow_versions (
        workspace_id uuid NOT NULL,
        slug text NOT NULL,
        version_no integer NOT NULL,
        definition jsonb NOT NULL,
        PRIMARY KEY (workspace_id, slug, version_no)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE engine.workflow_versions`);
    await runner.query(`DROP TABLE engine.definitions`);
  }
}
