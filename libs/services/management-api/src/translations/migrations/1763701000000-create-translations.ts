import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Translation (locale) files of a workspace: drafts per file, and committed versions of
 * the whole set (a commit or a rollback makes a new one; the highest is live).
 */
export class CreateTranslations1763701000000 implements MigrationInterface {
  name = 'CreateTranslations1763701000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.translation_drafts (
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        filename text NOT NULL,
        locale text NOT NULL,
        namespace text,
        content jsonb NOT NULL,
        -- Deleted at the next commit.
        is_deleted boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, filename)
      )`);
    await runner.query(`
      CREATE TABLE management.translation_versions (
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        version_no integer NOT NULL,
        -- Every file of the version: [{filename, locale, namespace, content, updated_at}].
        files jsonb NOT NULL,
        commit_message text,
        committed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, version_no)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.translation_versions`);
    await runner.query(`DROP TABLE management.translation_drafts`);
  }
}
