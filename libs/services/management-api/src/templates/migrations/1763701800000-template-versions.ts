import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A template's history: every committed version as it went live (its metadata and live
 * variants), so a version can be read, compared and restored. A template live before this
 * migration starts its history with its current live version.
 */
export class TemplateVersions1763701800000 implements MigrationInterface {
  name = 'TemplateVersions1763701800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.template_versions (
        template_id uuid NOT NULL REFERENCES management.templates(id),
        version_no integer NOT NULL,
        commit_message text,
        committed_at timestamptz NOT NULL,
        meta jsonb NOT NULL,
        variants jsonb NOT NULL,
        hash text NOT NULL,
        PRIMARY KEY (template_id, version_no)
      )`);
    await runner.query(`
      INSERT INTO management.template_versions (template_id, version_no, commit_message, committed_at, meta, variants, hash)
      SELECT t.id, t.version_no, t.commit_message, coalesce(t.active_at, t.updated_at), t.live,
        coalesce((SELECT jsonb_agg(jsonb_build_object('channel', v.channel, 'id', v.id, 'tenant_id', v.tenant_id, 'locale', v.locale,
                    'conditions', v.conditions, 'content', v.content, 'seq_no', v.seq_no, 'needs_vendor_approval', v.needs_vendor_approval) ORDER BY v.channel, v.tenant_id NULLS FIRST, v.locale, v.seq_no, v.id)
                  FROM management.template_variants v WHERE v.template_id = t.id AND v.mode = 'live'), '[]'::jsonb),
        coalesce(t.live_hash, '')
      FROM management.templates t WHERE t.live IS NOT NULL AND t.version_no IS NOT NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.template_versions`);
  }
}
