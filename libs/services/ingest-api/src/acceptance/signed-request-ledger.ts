import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { HERALD_LOGGER, HeraldLogger, SDK_SIGNATURE_MAX_CLOCK_SKEW_MS } from '@herald/runtime';

/** What a signed request was answered with; a replay gets the same. */
export interface SignedAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** `claimed`: this request does the work. `repeat`: an earlier one did; answer with its answer. */
export type SignedRequestClaim = { readonly kind: 'claimed'; readonly takenOver: boolean } | { readonly kind: 'repeat'; readonly answer: SignedAnswer };

/**
 * How long an answer is kept. A signature verifies while its Date is within the skew of
 * the verifying replica's clock, so a request dated up to 15 minutes ahead can be
 * replayed until 30 minutes after it first arrived. Five more minutes cover replica
 * clocks that run ahead of the database's, which times the rows.
 */
export const SIGNED_REPLAY_WINDOW_MS = 2 * SDK_SIGNATURE_MAX_CLOCK_SKEW_MS + 5 * 60_000;
/** As for idempotency claims: a pending claim older than this belongs to a request that died. */
const CLAIM_LEASE_MS = 5_000;
/** How long a replay waits for the first request to be answered (longer than a lease) before it answers 409. */
const CONCURRENT_WAIT_MS = 10_000;
const POLL_MS = 25;
const PRUNE_EVERY_MS = 10 * 60_000;

interface ClaimRow {
  readonly state: 'pending' | 'answered';
  readonly status: number | null;
  readonly body: string | null;
  readonly expired: boolean;
  readonly lease_over: boolean;
  /** As text: a JS Date would drop the microseconds the comparison of takeOver needs. */
  readonly claimed_at: string;
}

/**
 * The answers of SDK-signed requests (`ingest.signed_requests`), keyed by workspace and
 * `sdkSignatureReplayKey`. Like IdempotencyLedger: of a request and its replays, one
 * inserts a pending claim and does the work; the others wait for its answer. A claim is
 * released when its request fails, so a replay of a refused request is judged afresh;
 * one whose request died is taken over after the lease (the work then runs again with
 * the same derived message ids, which consumers dedupe). Times come from the database.
 */
@Injectable()
export class SignedRequestLedger implements OnApplicationBootstrap, OnModuleDestroy {
  private pruneTimer?: NodeJS.Timeout;

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

  async claim(workspaceId: string, replayKey: string): Promise<SignedRequestClaim> {
    const deadline = Date.now() + CONCURRENT_WAIT_MS;
    for (;;) {
      const inserted = (await this.db.query(
        `INSERT INTO ingest.signed_requests (workspace_id, replay_key, state, claimed_at, expires_at)
         VALUES ($1, $2, 'pending', now(), now() + make_interval(secs => $3::double precision / 1000))
         ON CONFLICT DO NOTHING RETURNING replay_key`,
        [workspaceId, replayKey, SIGNED_REPLAY_WINDOW_MS],
      )) as unknown[];
      if (inserted.length === 1) return { kind: 'claimed', takenOver: false };

      const existing = await this.read(workspaceId, replayKey);
      if (existing === undefined) continue; // released or pruned in between: try again
      if (existing.expired) {
        // Only reachable with clocks further apart than the margin; a fresh claim is the safe answer.
        await this.db.query(`DELETE FROM ingest.signed_requests WHERE workspace_id = $1 AND replay_key = $2 AND expires_at <= now()`, [workspaceId, replayKey]);
        continue;
      }
      if (existing.state === 'answered') return { kind: 'repeat', answer: { status: existing.status ?? 202, body: JSON.parse(existing.body ?? 'null') as unknown } };
      if (existing.lease_over && (await this.takeOver(workspaceId, replayKey, existing))) return { kind: 'claimed', takenOver: true };
      if (Date.now() > deadline) {
        throw new HeraldError('conflict', 'this signed request is still being processed; retry it later');
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** The work is done: from now on a replay is answered with `answer`. */
  async answered(workspaceId: string, replayKey: string, answer: SignedAnswer): Promise<void> {
    await this.db.query(
      `UPDATE ingest.signed_requests SET state = 'answered', status = $3, body = $4 WHERE workspace_id = $1 AND replay_key = $2`,
      [workspaceId, replayKey, answer.status, JSON.stringify(answer.body)],
    );
  }

  /** The request was refused or failed: forget it, so that a replay is judged again. */
  async release(workspaceId: string, replayKey: string): Promise<void> {
    await this.db.query(`DELETE FROM ingest.signed_requests WHERE workspace_id = $1 AND replay_key = $2 AND state = 'pending'`, [workspaceId, replayKey]);
  }

  private async read(workspaceId: string, replayKey: string): Promise<ClaimRow | undefined> {
    const [row] = (await this.db.query(
      `SELECT state, status, body, claimed_at::text AS claimed_at, expires_at <= now() AS expired,
              claimed_at <= now() - make_interval(secs => $3::double precision / 1000) AS lease_over
         FROM ingest.signed_requests WHERE workspace_id = $1 AND replay_key = $2`,
      [workspaceId, replayKey, CLAIM_LEASE_MS],
    )) as ClaimRow[];
    return row;
  }

  private async takeOver(workspaceId: string, replayKey: string, abandoned: ClaimRow): Promise<boolean> {
    const rows = returningRows(await this.db.query(
      `UPDATE ingest.signed_requests SET claimed_at = now()
        WHERE workspace_id = $1 AND replay_key = $2 AND state = 'pending' AND claimed_at::text = $3
        RETURNING replay_key`,
      [workspaceId, replayKey, abandoned.claimed_at],
    ));
    return rows.length === 1;
  }

  private async prune(): Promise<void> {
    try {
      await this.db.query(`DELETE FROM ingest.signed_requests WHERE expires_at < now()`);
    } catch (error) {
      this.logger.warn('pruning expired signed-request answers failed; will retry', { err: (error as Error).message });
    }
  }
}
