import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many changes of a deleted workflow were announced, so a workflow created again
 * with the same slug announces versions above them: read models and commit visibility
 * compare versions, and would take a new version 1 for an old one.
 */
export class DeletedWorkflows1763700710000 implements MigrationInterface {
  name = 'DeletedWorkflows1763700710000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.deleted_workflows (
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        slug text NOT NULL,
        announced_changes integer NOT NULL,
        PRIMARY KEY (workspace_id, slug)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.deleted_workflows`);
  }
}
