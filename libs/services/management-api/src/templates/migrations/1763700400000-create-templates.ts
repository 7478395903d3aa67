import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Templates and their variants. A template row holds the draft metadata and, once
 * committed, a snapshot of the live metadata; variants are stored once per mode
 * (`draft`, `live`), so a commit copies draft rows over live rows and every read
 * of either mode is a plain filter.
 */
export class CreateTemplates1763700400000 implements MigrationInterface {
  name = 'CreateTemplates1763700400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.templates (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        slug text NOT NULL,
        name text NOT NULL,
        description text,
        tags jsonb NOT NULL DEFAULT '[]'::jsonb,
        enabled_channels jsonb NOT NULL DEFAULT '[]'::jsonb,
        hash text NOT NULL,
        live jsonb,
        live_hash text,
        version_no integer,
        commit_message text,
        active_at timestamptz,
        revision integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (workspace_id, slug)
      )`);
    await runner.query(`
      CREATE TABLE management.template_variants (
        template_id uuid NOT NULL REFERENCES management.templates(id),
        mode text NOT NULL CHECK (mode IN ('draft', 'live')),
        channel text NOT NULL,
        id text NOT NULL,
        tenant_id text,
        locale text NOT NULL,
        conditions jsonb NOT NULL DEFAULT '[]'::jsonb,
        content jsonb NOT NULL,
        hash text NOT NULL,
        errors jsonb NOT NULL DEFAULT '[]'::jsonb,
        has_error boolean NOT NULL,
        seq_no integer NOT NULL,
        needs_vendor_approval boolean NOT NULL,
        approval_status text NOT NULL,
        approval_at timestamptz,
        discard_comment text,
        vendor_approvals jsonb NOT NULL DEFAULT '[]'::jsonb,
        action text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (template_id, mode, channel, id)
      )`);
    // seq_no orders variants within channel + tenant + locale; '' stands for the default tenant (ids are never empty).
    await runner.query(`
      CREATE UNIQUE INDEX template_variants_seq_no
        ON management.template_variants (template_id, mode, channel, (coalesce(tenant_id, '')), locale, seq_no)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.template_variants`);
    await runner.query(`DROP TABLE management.templates`);
  }
}
