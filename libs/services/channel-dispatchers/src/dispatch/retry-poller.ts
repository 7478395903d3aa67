import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { DISPATCH_OPTIONS, DispatchOptions } from './dispatch-options';
import { ClaimLeases } from './claim-leases';
import { ClaimedDelivery, DeliveryLedger } from './delivery-ledger';
import { Dispatcher } from './dispatcher';

const BATCH = 20;

/**
 * Runs scheduled retries when they are due, and resolves claims whose lease ran out (an
 * owner that died between claim and record, whose command will not come back). Polling
 * the ledger keeps retries off the Kafka partitions; both reads are indexed and SKIP
 * LOCKED lets every replica poll without doing an attempt twice. Besides its interval it
 * is woken when a lease it was told about runs out.
 */
@Injectable()
export class RetryPoller implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  /** When the pending timer fires (epoch ms). */
  private timerAt = 0;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly ledger: DeliveryLedger,
    private readonly dispatcher: Dispatcher,
    private readonly leases: ClaimLeases,
    @Inject(DISPATCH_OPTIONS) private readonly options: DispatchOptions,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Polls as soon as `ms` have passed (a lease seen held that runs out then), if that is before the next round. */
  wakeIn(ms: number): void {
    if (this.stopped || this.running || Date.now() + ms >= this.timerAt) return;
    clearTimeout(this.timer);
    this.schedule(ms);
  }

  /** One round: due retries and expired claims. Resolves with how many deliveries it attempted. */
  async pollOnce(): Promise<number> {
    let attempted = 0;
    for (let more = true; more && !this.stopped; ) {
      const due = await this.ledger.claimDue(BATCH);
      await this.leases.holdAll(idsOf(due), async () => {
        for (const delivery of due) await this.dispatcher.attempt(delivery);
      });
      const expired = await this.ledger.claimExpired(BATCH);
      if (expired.length > 0) this.logger.info('resolving delivery claims whose lease ran out', { count: expired.length });
      await this.leases.holdAll(idsOf(expired), async () => {
        for (const delivery of expired) await this.dispatcher.attempt(delivery);
      });
      attempted += due.length + expired.length;
      // A full batch: more may be waiting (after a crash, every claim of the dead owner).
      more = due.length === BATCH || expired.length === BATCH;
    }
    return attempted;
  }

  private schedule(delayMs = this.options.pollIntervalMs): void {
    if (this.stopped) return;
    this.timerAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timerAt = Number.POSITIVE_INFINITY;
      this.running = this.pollOnce()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.warn('retry poll failed', { error: error instanceof Error ? error.message : String(error) }))
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, delayMs);
  }
}

const idsOf = (deliveries: readonly ClaimedDelivery[]): string[] => deliveries.map((delivery) => delivery.deliveryId);
