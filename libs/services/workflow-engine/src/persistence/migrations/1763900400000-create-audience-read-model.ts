import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The engine's copy of what preference-service announces on `notify.audience.changed.v1`:
 * stored profiles (global and per tenant), preferences per scope, tenants with their
 * defaults, and object subscriptions. `tenant_id` '' is the global scope. Each
 * announcement carries the whole state of what changed, so applying is an upsert.
 */
export class CreateAudienceReadModel1763900400000 implements MigrationInterface {
  name = 'CreateAudienceReadModel1763900400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE engine.audience_profiles (
        workspace_id uuid NOT NULL,
        subject_key text NOT NULL,
        tenant_id text NOT NULL,
        properties jsonb NOT NULL,
        channels jsonb NOT NULL,
        PRIMARY KEY (workspace_id, subject_key, tenant_id)
      )`);
    await runner.query(`
      CREATE TABLE engine.audience_preferences (
        workspace_id uuid NOT NULL,
        subject_key text NOT NULL,
        tenant_id text NOT NULL,
        preferences jsonb NOT NULL,
        PRIMARY KEY (workspace_id, subject_key, tenant_id)
      )`);
    await runner.query(`
      CREATE TABLE engine.audience_tenants (
        workspace_id uuid NOT NULL,
        tenant_id text NOT NULL,
        tenant jsonb NOT NULL,
        preferences jsonb NOT NULL,
        PRIMARY KEY (workspace_id, tenant_id)
      )`);
    await runner.query(`
      CREATE TABLE engine.object_subscriptions (
        workspace_id uuid NOT NULL,
        object_key text NOT NULL,
        subscriber_key text NOT NULL,
        subscriber jsonb NOT NULL,
        properties jsonb NOT NULL,
        PRIMARY KEY (workspace_id, object_key, subscriber_key)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE engine.object_subscriptions`);
    await runner.query(`DROP TABLE engine.audience_tenants`);
    await runner.query(`DROP TABLE engine.audience_preferences`);
    await runner.query(`DROP TABLE engine.audience_profiles`);
  }
}
