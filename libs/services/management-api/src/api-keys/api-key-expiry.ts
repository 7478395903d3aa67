import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { ApiKeyStore } from './api-key-store';

/**
 * The longest this replica sleeps between sweeps: keys created by another replica (which
 * wakes for its own) expire within this much if that replica has gone.
 */
export const LONGEST_EXPIRY_SLEEP_MS = 60_000;
/** The shortest: a key another replica is expiring right now is left to it for this long. */
const SHORTEST_EXPIRY_SLEEP_MS = 1_000;

/**
 * Deletes API keys when their `expires_at` passes (`ApiKeyStore.expireDue`), announcing
 * each deletion so every service stops accepting the key. It sleeps until the next
 * expiry it knows of, at most a minute, and a key created here with a sooner expiry wakes
 * it earlier (`expiresAt`).
 */
@Injectable()
export class ApiKeyExpiry implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private wakeAt = Number.POSITIVE_INFINITY;
  private stopped = false;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly store: ApiKeyStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.wakeIn(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.sweeping;
  }

  /** A key expiring at `at` was created: sweep then, if that is sooner than planned. */
  expiresAt(at: Date): void {
    if (at.getTime() < this.wakeAt) this.wakeIn(at.getTime() - this.clock.now().getTime());
  }

  private wakeIn(delayMs: number): void {
    if (this.stopped) return;
    const delay = Math.min(Math.max(delayMs, 0), LONGEST_EXPIRY_SLEEP_MS);
    clearTimeout(this.timer);
    this.wakeAt = this.clock.now().getTime() + delay;
    this.timer = setTimeout(() => {
      this.sweeping = this.sweep().finally(() => (this.sweeping = undefined));
    }, delay);
    this.timer.unref();
  }

  private async sweep(): Promise<void> {
    this.wakeAt = Number.POSITIVE_INFINITY;
    let nextInMs = LONGEST_EXPIRY_SLEEP_MS;
    try {
      const { expired, nextExpiry } = await this.store.expireDue();
      if (expired > 0) this.logger.info('expired API keys deleted', { component: 'api-key-expiry', expired });
      if (nextExpiry) nextInMs = Math.max(nextExpiry.getTime() - this.clock.now().getTime(), SHORTEST_EXPIRY_SLEEP_MS);
    } catch (error) {
      // The database's trouble: the next sweep tries again.
      this.logger.warn('could not expire API keys; retrying', { component: 'api-key-expiry', error: (error as Error).message });
    }
    if (this.wakeAt === Number.POSITIVE_INFINITY) this.wakeIn(nextInMs);
  }
}
