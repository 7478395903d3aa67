import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The JSON Schemas workflows link to check their triggers' data (definition.changed,
 * kind `schema`): every committed version, since a workflow may pin one, and which is
 * live. A workflow's link is kept with it.
 */
export class PayloadSchemas1764600000000 implements MigrationInterface {
  name = 'PayloadSchemas1764600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE ingest.workflows ADD COLUMN payload_schema jsonb`);
    await runner.query(`
      CREATE TABLE ingest.payload_schema_versions (
        workspace_id uuid NOT NULL,
        slug text NOT NULL,
        version_no integer NOT NULL,
        json_schema jsonb NOT NULL,
        PRIMARY KEY (workspace_id, slug, version_no)
      )`);
    await runner.query(`
      CREATE TABLE ingest.payload_schemas (
        workspace_id uuid NOT NULL,
        slug text NOT NULL,
        live_version_no integer NOT NULL,
        -- definition.changed version: older messages than the one applied are ignored.
        version integer NOT NULL,
        PRIMARY KEY (workspace_id, slug)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE ingest.payload_schemas`);
    await runner.query(`DROP TABLE ingest.payload_schema_versions`);
    await runner.query(`ALTER TABLE ingest.workflows DROP COLUMN payload_schema`);
  }
}
