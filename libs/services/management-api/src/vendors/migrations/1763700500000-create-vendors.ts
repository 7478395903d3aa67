import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The vendors a workspace delivers each channel through. Credentials are one sealed
 * blob per row, never in clear. A deleted vendor keeps its row (without credentials)
 * so its version keeps increasing when it is configured again: read models drop
 * messages whose version they have already passed.
 */
export class CreateVendors1763700500000 implements MigrationInterface {
  name = 'CreateVendors1763700500000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.vendors (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        channel text NOT NULL,
        vendor text NOT NULL,
        is_enabled boolean NOT NULL DEFAULT true,
        priority integer NOT NULL CHECK (priority BETWEEN 1 AND 100),
        base_url text,
        settings jsonb NOT NULL DEFAULT '{}'::jsonb,
        credentials_sealed bytea,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz,
        UNIQUE (workspace_id, channel, vendor),
        CHECK (deleted_at IS NOT NULL OR credentials_sealed IS NOT NULL)
      )`);
    // Fallback order must be unambiguous among the live vendors of a channel.
    await runner.query(`
      CREATE UNIQUE INDEX vendors_priority_per_channel ON management.vendors (workspace_id, channel, priority)
        WHERE deleted_at IS NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.vendors`);
  }
}
