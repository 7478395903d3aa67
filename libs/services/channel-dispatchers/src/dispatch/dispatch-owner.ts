import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { DispatchOwnerLockRepository, HeldOwnerLock } from './dispatch-owner-lock.repository';

/**
 * This dispatcher process as the owner of delivery claims: an id unique to the process
 * (host, pid, a random part, so a restart is a new owner) and a session-level advisory
 * lock held on a dedicated connection while the process lives (DispatchOwnerLockRepository),
 * by which others tell whether the owner of a claim is gone. In the embedded mode (PGlite) every connection
 * shares one session; a single process uses the data folder, so any other owner there
 * is a previous run, and its lock went with it.
 */
@Injectable()
export class DispatchOwner implements OnModuleInit, BeforeApplicationShutdown {
  private ownerId = newOwnerId();
  private lock?: HeldOwnerLock;

  constructor(
    private readonly locks: DispatchOwnerLockRepository,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** This process's owner id, as its claims record it. */
  get id(): string {
    return this.ownerId;
  }

  /**
   * Before any consumer or poller starts, so no claim of this owner exists without its
   * lock. The lock is keyed by a 32-bit hash of the id: should a live owner's id hash
   * alike, this process takes another id.
   */
  async onModuleInit(): Promise<void> {
    for (let tries = 1; !(await this.tryLock()); tries += 1) {
      if (tries === 5) throw new Error('the dispatch owner lock is taken under every id tried');
      this.ownerId = newOwnerId();
    }
  }

  /**
   * Checks the lock's connection (one cheap query, with each lease renewal) and takes
   * the lock again if the connection was lost (the driver drops a failed
   * connection, and the session's lock goes with it). Until then this owner looks gone,
   * and a redelivered command may resolve its claims; its own late record is then
   * refused (every ledger write checks the owner), so nothing is reported twice.
   */
  async ensureLock(): Promise<void> {
    const lock = this.lock;
    if (lock && !lock.isReleased) {
      try {
        await lock.keepAlive();
        return;
      } catch {
        await lock.abandon();
      }
    }
    this.lock = undefined;
    this.logger.warn('dispatch owner lost its lock connection; taking it again', { owner: this.id });
    if (!(await this.tryLock())) this.logger.warn('dispatch owner could not take its lock again; trying with the next renewal', { owner: this.id });
  }

  /** After the consumers and the poller stopped (their in-flight attempts are done). */
  async beforeApplicationShutdown(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    if (!lock || lock.isReleased) return;
    try {
      await lock.release();
    } catch {
      // The session is most likely gone, and the lock with it (its connection was given back all the same).
    }
  }

  private async tryLock(): Promise<boolean> {
    this.lock = (await this.locks.tryLock(this.id)) ?? undefined;
    return this.lock !== undefined;
  }
}

function newOwnerId(): string {
  return `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
}
