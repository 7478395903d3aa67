import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { returningRows } from '@herald/database';
import { SDK_SIGNATURE_MAX_CLOCK_SKEW_MS } from '@herald/runtime';

/** What a signed request was answered with; a replay gets the same. */
export interface SignedAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * How long an answer is kept. A signature verifies while its Date is within the skew of
 * the verifying replica's clock, so a request dated up to 15 minutes ahead can be
 * replayed until 30 minutes after it first arrived. Five more minutes cover replica
 * clocks that run ahead of the database's, which times the rows.
 */
export const SIGNED_REPLAY_WINDOW_MS = 2 * SDK_SIGNATURE_MAX_CLOCK_SKEW_MS + 5 * 60_000;
/** As for idempotency claims: a pending claim older than this belongs to a request that died. */
export const SIGNED_CLAIM_LEASE_MS = 5_000;

/** A signed request's claim as stored, with what the database clock says of it. */
export type StoredSignedRequest = {
  /** Past its window: only reachable with clocks further apart than the margin (`deleteExpired`). */
  readonly expired: boolean;
  /** Pending for longer than the lease: its request died, and a replay may take it over (`takeOver`). */
  readonly leaseOver: boolean;
  /** As text: a JS Date would drop the microseconds the comparison of takeOver needs. */
  readonly claimedAt: string;
} & ({ readonly state: 'pending' } | { readonly state: 'answered'; readonly answer: SignedAnswer });

interface ClaimRow {
  readonly state: 'pending' | 'answered';
  readonly status: number | null;
  readonly body: string | null;
  readonly expired: boolean;
  readonly lease_over: boolean;
  readonly claimed_at: string;
}

/**
 * `ingest.signed_requests`: the answers of SDK-signed requests, keyed by workspace and
 * `sdkSignatureReplayKey`, `pending` while the first request runs and `answered` with the
 * status and body (JSON as text: a replay gets the same bytes) it was answered with. Times
 * come from the database clock. Every statement is hand-written and kept as it was: they
 * run on every signed request (the ingest bench measures them). SignedRequestClaims
 * decides with them.
 */
@Injectable()
export class SignedRequestRepository {
  constructor(@InjectDataSource('ingest') private readonly db: DataSource) {}

  /**
   * Inserts a pending claim for the window; false when the request already has one.
   *
   * Hand-written: `ON CONFLICT DO NOTHING RETURNING` claims or finds the key taken in one
   * round trip, timed by the database clock.
   */
  async insertPending(workspaceId: string, replayKey: string): Promise<boolean> {
    const inserted = returningRows<{ replay_key: string }>(await this.db.query(
      `INSERT INTO ingest.signed_requests (workspace_id, replay_key, state, claimed_at, expires_at)
         VALUES ($1, $2, 'pending', now(), now() + make_interval(secs => $3::double precision / 1000))
         ON CONFLICT DO NOTHING RETURNING replay_key`,
      [workspaceId, replayKey, SIGNED_REPLAY_WINDOW_MS],
    ));
    return inserted.length === 1;
  }

  /**
   * The request's claim, its answer decoded once answered; undefined when it has none.
   *
   * Hand-written: reads the claim with its expiry and lease judged by the database clock,
   * and `claimed_at` as text to the microsecond, in one round trip.
   */
  async read(workspaceId: string, replayKey: string): Promise<StoredSignedRequest | undefined> {
    const [row] = returningRows<ClaimRow>(await this.db.query(
      `SELECT state, status, body, claimed_at::text AS claimed_at, expires_at <= now() AS expired,
              claimed_at <= now() - make_interval(secs => $3::double precision / 1000) AS lease_over
         FROM ingest.signed_requests WHERE workspace_id = $1 AND replay_key = $2`,
      [workspaceId, replayKey, SIGNED_CLAIM_LEASE_MS],
    ));
    if (row === undefined) return undefined;
    const times = { expired: row.expired, leaseOver: row.lease_over, claimedAt: row.claimed_at };
    return row.state === 'answered'
      ? { ...times, state: 'answered', answer: { status: row.status ?? 202, body: JSON.parse(row.body ?? 'null') as unknown } }
      : { ...times, state: 'pending' };
  }

  /**
   * Deletes the request's claim if it is past its window, so that it can be claimed afresh.
   *
   * Hand-written: the expiry is checked by the delete itself, against the database clock.
   */
  async deleteExpired(workspaceId: string, replayKey: string): Promise<void> {
    await this.db.query(`DELETE FROM ingest.signed_requests WHERE workspace_id = $1 AND replay_key = $2 AND expires_at <= now()`, [workspaceId, replayKey]);
  }

  /**
   * Takes over the pending claim read as claimed at `claimedAt` (to the microsecond):
   * false when it changed since, because it was answered, released or taken over first.
   *
   * Hand-written: compares `claimed_at` as text, which keeps its microseconds.
   */
  async takeOver(workspaceId: string, replayKey: string, claimedAt: string): Promise<boolean> {
    const rows = returningRows<{ replay_key: string }>(await this.db.query(
      `UPDATE ingest.signed_requests SET claimed_at = now()
        WHERE workspace_id = $1 AND replay_key = $2 AND state = 'pending' AND claimed_at::text = $3
        RETURNING replay_key`,
      [workspaceId, replayKey, claimedAt],
    ));
    return rows.length === 1;
  }

  /**
   * Records the request's answer: from now on a replay is answered with it.
   *
   * Hand-written: kept as it was, on the path of every signed request.
   */
  async answer(workspaceId: string, replayKey: string, answer: SignedAnswer): Promise<void> {
    await this.db.query(
      `UPDATE ingest.signed_requests SET state = 'answered', status = $3, body = $4 WHERE workspace_id = $1 AND replay_key = $2`,
      [workspaceId, replayKey, answer.status, JSON.stringify(answer.body)],
    );
  }

  /**
   * Forgets the request's pending claim (it was refused or failed), so that a replay is
   * judged again; an answered one stays.
   *
   * Hand-written: kept as it was, beside the claim statements it undoes.
   */
  async release(workspaceId: string, replayKey: string): Promise<void> {
    await this.db.query(`DELETE FROM ingest.signed_requests WHERE workspace_id = $1 AND replay_key = $2 AND state = 'pending'`, [workspaceId, replayKey]);
  }

  /**
   * Deletes the answers past their window.
   *
   * Hand-written: timed by the database clock, which the rows' times come from.
   */
  async pruneExpired(): Promise<void> {
    await this.db.query(`DELETE FROM ingest.signed_requests WHERE expires_at < now()`);
  }
}
