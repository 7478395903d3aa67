import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The preference category document of a workspace, versioned as a whole: at most
 * one draft and one active version; committed versions before the active one are
 * archived, never deleted (they are the history).
 */
export class CreatePreferenceCategories1763700600000 implements MigrationInterface {
  name = 'CreatePreferenceCategories1763700600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.preference_category_versions (
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        version_no integer NOT NULL,
        status text NOT NULL CHECK (status IN ('draft', 'active', 'archived')),
        document jsonb NOT NULL,
        validation_errors jsonb NOT NULL DEFAULT '[]'::jsonb,
        commit_message text,
        committed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, version_no)
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX preference_category_one_draft ON management.preference_category_versions (workspace_id) WHERE status = 'draft'`,
    );
    await runner.query(
      `CREATE UNIQUE INDEX preference_category_one_active ON management.preference_category_versions (workspace_id) WHERE status = 'active'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.preference_category_versions`);
  }
}
