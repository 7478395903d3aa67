import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { HeraldError, deterministicUuid } from '@herald/contracts';
import { AuthenticatedRequest, AuthenticatedWorkspace, HERALD_LOGGER, HeraldLogger, refuseInfrastructureFailure } from '@herald/runtime';
import { SignedRequestClaims } from './signed-request-claims';
import { SignedAnswer } from './signed-request.repository';

/** The message id the record at `index` of a request proposes (index 0 for a single body). */
export type MessageIdAt = (index: number) => string;

/**
 * An exact replay of an SDK-signed request is answered as a repeat of the first: same
 * status, same body (its message_ids, a bulk call's 207 records), and nothing published
 * again. A signature verifies for 15 minutes either side of its Date and the SDKs add no
 * nonce, so without this a captured request could start its runs again. An SDK that
 * retries after a timeout signs again with a new Date: a new request, run as one.
 *
 * A signed request's message ids derive from its replay key, so a replay that takes over
 * the claim of a request that died mid-way republishes the same ids, which consumers
 * dedupe. Bearer requests are not replay-checked: the key is a static credential, so a
 * repeat cannot be told from a new request (`$idempotency_key` is the tool there).
 */
@Injectable()
export class SignedRequestReplays {
  constructor(
    private readonly claims: SignedRequestClaims,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async answerOnce(workspace: AuthenticatedWorkspace, request: AuthenticatedRequest, work: (messageIdAt: MessageIdAt) => Promise<SignedAnswer>): Promise<SignedAnswer> {
    const replayKey = request.signatureReplayKey;
    if (replayKey === undefined) return work(() => randomUUID());

    const claim = await this.infrastructure(() => this.claims.claim(workspace.id, replayKey));
    if (claim.kind === 'repeat') {
      this.logger.warn('signed request replayed; answered with the first answer and nothing started', { workspace_id: workspace.id, status: claim.answer.status });
      return claim.answer;
    }
    if (claim.takenOver) this.logger.warn('took over the claim of a signed request that died; its work runs again with the same message ids', { workspace_id: workspace.id });

    let answer: SignedAnswer;
    try {
      answer = await work((index) => deterministicUuid('signed-request', workspace.id, replayKey, String(index)));
    } catch (error) {
      await this.claims.release(workspace.id, replayKey).catch((releaseError: Error) =>
        // The claim stays pending; a replay takes it over after the lease.
        this.logger.warn('could not release a signed-request claim', { workspace_id: workspace.id, err: releaseError.message }),
      );
      throw error;
    }
    try {
      await this.claims.answered(workspace.id, replayKey, answer);
    } catch (error) {
      // The work is done. A replay after the lease runs it again with the same ids, which consumers dedupe.
      this.logger.warn('answered, but could not record the answer of a signed request', { workspace_id: workspace.id, err: (error as Error).message });
    }
    return answer;
  }

  /** A database failure is Herald's, not the client's: 429 when saturated, 503 when unreachable, never 500 (`databaseRefusal`). */
  private async infrastructure<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof HeraldError) throw error;
      throw refuseInfrastructureFailure(this.logger, 'claiming a signed request', error);
    }
  }
}
