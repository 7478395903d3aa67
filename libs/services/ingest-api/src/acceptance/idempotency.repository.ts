import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { returningRows } from '@herald/database';

export type RequestKind = 'trigger' | 'event' | 'broadcast';

/** decisions.md: a repeat within 24 hours is answered with the first message_id. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
/**
 * A pending claim older than this belongs to a request that died before it finished;
 * the next request takes it over. Short, because a takeover of a claim whose request is
 * merely slow costs nothing: it republishes the same message ids, which consumers dedupe.
 */
export const CLAIM_LEASE_MS = 5_000;

/** One request's claim of its key: the message id it publishes with, if it wins the key. */
export interface KeyClaim {
  readonly workspaceId: string;
  readonly kind: RequestKind;
  readonly key: string;
  readonly messageId: string;
}

/** A key's claim as stored, with what the database clock says of it. */
export interface StoredClaim {
  readonly messageId: string;
  readonly state: 'pending' | 'accepted';
  /** Its 24 hours are over: the key is free to claim again (`renewExpired`). */
  readonly expired: boolean;
  /** Pending for longer than the lease: its request died, and another may take it over (`takeOver`). */
  readonly leaseOver: boolean;
  /** As text: a JS Date would drop the microseconds the comparison of takeOver needs. */
  readonly claimedAt: string;
}

interface InsertedRow {
  readonly workspace_id: string;
  readonly request_kind: RequestKind;
  readonly idempotency_key: string;
  readonly message_id: string;
}

interface ClaimRow {
  readonly message_id: string;
  readonly state: 'pending' | 'accepted';
  readonly expired: boolean;
  readonly lease_over: boolean;
  readonly claimed_at: string;
}

/**
 * `ingest.idempotency_keys`: one row per `$idempotency_key` of a workspace and kind of
 * request, its primary key what makes the claims race-free. A row is `pending` while its
 * request publishes and `accepted` once the messages are in the bus. Times come from the
 * database clock, shared by all replicas. Every statement is hand-written and kept as it
 * was: they run on every keyed trigger, event and broadcast (the ingest bench measures them).
 * IdempotencyClaims decides with them.
 */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource('ingest') private readonly db: DataSource) {}

  /**
   * Inserts the pending claims of a batch, one statement; true for each claim whose row
   * went in, false for one whose key is taken. Rows go in key order, so that two batches
   * with keys in common (another replica's, or another batch in flight) lock them in the
   * same order and cannot deadlock. Of claims of one key in one batch, one row goes in
   * and one claim gets true (the first one given with that row's message id); the others
   * find the key taken, as a later request would.
   *
   * Hand-written: `unnest` with `ON CONFLICT DO NOTHING` inserts a whole batch in one round
   * trip and answers which rows went in (the hot path of every keyed request).
   */
  async insertPending(claims: readonly KeyClaim[]): Promise<boolean[]> {
    const ordered = [...claims].sort((a, b) => compare(identityOf(a), identityOf(b)));
    const inserted = returningRows<InsertedRow>(await this.db.query(
      `INSERT INTO ingest.idempotency_keys (workspace_id, request_kind, idempotency_key, message_id, state, claimed_at, expires_at)
       SELECT c.workspace_id, c.request_kind, c.idempotency_key, c.message_id, 'pending', now(), now() + interval '${IDEMPOTENCY_WINDOW_HOURS} hours'
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[]) WITH ORDINALITY AS c(workspace_id, request_kind, idempotency_key, message_id, n)
        ORDER BY c.n
       ON CONFLICT DO NOTHING
       RETURNING workspace_id::text, request_kind, idempotency_key, message_id::text`,
      [ordered.map((c) => c.workspaceId), ordered.map((c) => c.kind), ordered.map((c) => c.key), ordered.map((c) => c.messageId)],
    ));
    // Each row is one claim's; of identical claims (same key and message id), the first given gets it.
    const won = new Map<string, number>();
    for (const row of inserted) {
      const identity = identityOf({ workspaceId: row.workspace_id, kind: row.request_kind, key: row.idempotency_key, messageId: row.message_id });
      won.set(identity, (won.get(identity) ?? 0) + 1);
    }
    return claims.map((claim) => {
      const identity = identityOf(claim);
      const left = won.get(identity) ?? 0;
      if (left === 0) return false;
      won.set(identity, left - 1);
      return true;
    });
  }

  /**
   * Marks the claims accepted, one statement for the batch: from now on a repeat is
   * answered with its message_id. A claim whose row holds another message id (taken over
   * after expiry) is left alone.
   *
   * Hand-written: one `UPDATE ... FROM unnest(...)` for the whole batch, one round trip.
   */
  async markAccepted(claims: readonly KeyClaim[]): Promise<void> {
    await this.db.query(
      `UPDATE ingest.idempotency_keys k SET state = 'accepted'
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[]) AS c(workspace_id, request_kind, idempotency_key, message_id)
        WHERE k.workspace_id = c.workspace_id AND k.request_kind = c.request_kind AND k.idempotency_key = c.idempotency_key AND k.message_id = c.message_id`,
      [claims.map((c) => c.workspaceId), claims.map((c) => c.kind), claims.map((c) => c.key), claims.map((c) => c.messageId)],
    );
  }

  /**
   * The key's claim, or undefined when it has none.
   *
   * Hand-written: reads the claim with its expiry and lease judged by the database clock,
   * and `claimed_at` as text to the microsecond, in one round trip.
   */
  async read(workspaceId: string, kind: RequestKind, key: string): Promise<StoredClaim | undefined> {
    const [row] = returningRows<ClaimRow>(await this.db.query(
      `SELECT message_id, state, claimed_at::text AS claimed_at, expires_at <= now() AS expired,
              claimed_at <= now() - make_interval(secs => $4::double precision / 1000) AS lease_over
         FROM ingest.idempotency_keys WHERE workspace_id = $1 AND request_kind = $2 AND idempotency_key = $3`,
      [workspaceId, kind, key, CLAIM_LEASE_MS],
    ));
    return row === undefined ? undefined : { messageId: row.message_id, state: row.state, expired: row.expired, leaseOver: row.lease_over, claimedAt: row.claimed_at };
  }

  /**
   * Claims an expired key afresh for `messageId` (pending, a new 24 hours); false when it
   * is not expired (any more), because another request renewed it first.
   *
   * Hand-written: the expiry is checked by the update itself, against the database clock.
   */
  async renewExpired(workspaceId: string, kind: RequestKind, key: string, messageId: string): Promise<boolean> {
    const rows = returningRows<{ message_id: string }>(await this.db.query(
      `UPDATE ingest.idempotency_keys
          SET message_id = $4, state = 'pending', claimed_at = now(), expires_at = now() + interval '${IDEMPOTENCY_WINDOW_HOURS} hours'
        WHERE workspace_id = $1 AND request_kind = $2 AND idempotency_key = $3 AND expires_at <= now()
        RETURNING message_id`,
      [workspaceId, kind, key, messageId],
    ));
    return rows.length === 1;
  }

  /**
   * Takes over the pending claim read as claimed at `claimedAt` (the abandoned claim's
   * own time, to the microsecond): false when it changed since, because it was accepted,
   * released or taken over by another request first.
   *
   * Hand-written: compares `claimed_at` as text, which keeps its microseconds.
   */
  async takeOver(workspaceId: string, kind: RequestKind, key: string, claimedAt: string): Promise<boolean> {
    const rows = returningRows<{ message_id: string }>(await this.db.query(
      `UPDATE ingest.idempotency_keys SET claimed_at = now()
        WHERE workspace_id = $1 AND request_kind = $2 AND idempotency_key = $3 AND state = 'pending' AND claimed_at::text = $4
        RETURNING message_id`,
      [workspaceId, kind, key, claimedAt],
    ));
    return rows.length === 1;
  }

  /**
   * Forgets a pending claim of this message id (its publishing failed), so that a retry
   * can publish; an accepted one, or another message id's, stays.
   *
   * Hand-written: kept as it was, beside the claim statements it undoes.
   */
  async release(workspaceId: string, kind: RequestKind, key: string, messageId: string): Promise<void> {
    await this.db.query(
      `DELETE FROM ingest.idempotency_keys
        WHERE workspace_id = $1 AND request_kind = $2 AND idempotency_key = $3 AND message_id = $4 AND state = 'pending'`,
      [workspaceId, kind, key, messageId],
    );
  }

  /**
   * Deletes the claims expired for more than an hour.
   *
   * Hand-written: timed by the database clock, which the claims' times come from.
   */
  async pruneExpired(): Promise<void> {
    await this.db.query(`DELETE FROM ingest.idempotency_keys WHERE expires_at < now() - interval '1 hour'`);
  }
}

/** A claim's key and message id as one string (uuids lower-cased, as Postgres prints them). */
function identityOf(claim: KeyClaim): string {
  return JSON.stringify([claim.workspaceId.toLowerCase(), claim.kind, claim.key, claim.messageId.toLowerCase()]);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
