import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { CallBatcher } from './call-batcher';

export type RequestKind = 'trigger' | 'event' | 'broadcast';

/** `claimed`: this request publishes, with `messageId`. `repeat`: an earlier request did; answer with its id. */
export type IdempotencyClaim = { readonly kind: 'claimed'; readonly messageId: string } | { readonly kind: 'repeat'; readonly messageId: string };

/** decisions.md: a repeat within 24 hours is answered with the first message_id. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
/**
 * A pending claim older than this belongs to a request that died before it finished;
 * the next request takes it over. Short, because a takeover of a claim whose request is
 * merely slow costs nothing: it republishes the same message ids, which consumers dedupe.
 */
export const CLAIM_LEASE_MS = 5_000;
/** How long a request waits for a concurrent one with the same key (longer than a lease) before it answers 409. */
const CONCURRENT_WAIT_MS = 10_000;
const POLL_MS = 25;
const PRUNE_EVERY_MS = 10 * 60_000;
/**
 * Claims (and marks) of concurrent requests go to Postgres together, one statement and
 * one commit per batch: a commit per request capped keyed triggers at a third of the
 * rate of unkeyed ones. Two batches in flight keep a pool connection busy while the
 * next batch gathers.
 */
const BATCHES_IN_FLIGHT = 2;
const MAX_BATCH = 500;

/** One request's key, as the ledger's statements take it. */
interface KeyedRequest {
  readonly workspaceId: string;
  readonly kind: RequestKind;
  readonly key: string;
  readonly messageId: string;
}

interface ClaimRow {
  readonly message_id: string;
  readonly state: 'pending' | 'accepted';
  readonly expired: boolean;
  readonly lease_over: boolean;
  /** As text: a JS Date would drop the microseconds the comparison of takeOver needs. */
  readonly claimed_at: string;
}

/**
 * `$idempotency_key` across REST, bulk and the Kafka ingress, race-free through the
 * primary key of `ingest.idempotency_keys`: of two concurrent requests with one key,
 * one inserts the claim and publishes; the other waits until that claim is accepted
 * and answers with its message_id. A claim is marked accepted only after its messages
 * are in the bus, so a request that dies in between leaves a pending claim that the
 * next request takes over after the lease, republishing the SAME message ids (which
 * consumers dedupe). Times come from the database clock, shared by all replicas.
 */
@Injectable()
export class IdempotencyLedger implements OnApplicationBootstrap, OnModuleDestroy {
  private pruneTimer?: NodeJS.Timeout;
  private readonly inserts = new CallBatcher<KeyedRequest, boolean>((claims) => this.insertClaims(claims), BATCHES_IN_FLIGHT, MAX_BATCH);
  private readonly accepts = new CallBatcher<KeyedRequest, void>((claims) => this.markAllAccepted(claims), BATCHES_IN_FLIGHT, MAX_BATCH);

  constructor(
    @InjectDataSource('ingest') private readonly db: DataSource,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruneTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.pruneTimer);
  }

  async claim(workspaceId: string, kind: RequestKind, key: string, proposedMessageId: string): Promise<IdempotencyClaim> {
    const deadline = Date.now() + CONCURRENT_WAIT_MS;
    for (;;) {
      if (await this.inserts.call({ workspaceId, kind, key, messageId: proposedMessageId })) return { kind: 'claimed', messageId: proposedMessageId };

      const existing = await this.read(workspaceId, kind, key);
      if (existing === undefined) continue; // pruned or released in between: try again
      if (existing.expired) {
        if (await this.renewExpired(workspaceId, kind, key, proposedMessageId)) return { kind: 'claimed', messageId: proposedMessageId };
        continue;
      }
      if (existing.state === 'accepted') return { kind: 'repeat', messageId: existing.message_id };
      if (existing.lease_over && (await this.takeOver(workspaceId, kind, key, existing))) {
        this.logger.warn('took over an abandoned idempotency claim', { workspace_id: workspaceId, message_id: existing.message_id });
        return { kind: 'claimed', messageId: existing.message_id };
      }
      if (Date.now() > deadline) {
        throw new HeraldError('conflict', 'a request with this $idempotency_key is still being processed; retry it later');
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** The claim's messages are in the bus: from now on a repeat is answered with its message_id. */
  markAccepted(workspaceId: string, kind: RequestKind, key: string, messageId: string): Promise<void> {
    return this.accepts.call({ workspaceId, kind, key, messageId });
  }

  /** Publishing failed: forget the claim so that a retry can publish. */
  async release(workspaceId: string, kind: RequestKind, key: string, messageId: string): Promise<void> {
    await this.db.query(
      `DELETE FROM ingest.idempotency_keys
        WHERE workspace_id = $1 AND request_kind = $2 AND idempotency_key = $3 AND message_id = $4 AND state = 'pending'`,
      [workspaceId, kind, key, messageId],
    );
  }

  /**
   * Inserts the pending claims of a batch; true for each request whose row went in. Rows
   * go in key order, so that two batches with keys in common (another replica's, or the
   * other batch in flight) lock them in the same order and cannot deadlock. Of requests
   * with the same key in one batch, one row goes in and the others find it on the slow path.
   */
  private async insertClaims(claims: readonly KeyedRequest[]): Promise<boolean[]> {
    const ordered = [...claims].sort((a, b) => compare(identityOf(a), identityOf(b)));
    const inserted = (await this.db.query(
      `INSERT INTO ingest.idempotency_keys (workspace_id, request_kind, idempotency_key, message_id, state, claimed_at, expires_at)
       SELECT c.workspace_id, c.request_kind, c.idempotency_key, c.message_id, 'pending', now(), now() + interval '${IDEMPOTENCY_WINDOW_HOURS} hours'
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[]) WITH ORDINALITY AS c(workspace_id, request_kind, idempotency_key, message_id, n)
        ORDER BY c.n
       ON CONFLICT DO NOTHING
       RETURNING workspace_id::text, request_kind, idempotency_key, message_id::text`,
      [ordered.map((c) => c.workspaceId), ordered.map((c) => c.kind), ordered.map((c) => c.key), ordered.map((c) => c.messageId)],
    )) as Array<{ workspace_id: string; request_kind: RequestKind; idempotency_key: string; message_id: string }>;
    // Each row is one request's claim; identical requests (same key and message id) share one row.
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

  private async markAllAccepted(claims: readonly KeyedRequest[]): Promise<void[]> {
    await this.db.query(
      `UPDATE ingest.idempotency_keys k SET state = 'accepted'
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[]) AS c(workspace_id, request_kind, idempotency_key, message_id)
        WHERE k.workspace_id = c.workspace_id AND k.request_kind = c.request_kind AND k.idempotency_key = c.idempotency_key AND k.message_id = c.message_id`,
      [claims.map((c) => c.workspaceId), claims.map((c) => c.kind), claims.map((c) => c.key), claims.map((c) => c.messageId)],
    );
    return claims.map(() => undefined);
  }

  private async read(workspaceId: string, kind: RequestKind, key: string): Promise<ClaimRow | undefined> {
    const [row] = (await this.db.query(
      `SELECT message_id, state, claimed_at::text AS claimed_at, expires_at <= now() AS expired,
              claimed_at <= now() - make_interval(secs => $4::double precision / 1000) AS lease_over
         FROM ingest.idempotency_keys WHERE workspace_id = $1 AND request_kind = $2 AND idempotency_key = $3`,
      [workspaceId, kind, key, CLAIM_LEASE_MS],
    )) as ClaimRow[];
    return row;
  }

  private async renewExpired(workspaceId: string, kind: RequestKind, key: string, messageId: string): Promise<boolean> {
    const rows = returningRows(await this.db.query(
      `UPDATE ingest.idempotency_keys
          SET message_id = $4, state = 'pending', claimed_at = now(), expires_at = now() + interval '${IDEMPOTENCY_WINDOW_HOURS} hours'
        WHERE workspace_id = $1 AND request_kind = $2 AND idempotency_key = $3 AND expires_at <= now()
        RETURNING message_id`,
      [workspaceId, kind, key, messageId],
    ));
    return rows.length === 1;
  }

  private async takeOver(workspaceId: string, kind: RequestKind, key: string, abandoned: ClaimRow): Promise<boolean> {
    const rows = returningRows(await this.db.query(
      `UPDATE ingest.idempotency_keys SET claimed_at = now()
        WHERE workspace_id = $1 AND request_kind = $2 AND idempotency_key = $3 AND state = 'pending' AND claimed_at::text = $4
        RETURNING message_id`,
      [workspaceId, kind, key, abandoned.claimed_at],
    ));
    return rows.length === 1;
  }

  private async prune(): Promise<void> {
    try {
      await this.db.query(`DELETE FROM ingest.idempotency_keys WHERE expires_at < now() - interval '1 hour'`);
    } catch (error) {
      this.logger.warn('pruning expired idempotency keys failed; will retry', { err: (error as Error).message });
    }
  }
}

/** A request's key and message id as one string (uuids lower-cased, as Postgres prints them). */
function identityOf(request: KeyedRequest): string {
  return JSON.stringify([request.workspaceId.toLowerCase(), request.kind, request.key, request.messageId.toLowerCase()]);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
