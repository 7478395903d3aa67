import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { CallBatcher } from './call-batcher';
import { IdempotencyRepository, KeyClaim, RequestKind } from './idempotency.repository';

/** `claimed`: this request publishes, with `messageId`. `repeat`: an earlier request did; answer with its id. */
export type IdempotencyClaim = { readonly kind: 'claimed'; readonly messageId: string } | { readonly kind: 'repeat'; readonly messageId: string };

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

/**
 * `$idempotency_key` across REST, bulk and the Kafka ingress, race-free through the
 * primary key of `ingest.idempotency_keys` (IdempotencyRepository): of two concurrent
 * requests with one key, one inserts the claim and publishes; the other waits until that
 * claim is accepted and answers with its message_id. A claim is marked accepted only
 * after its messages are in the bus, so a request that dies in between leaves a pending
 * claim that the next request takes over after the lease, republishing the SAME message
 * ids (which consumers dedupe). Expired claims are pruned every ten minutes.
 */
@Injectable()
export class IdempotencyClaims implements OnApplicationBootstrap, OnModuleDestroy {
  private pruneTimer?: NodeJS.Timeout;
  private readonly inserts = new CallBatcher<KeyClaim, boolean>((claims) => this.keys.insertPending(claims), BATCHES_IN_FLIGHT, MAX_BATCH);
  private readonly accepts = new CallBatcher<KeyClaim, void>((claims) => this.markAllAccepted(claims), BATCHES_IN_FLIGHT, MAX_BATCH);

  constructor(
    private readonly keys: IdempotencyRepository,
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

      const existing = await this.keys.read(workspaceId, kind, key);
      if (existing === undefined) continue; // pruned or released in between: try again
      if (existing.expired) {
        if (await this.keys.renewExpired(workspaceId, kind, key, proposedMessageId)) return { kind: 'claimed', messageId: proposedMessageId };
        continue;
      }
      if (existing.state === 'accepted') return { kind: 'repeat', messageId: existing.messageId };
      if (existing.leaseOver && (await this.keys.takeOver(workspaceId, kind, key, existing.claimedAt))) {
        this.logger.warn('took over an abandoned idempotency claim', { workspace_id: workspaceId, message_id: existing.messageId });
        return { kind: 'claimed', messageId: existing.messageId };
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
  release(workspaceId: string, kind: RequestKind, key: string, messageId: string): Promise<void> {
    return this.keys.release(workspaceId, kind, key, messageId);
  }

  private async markAllAccepted(claims: readonly KeyClaim[]): Promise<void[]> {
    await this.keys.markAccepted(claims);
    return claims.map(() => undefined);
  }

  private async prune(): Promise<void> {
    try {
      await this.keys.pruneExpired();
    } catch (error) {
      this.logger.warn('pruning expired idempotency keys failed; will retry', { err: (error as Error).message });
    }
  }
}
