import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audience: profiles of users and objects (global and per tenant), object
 * subscriptions, subscriber lists, tenants with their default preferences, and the
 * preferences of users and objects. Plus the read models this service keeps of what
 * management-api announces (credentials, preference categories).
 *
 * Users and objects share their tables: a subject is (subject_type, object_type, id)
 * with object_type '' for users, and a scope is tenant_id, '' for the global one.
 * Empty strings rather than NULLs so that they can be part of primary keys.
 */
export class CreateAudienceTables1763900000000 implements MigrationInterface {
  name = 'CreateAudienceTables1763900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE audience.api_keys (
        api_key_id uuid PRIMARY KEY,
        key_hash text NOT NULL UNIQUE,
        workspace_id uuid NOT NULL,
        workspace_slug text NOT NULL
      )`);
    await runner.query(`
      CREATE TABLE audience.workspace_keys (
        workspace_key_id uuid PRIMARY KEY,
        key text NOT NULL,
        workspace_id uuid NOT NULL,
        workspace_slug text NOT NULL,
        secret_sealed text NOT NULL
      )`);
    await runner.query(`CREATE INDEX workspace_keys_by_key ON audience.workspace_keys (key)`);
    await runner.query(`
      CREATE TABLE audience.category_documents (
        workspace_id uuid PRIMARY KEY,
        -- definition.changed version: older messages than the one applied are ignored.
        version integer NOT NULL,
        document jsonb NOT NULL
      )`);
    await runner.query(`
      CREATE TABLE audience.profiles (
        workspace_id uuid NOT NULL,
        subject_type text NOT NULL CHECK (subject_type IN ('user', 'object')),
        object_type text NOT NULL,
        subject_id text NOT NULL,
        tenant_id text NOT NULL,
        properties jsonb NOT NULL DEFAULT '{}'::jsonb,
        channels jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, subject_type, object_type, subject_id, tenant_id)
      )`);
    await runner.query(`
      CREATE TABLE audience.object_subscriptions (
        workspace_id uuid NOT NULL,
        object_type text NOT NULL,
        object_id text NOT NULL,
        subscriber_type text NOT NULL CHECK (subscriber_type IN ('user', 'object')),
        subscriber_object_type text NOT NULL,
        subscriber_id text NOT NULL,
        properties jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, object_type, object_id, subscriber_type, subscriber_object_type, subscriber_id)
      )`);
    await runner.query(`
      CREATE TABLE audience.lists (
        workspace_id uuid NOT NULL,
        list_id text NOT NULL,
        list_name text NOT NULL,
        list_description text NOT NULL,
        -- Kept in the transactions that add and remove, so reading a page does not count 100,000 rows.
        subscribers_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, list_id)
      )`);
    // The id is the page cursor: it only grows, so a page boundary stays where it was
    // while members are added (with larger ids) or removed.
    await runner.query(`
      CREATE TABLE audience.list_subscribers (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        workspace_id uuid NOT NULL,
        list_id text NOT NULL,
        distinct_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (workspace_id, list_id, distinct_id),
        FOREIGN KEY (workspace_id, list_id) REFERENCES audience.lists (workspace_id, list_id) ON DELETE CASCADE
      )`);
    await runner.query(`CREATE INDEX list_subscribers_page ON audience.list_subscribers (workspace_id, list_id, id)`);
    await runner.query(`
      CREATE TABLE audience.category_preferences (
        workspace_id uuid NOT NULL,
        subject_type text NOT NULL,
        object_type text NOT NULL,
        subject_id text NOT NULL,
        tenant_id text NOT NULL,
        category text NOT NULL,
        -- A CategoryChoice of @herald/audience.
        choice jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, subject_type, object_type, subject_id, tenant_id, category)
      )`);
    await runner.query(`
      CREATE TABLE audience.channel_preferences (
        workspace_id uuid NOT NULL,
        subject_type text NOT NULL,
        object_type text NOT NULL,
        subject_id text NOT NULL,
        tenant_id text NOT NULL,
        channel text NOT NULL,
        is_restricted boolean NOT NULL,
        PRIMARY KEY (workspace_id, subject_type, object_type, subject_id, tenant_id, channel)
      )`);
    await runner.query(`
      CREATE TABLE audience.tenants (
        workspace_id uuid NOT NULL,
        tenant_id text NOT NULL,
        -- The tenant record as the client sent it (name, logo, colours, properties, ...).
        document jsonb NOT NULL,
        blocked_channels text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, tenant_id)
      )`);
    await runner.query(`
      CREATE TABLE audience.tenant_category_defaults (
        workspace_id uuid NOT NULL,
        tenant_id text NOT NULL,
        category text NOT NULL,
        -- A TenantCategoryDefault of @herald/audience.
        defaults jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, tenant_id, category),
        FOREIGN KEY (workspace_id, tenant_id) REFERENCES audience.tenants (workspace_id, tenant_id) ON DELETE CASCADE
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of [
      'tenant_category_defaults',
      'tenants',
      'channel_preferences',
      'category_preferences',
      'list_subscribers',
      'lists',
      'object_subscriptions',
      'profiles',
      'category_documents',
      'workspace_keys',
      'api_keys',
    ]) {
      await runner.query(`DROP TABLE audience.${table}`);
    }
  }
}
