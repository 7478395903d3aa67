import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { DISPATCH_OPTIONS, DispatchOptions } from './dispatch-options';
import { DeliveryLedger } from './delivery-ledger';
import { Dispatcher } from './dispatcher';

const BATCH = 20;

/**
 * Runs scheduled retries when they are due, and resolves claims whose attempt died
 * (a crash between claim and record). Polling the ledger keeps retries off the Kafka
 * partitions; SKIP LOCKED lets every replica poll without doing an attempt twice.
 */
@Injectable()
export class RetryPoller implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly ledger: DeliveryLedger,
    private readonly dispatcher: Dispatcher,
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

  /** One round: due retries and abandoned claims. Resolves with how many deliveries it attempted. */
  async pollOnce(): Promise<number> {
    const due = await this.ledger.claimDue(BATCH);
    for (const delivery of due) await this.dispatcher.attempt(delivery);
    const abandoned = await this.ledger.claimAbandoned(this.options.abandonedAfterMs, BATCH);
    for (const delivery of abandoned) await this.dispatcher.attempt(delivery, true);
    return due.length + abandoned.length;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pollOnce()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.warn('retry poll failed', { error: error instanceof Error ? error.message : String(error) }))
        .finally(() => this.schedule());
    }, this.options.pollIntervalMs);
  }
}
