import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { SignedAnswer, SignedRequestRepository } from './signed-request.repository';

/** `claimed`: this request does the work. `repeat`: an earlier one did; answer with its answer. */
export type SignedRequestClaim = { readonly kind: 'claimed'; readonly takenOver: boolean } | { readonly kind: 'repeat'; readonly answer: SignedAnswer };

/** How long a replay waits for the first request to be answered (longer than a lease) before it answers 409. */
const CONCURRENT_WAIT_MS = 10_000;
const POLL_MS = 25;
const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * The claims of SDK-signed requests on their answers (`ingest.signed_requests`, through
 * SignedRequestRepository). Like IdempotencyClaims: of a request and its replays, one
 * inserts a pending claim and does the work; the others wait for its answer. A claim is
 * released when its request fails, so a replay of a refused request is judged afresh;
 * one whose request died is taken over after the lease (the work then runs again with
 * the same derived message ids, which consumers dedupe). Expired answers are pruned
 * every ten minutes.
 */
@Injectable()
export class SignedRequestClaims implements OnApplicationBootstrap, OnModuleDestroy {
  private pruneTimer?: NodeJS.Timeout;

  constructor(
    private readonly requests: SignedRequestRepository,
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
      if (await this.requests.insertPending(workspaceId, replayKey)) return { kind: 'claimed', takenOver: false };

      const existing = await this.requests.read(workspaceId, replayKey);
      if (existing === undefined) continue; // released or pruned in between: try again
      if (existing.expired) {
        // Only reachable with clocks further apart than the margin; a fresh claim is the safe answer.
        await this.requests.deleteExpired(workspaceId, replayKey);
        continue;
      }
      if (existing.state === 'answered') return { kind: 'repeat', answer: existing.answer };
      if (existing.leaseOver && (await this.requests.takeOver(workspaceId, replayKey, existing.claimedAt))) return { kind: 'claimed', takenOver: true };
      if (Date.now() > deadline) {
        throw new HeraldError('conflict', 'this signed request is still being processed; retry it later');
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** The work is done: from now on a replay is answered with `answer`. */
  answered(workspaceId: string, replayKey: string, answer: SignedAnswer): Promise<void> {
    return this.requests.answer(workspaceId, replayKey, answer);
  }

  /** The request was refused or failed: forget it, so that a replay is judged again. */
  release(workspaceId: string, replayKey: string): Promise<void> {
    return this.requests.release(workspaceId, replayKey);
  }

  private async prune(): Promise<void> {
    try {
      await this.requests.pruneExpired();
    } catch (error) {
      this.logger.warn('pruning expired signed-request answers failed; will retry', { err: (error as Error).message });
    }
  }
}
