import { MigrationInterface, QueryRunner } from 'typeorm';

/** Broadcasts dedupe by `$idempotency_key` in a key space of their own. */
export class IdempotencyForBroadcasts1764200000000 implements MigrationInterface {
  name = 'IdempotencyForBroadcasts1764200000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE ingest.idempotency_keys DROP CONSTRAINT idempotency_keys_request_kind_check`);
    await runner.query(`ALTER TABLE ingest.idempotency_keys ADD CONSTRAINT idempotency_keys_request_kind_check CHECK (request_kind IN ('trigger', 'event', 'broadcast'))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE ingest.idempotency_keys DROP CONSTRAINT idempotency_keys_request_kind_check`);
    await runner.query(`ALTER TABLE ingest.idempotency_keys ADD CONSTRAINT idempotency_keys_request_kind_check CHECK (request_kind IN ('trigger', 'event'))`);
  }
}
