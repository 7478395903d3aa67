import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { CLOCK, Clock, DueLoop, HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { ApiKeyRepository } from './api-key.repository';

/**
 * The longest this replica sleeps between sweeps: keys created by another replica (which
 * wakes for its own) expire within this much if that replica has gone.
 */
export const LONGEST_EXPIRY_SLEEP_MS = 60_000;
/** The shortest: a key another replica is expiring right now is left to it for this long. */
const SHORTEST_EXPIRY_SLEEP_MS = 1_000;

/**
 * Deletes API keys when their `expires_at` passes (`ApiKeyRepository.expireDue`), announcing
 * each deletion so every service stops accepting the key. It sleeps until the next
 * expiry it knows of, at most a minute, and a key created here with a sooner expiry wakes
 * it earlier (`expiresAt`).
 */
@Injectable()
export class ApiKeyExpiry implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: DueLoop;

  constructor(
    private readonly keys: ApiKeyRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {
    this.loop = new DueLoop(() => this.sweep(), {
      longestSleepMs: LONGEST_EXPIRY_SLEEP_MS,
      // The database's trouble: the next sweep tries again.
      afterFailureMs: LONGEST_EXPIRY_SLEEP_MS,
      onError: (error) => this.logger.warn('could not expire API keys; retrying', { component: 'api-key-expiry', error: error instanceof Error ? error.message : String(error) }),
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** A key expiring at `at` was created: sweep then, if that is sooner than planned. */
  expiresAt(at: Date): void {
    this.loop.wakeIn(at.getTime() - this.clock.now().getTime());
  }

  /** Deletes the keys due; resolves with how long until the next one expires. */
  private async sweep(): Promise<number | undefined> {
    const { expired, nextExpiry } = await this.keys.expireDue();
    if (expired > 0) this.logger.info('expired API keys deleted', { component: 'api-key-expiry', expired });
    return nextExpiry ? Math.max(nextExpiry.getTime() - this.clock.now().getTime(), SHORTEST_EXPIRY_SLEEP_MS) : undefined;
  }
}
