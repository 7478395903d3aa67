import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryRunner } from 'typeorm';
import { returningRows } from '@herald/database';

/** The advisory lock key space of owners: `(hashtext(OWNER_LOCK_SPACE), hashtext(owner))`. */
const OWNER_LOCK_SPACE = 'herald:dispatch-owner';

/**
 * SQL: whether the process that owns the claim of `ownerSql` is alive. A live owner holds
 * its session-level advisory lock; the lock goes with the session, and Postgres ends the
 * session as soon as the process's connection closes (a crash, kill -9: the kernel closes
 * the socket). A hash collision can only make a dead owner look alive (its claim then
 * waits for its lease to run out), never the reverse.
 */
export function ownerIsAliveSql(ownerSql: string): string {
  return `EXISTS (SELECT 1 FROM pg_locks l
     WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND l.classid::int4 = hashtext('${OWNER_LOCK_SPACE}') AND l.objid::int4 = hashtext(${ownerSql}))`;
}

/**
 * An owner's lock as held: the session-level advisory lock and the connection of its own
 * that holds it (the lock lives exactly as long as that session).
 */
export class HeldOwnerLock {
  constructor(
    /** The owner id the lock is keyed by. */
    readonly owner: string,
    private readonly session: QueryRunner,
  ) {}

  /** Whether the connection was given back (released or abandoned): the lock is no longer held through it. */
  get isReleased(): boolean {
    return this.session.isReleased;
  }

  /** One cheap statement on the lock's connection: rejects when the connection (and so the lock) was lost. */
  async keepAlive(): Promise<void> {
    await this.session.query('SELECT 1');
  }

  /**
   * Unlocks and gives the connection back. The connection goes back whatever happens; the
   * promise rejects when the unlock failed (the session is most likely gone, and the lock with it).
   */
  async release(): Promise<void> {
    try {
      await this.session.query(`SELECT pg_advisory_unlock(hashtext('${OWNER_LOCK_SPACE}'), hashtext($1))`, [this.owner]);
    } finally {
      await this.session.release();
    }
  }

  /** Gives a failed connection back without unlocking: its session, and the lock with it, is gone. */
  async abandon(): Promise<void> {
    await this.session.release();
  }
}

/**
 * The dispatch owners' advisory locks (DispatchOwner): each held by a session of its own,
 * so that others tell a live owner from a gone one (`ownerIsAliveSql`). Hand-written: an
 * advisory lock is a function call on a dedicated connection, not a table's rows. In the
 * embedded mode (PGlite) every connection shares one session, where advisory locks are
 * re-entrant: a second holder of the same key is granted too, and the lock is held until
 * each holder released it.
 */
@Injectable()
export class DispatchOwnerLockRepository {
  constructor(@InjectDataSource('dispatch') private readonly db: DataSource) {}

  /** Takes `owner`'s lock on a connection of its own; null (the connection given back) when another session holds it. */
  async tryLock(owner: string): Promise<HeldOwnerLock | null> {
    const session = this.db.createQueryRunner();
    try {
      const [row] = returningRows<{ locked: boolean }>(await session.query(`SELECT pg_try_advisory_lock(hashtext('${OWNER_LOCK_SPACE}'), hashtext($1)) AS locked`, [owner]));
      if (row?.locked) return new HeldOwnerLock(owner, session);
    } catch (error) {
      await session.release();
      throw error;
    }
    await session.release();
    return null;
  }
}
