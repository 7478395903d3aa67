import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { DISPATCH_OPTIONS, DispatchOptions } from './dispatch-options';
import { ClaimLeases } from './claim-leases';
import { ClaimedDelivery, DeliveryLedger } from './delivery-ledger';
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
  private timer?: NodeJS.Timeout;
  /** When the pending timer fires (epoch ms). */
  private timerAt = 0;
  /** The earliest wake-up asked for while a round ran (epoch ms): the round may have looked before that row was written. */
  private wakeAfterRound = Number.POSITIVE_INFINITY;
  private running?: Promise<void>;
  private stopped = false;
  private unsubscribe?: () => void;

  constructor(
    private readonly ledger: DeliveryLedger,
    private readonly dispatcher: Dispatcher,
    private readonly leases: ClaimLeases,
    @Inject(DISPATCH_OPTIONS) private readonly options: DispatchOptions,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.ledger.onDue((inMs) => this.wakeIn(inMs));
    this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    await this.running;
  }

  /** Polls as soon as `ms` have passed (a retry or a lease that falls due then), if that is before the next round. */
  wakeIn(ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    if (this.running) {
      this.wakeAfterRound = Math.min(this.wakeAfterRound, at);
      return;
    }
    if (at >= this.timerAt) return;
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

  /** A round, then how long to sleep: until the earliest due row, at most the safety poll. */
  private async round(): Promise<number> {
    await this.pollOnce();
    const dueInMs = (await this.ledger.nextDueInMs()) ?? Number.POSITIVE_INFINITY;
    return Math.min(dueInMs > 0 ? dueInMs : RECHECK_MS, this.options.pollIntervalMs);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timerAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timerAt = Number.POSITIVE_INFINITY;
      this.wakeAfterRound = Number.POSITIVE_INFINITY;
      let next = Math.min(RECHECK_MS, this.options.pollIntervalMs);
      this.running = this.round()
        .then((sleepMs) => void (next = sleepMs))
        .catch((error: unknown) => this.logger.warn('retry poll failed', { error: error instanceof Error ? error.message : String(error) }))
        .finally(() => {
          this.running = undefined;
          this.schedule(Math.max(0, Math.min(next, this.wakeAfterRound - Date.now())));
        });
    }, delayMs);
  }
}

const idsOf = (deliveries: readonly ClaimedDelivery[]): string[] => deliveries.map((delivery) => delivery.deliveryId);
