import { Inject, Injectable } from '@nestjs/common';
import { OutboxMessage } from '@herald/event-store';
import { DISPATCH_OPTIONS, DispatchOptions } from './dispatch-options';
import { DispatchOwner } from './dispatch-owner';
import { DispatchOutboxRepository } from './dispatch-outbox.repository';
import { ClaimHolder, ClaimedDelivery, CommandToClaim, DeliveryRepository, FinishRecord } from './delivery.repository';

/** What a redelivered command found when its claim is still `sending` under another owner. */
export type TakeOver =
  | { readonly kind: 'taken'; readonly delivery: ClaimedDelivery }
  /** Held by a live owner whose lease runs for this long yet: not ours to resolve now. */
  | { readonly kind: 'held'; readonly leaseLeftMs: number }
  /** Not in flight (sent, failed, scheduled for retry), or in flight here. */
  | { readonly kind: 'settled' };

/**
 * This process's claims in the delivery ledger (`dispatch.deliveries`, DeliveryRepository):
 * every claim and write under this process's owner (DispatchOwner) and lease, and the
 * in-process wake-up of the retry poller whenever a write here falls due for it. No SQL
 * of its own: each call is the repository's one statement (two for a takeover that
 * finds the claim held, and for an operator's retry of a row that is not failed).
 */
@Injectable()
export class DeliveryClaims {
  private readonly dueListeners = new Set<(inMs: number) => void>();

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly outbox: DispatchOutboxRepository,
    private readonly owner: DispatchOwner,
    @Inject(DISPATCH_OPTIONS) private readonly options: DispatchOptions,
  ) {}

  /**
   * Calls `listener` whenever this process writes a row that falls due for the retry
   * poller after `inMs`: a retry scheduled, a lease taken. The poller then sleeps until
   * the earliest of them instead of polling (the in-process wake-up of the writer).
   */
  onDue(listener: (inMs: number) => void): () => void {
    this.dueListeners.add(listener);
    return () => this.dueListeners.delete(listener);
  }

  /** How long until the earliest retry is due or lease runs out, 0 if one already is; null when none is scheduled or held. */
  nextDueInMs(): Promise<number | null> {
    return this.deliveries.nextDueInMs();
  }

  /**
   * Claims new deliveries in one statement under this owner's lease, each `queued` (no
   * vendor called yet) or, when asked, already `sending`; one entry per command, null
   * where its delivery_id was claimed before (a redelivery).
   */
  async claimAll(commands: readonly CommandToClaim[]): Promise<Array<ClaimedDelivery | null>> {
    const claimed = await this.deliveries.claimAll(commands, this.holder());
    if (claimed.some((delivery) => delivery !== null)) this.due(this.options.leaseMs);
    return claimed;
  }

  /**
   * Marks claims `sending` just before their vendors are called, in one statement: from
   * here on a claim whose owner dies may have reached a vendor. Resolves with the ids
   * this owner still held.
   */
  startAttempts(deliveryIds: readonly string[]): Promise<Set<string>> {
    return this.deliveries.startAttempts(deliveryIds, this.holder());
  }

  /**
   * A redelivered command whose claim is still `sending` elsewhere: takes the claim over
   * at once when its lease ran out or its owner is gone (a restarted dispatcher resumes
   * the claims of its previous run without waiting for the sweep). A claim without an
   * owner predates leases, and its process may still run it (a rolling upgrade): only
   * its lease decides.
   */
  async takeOver(deliveryId: string): Promise<TakeOver> {
    const taken = await this.deliveries.takeOver(deliveryId, this.holder());
    if (taken) {
      this.due(this.options.leaseMs);
      return { kind: 'taken', delivery: taken };
    }
    const leaseLeftMs = await this.deliveries.leaseLeftMs(deliveryId, this.owner.id);
    return leaseLeftMs === null ? { kind: 'settled' } : { kind: 'held', leaseLeftMs };
  }

  /** Claims retries that are due, counting the attempt. */
  claimDue(limit: number): Promise<ClaimedDelivery[]> {
    return this.deliveries.claimDue(limit, this.holder());
  }

  /**
   * Claims deliveries whose lease ran out: their owner died between its claim and its
   * record, and their command will not come back (it was committed, or the command's
   * partition moved on). Indexed on the lease, oldest first.
   */
  claimExpired(limit: number): Promise<ClaimedDelivery[]> {
    return this.deliveries.claimExpired(limit, this.holder());
  }

  /**
   * Renews the leases of all of this owner's claims in flight, in one statement.
   * Resolves with how many it renewed (fewer than asked: some were taken over).
   */
  renewLeases(deliveryIds: readonly string[]): Promise<number> {
    return this.deliveries.renewLeases(deliveryIds, this.holder());
  }

  /**
   * Narrows what a lost attempt leaves in doubt to the identity in flight, and renews
   * the lease. False when this owner no longer holds the claim.
   */
  markIdentitySent(deliveryId: string, index: number): Promise<boolean> {
    return this.deliveries.markIdentitySent(deliveryId, index, this.holder());
  }

  /**
   * An operator's retry of a delivery that failed for good (its vendor was fixed since):
   * the row is scheduled again, due now, and the retry poller attempts it as any retry
   * (rendered and routed again, counting the attempt; identities sent before stay sent).
   * Only a `failed` row of the workspace moves; the answer says what the row was.
   */
  async retryFailed(workspaceId: string, deliveryId: string): Promise<'scheduled' | 'not_found' | { readonly status: string }> {
    if (await this.deliveries.retryFailed(workspaceId, deliveryId)) {
      this.due(0);
      return 'scheduled';
    }
    const status = await this.deliveries.statusOf(workspaceId, deliveryId);
    return status === null ? 'not_found' : { status };
  }

  /**
   * Publishes an attempt's `retrying` report (through the outbox like the final outcome,
   * with an id per attempt), so the message log shows a delivery in trouble instead of a
   * bare `triggered`. Only informative: the final outcome does not depend on it.
   */
  reportRetry(report: OutboxMessage): Promise<void> {
    return this.outbox.write([report]);
  }

  /** False when this owner no longer holds the claim (nothing changed). */
  async scheduleRetry(deliveryId: string, delayMs: number, error: string): Promise<boolean> {
    const scheduled = await this.deliveries.scheduleRetry(deliveryId, delayMs, error, this.owner.id);
    if (scheduled) this.due(delayMs);
    return scheduled;
  }

  /**
   * Records final states and the outcomes to publish, in one statement (the final states,
   * and the outcomes of the claims this owner still held into the outbox: one round trip,
   * atomic as any statement); one entry per record, false where this owner no longer held
   * the claim (its outcome is not written: whoever took it over reports).
   */
  finishAll(records: readonly FinishRecord[]): Promise<boolean[]> {
    return this.deliveries.finishAll(records, this.owner.id);
  }

  /** The owner as it is now: DispatchOwner takes another id while it looks for a lock no live owner holds. */
  private holder(): ClaimHolder {
    return { owner: this.owner.id, leaseMs: this.options.leaseMs };
  }

  private due(inMs: number): void {
    for (const listener of this.dueListeners) listener(inMs);
  }
}
