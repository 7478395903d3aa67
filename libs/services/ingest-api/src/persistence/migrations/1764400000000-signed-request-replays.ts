import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The answers to SDK-signed requests, so an exact replay inside the signature's clock
 * window is answered as a repeat instead of starting work again (SignedRequestClaims).
 */
export class SignedRequestReplays1764400000000 implements MigrationInterface {
  name = 'SignedRequestReplays1764400000000';

  async up(runner: QueryRunner): Promise<void> {
    // 'pending' while the first request runs (a lease, as idempotency claims have);
    // 'answered' with the status and body it was answered with.
    await runner.query(`
      CREATE TABLE ingest.signed_requests (
        workspace_id uuid NOT NULL,
        -- sdkSignatureReplayKey: SHA-256 hex of the workspace key, signature and Date.
        replay_key text NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'answered')),
        status integer,
        -- JSON as text, not jsonb: a replay gets the same bytes, key order included.
        body text,
        claimed_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (workspace_id, replay_key)
      )`);
    await runner.query(`CREATE INDEX signed_requests_by_expiry ON ingest.signed_requests (expires_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE ingest.signed_requests`);
  }
}
