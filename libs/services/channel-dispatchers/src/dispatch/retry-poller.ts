import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DueLoop, HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { DISPATCH_OPTIONS, DispatchOptions } from './dispatch-options';
import { ClaimLeases } from './claim-leases';
import { DeliveryClaims } from './delivery-claims';
import { ClaimedDelivery } from './delivery.repository';
import { Dispatcher } from './dispatcher';

const BATCH = 20;
/**
 * The pause after a failed round, and after one that left a row due behind (locked by
 * another replica's round, or due just as the round ended): the old polling cadence,
 * so a row that cannot be claimed yet never makes the poller spin.
 */
const RECHECK_MS = 1_000;

/**
 * Runs scheduled retries when they are due, and resolves claims whose lease ran out (an
 * owner that died between claim and record, whose command will not come back). Polling
 * the ledger keeps retries off the Kafka partitions; both reads are indexed and SKIP
 * LOCKED lets every replica poll without doing an attempt twice.
 *
 * Idle, it does not poll: after each round it asks the ledger when the earliest retry
 * is due or lease runs out (one statement) and sleeps until then, woken sooner when this
 * process schedules a retry or takes a lease (the ledger tells it) or sees another
 * owner's lease that runs out sooner (`wakeIn`). `pollIntervalMs` is the longest sleep:
 * the safety poll that finds what other replicas wrote since.
 */
@Injectable()
export class RetryPoller implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: DueLoop;
  private unsubscribe?: () => void;
  /** Set on shutdown: a round in flight stops after its current batch. */
  private stopped = false;

  constructor(
    private readonly ledger: DeliveryClaims,
    private readonly dispatcher: Dispatcher,
    private readonly leases: ClaimLeases,
    @Inject(DISPATCH_OPTIONS) options: DispatchOptions,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {
    this.loop = new DueLoop(() => this.round(), {
      longestSleepMs: options.pollIntervalMs,
      afterFailureMs: Math.min(RECHECK_MS, options.pollIntervalMs),
      onError: (error) => this.logger.warn('retry poll failed', { error: error instanceof Error ? error.message : String(error) }),
    });
  }

  onApplicationBootstrap(): void {
    this.unsubscribe = this.ledger.onDue((inMs) => this.wakeIn(inMs));
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    await this.loop.stop();
  }

  /** Polls as soon as `ms` have passed (a retry or a lease that falls due then), if that is before the next round. */
  wakeIn(ms: number): void {
    this.loop.wakeIn(ms);
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

  /** A round, then how long until the earliest due row (RECHECK_MS if one is due already: another replica holds it). */
  private async round(): Promise<number | undefined> {
    await this.pollOnce();
    const dueInMs = await this.ledger.nextDueInMs();
    return dueInMs === null ? undefined : dueInMs > 0 ? dueInMs : RECHECK_MS;
  }
}

const idsOf = (deliveries: readonly ClaimedDelivery[]): string[] => deliveries.map((delivery) => delivery.deliveryId);
