import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { DISPATCH_OPTIONS, DispatchOptions } from './dispatch-options';
import { DispatchOwner } from './dispatch-owner';
import { DeliveryClaims } from './delivery-claims';

/**
 * The heartbeat of this process's claims: while an attempt runs, its claim's lease is
 * renewed every `leaseRenewIntervalMs`, all claims in flight in one statement, so a slow
 * vendor call is never taken over while its owner lives, and a dead owner's claims run
 * out `leaseMs` after its last renewal at the latest.
 */
@Injectable()
export class ClaimLeases implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** Delivery ids claimed here and not yet recorded, with how many holders each has (a batch, then its attempt). */
  private readonly held = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private renewing?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly ledger: DeliveryClaims,
    private readonly owner: DispatchOwner,
    @Inject(DISPATCH_OPTIONS) private readonly options: DispatchOptions,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** Keeps the claim's lease renewed while `work` runs. */
  hold<T>(deliveryId: string, work: () => Promise<T>): Promise<T> {
    return this.holdAll([deliveryId], work);
  }

  /**
   * Keeps the leases of a batch of claims renewed while `work` attempts them one after
   * the other: a claim waiting for its turn must not run out and be taken over by
   * another replica, which would then call the vendor too.
   */
  async holdAll<T>(deliveryIds: readonly string[], work: () => Promise<T>): Promise<T> {
    for (const id of deliveryIds) this.held.set(id, (this.held.get(id) ?? 0) + 1);
    try {
      return await work();
    } finally {
      for (const id of deliveryIds) {
        const left = (this.held.get(id) ?? 1) - 1;
        if (left > 0) this.held.set(id, left);
        else this.held.delete(id);
      }
    }
  }

  /**
   * Renews every lease held here now; resolves with how many the ledger renewed. Holding
   * none (idle), it runs no statement: the owner lock is checked with the next renewal
   * that has claims to protect, before their leases are renewed.
   */
  async renewOnce(): Promise<number> {
    if (this.held.size === 0) return 0;
    await this.owner.ensureLock();
    return this.ledger.renewLeases([...this.held.keys()]);
  }

  onApplicationBootstrap(): void {
    this.schedule();
  }

  /** After the consumers and the poller stopped: their attempts kept their leases to the end. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.renewing;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.renewing = this.renewOnce()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.warn('claim lease renewal failed', { in_flight: this.held.size, error: error instanceof Error ? error.message : String(error) }))
        .finally(() => this.schedule());
    }, this.options.leaseRenewIntervalMs);
  }
}
