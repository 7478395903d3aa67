import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cursor pages of users, objects and object subscriptions (reference `GET /v1/user/`,
 * `/v1/object/{type}/`, `.../subscription/`, `.../subscribed_to/object/`), and the
 * identity events already applied.
 *
 * A page cursor is a bigint id that only grows, as for list members: a page boundary
 * stays where it was while rows are added (with larger ids) or removed. Subscriptions
 * also get `updated_at`, since subscribing again replaces the relation's properties.
 */
export class AddPageIds1764000000000 implements MigrationInterface {
  name = 'AddPageIds1764000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE audience.profiles ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY`);
    // Only global profiles are listed; per-tenant ones are read through them.
    await runner.query(`CREATE INDEX profiles_page ON audience.profiles (workspace_id, subject_type, object_type, id) WHERE tenant_id = ''`);
    await runner.query(`ALTER TABLE audience.object_subscriptions ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY`);
    await runner.query(`ALTER TABLE audience.object_subscriptions ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()`);
    await runner.query(`CREATE INDEX object_subscriptions_page ON audience.object_subscriptions (workspace_id, object_type, object_id, id)`);
    await runner.query(
      `CREATE INDEX object_subscriptions_by_subscriber ON audience.object_subscriptions (workspace_id, subscriber_type, subscriber_object_type, subscriber_id, id)`,
    );
    // Identity events carry non-idempotent operations ($add); a redelivered one is recognised here and skipped.
    await runner.query(`
      CREATE TABLE audience.applied_messages (
        workspace_id uuid NOT NULL,
        message_id text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, message_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE audience.applied_messages`);
    await runner.query(`DROP INDEX audience.object_subscriptions_by_subscriber`);
    await runner.query(`DROP INDEX audience.object_subscriptions_page`);
    await runner.query(`ALTER TABLE audience.object_subscriptions DROP COLUMN updated_at, DROP COLUMN id`);
    await runner.query(`DROP INDEX audience.profiles_page`);
    await runner.query(`ALTER TABLE audience.profiles DROP COLUMN id`);
  }
}
