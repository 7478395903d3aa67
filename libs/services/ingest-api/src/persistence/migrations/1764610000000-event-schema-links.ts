import { MigrationInterface, QueryRunner } from 'typeorm';

/** The schema linked to an event name (definition.changed, kind `event_schema`), which checks the properties of `/event/`. */
export class EventSchemaLinks1764610000000 implements MigrationInterface {
  name = 'EventSchemaLinks1764610000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE ingest.event_schema_links (
        workspace_id uuid NOT NULL,
        event text NOT NULL,
        -- {schema, version_no}, or null once delinked.
        payload_schema jsonb,
        -- definition.changed version: older messages than the one applied are ignored.
        version integer NOT NULL,
        PRIMARY KEY (workspace_id, event)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE ingest.event_schema_links`);
  }
}
