import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { databaseTargets } from '@herald/testing';
import { openDispatchDatabase } from '../testing/repository-database';
import { DispatchOwnerLockRepository, HeldOwnerLock, ownerIsAliveSql } from './dispatch-owner-lock.repository';

describe.each(databaseTargets())('the dispatch owner lock repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let locks: DispatchOwnerLockRepository;
  /** Every lock a test took, released after it (a failed test must not leave its lock to the next). */
  const held: HeldOwnerLock[] = [];

  beforeAll(async () => {
    const opened = await openDispatchDatabase(target);
    db = opened.db;
    dispose = opened.close;
    locks = new DispatchOwnerLockRepository(db);
  });
  afterEach(async () => {
    for (const lock of held.splice(0)) if (!lock.isReleased) await lock.release();
  });
  afterAll(async () => {
    await dispose?.();
  });

  const newOwner = (): string => `host-${randomUUID().slice(0, 8)}/42/${randomUUID().slice(0, 8)}`;
  const take = async (owner: string): Promise<HeldOwnerLock | null> => {
    const lock = await locks.tryLock(owner);
    if (lock) held.push(lock);
    return lock;
  };
  /** Whether claims of `owner` read as those of a live owner (the SQL the ledger's takeover reads it with). */
  const alive = async (owner: string): Promise<boolean> => {
    const [row] = await db.query(`SELECT ${ownerIsAliveSql('$1')} AS alive`, [owner]);
    return (row as { alive: boolean }).alive;
  };

  it('takes an owner lock on a session of its own, by which the owner reads as alive until it is released', async () => {
    const owner = newOwner();
    expect(await alive(owner)).toBe(false);
    const lock = await take(owner);
    expect(lock).not.toBeNull();
    expect(lock?.owner).toBe(owner);
    expect(lock?.isReleased).toBe(false);
    expect(await alive(owner)).toBe(true);
    // Another owner's lock is another key.
    expect(await alive(newOwner())).toBe(false);

    await lock?.release();
    expect(lock?.isReleased).toBe(true);
    expect(await alive(owner)).toBe(false);
  });

  if (target.kind === 'postgres') {
    it('refuses a second holder of the same owner while the first holds it, and lets the next take it once released', async () => {
      const owner = newOwner();
      const first = await take(owner);
      expect(first).not.toBeNull();
      // Refused: its connection goes back, and the first holder's lock is untouched.
      expect(await take(owner)).toBeNull();
      expect(await alive(owner)).toBe(true);

      await first?.release();
      const next = await take(owner);
      expect(next).not.toBeNull();
      expect(await alive(owner)).toBe(true);
      await next?.release();
      expect(await alive(owner)).toBe(false);
    });
  } else {
    // PGlite has one session, which every connection shares: an advisory lock is held by
    // that session, and a session's advisory locks are re-entrant, so nothing is refused
    // there (a single process uses the data folder; DispatchOwner's other owners can only be
    // previous runs, whose locks went with them). The lock is held until each holder released it.
    it('grants a second holder of the same owner in the one shared session, and holds the lock until both released it', async () => {
      const owner = newOwner();
      const first = await take(owner);
      const second = await take(owner);
      expect(first).not.toBeNull();
      expect(second).not.toBeNull();

      await first?.release();
      expect(await alive(owner)).toBe(true);
      await second?.release();
      expect(await alive(owner)).toBe(false);
      // And the next takes it.
      expect(await take(owner)).not.toBeNull();
    });
  }

  it('keeps a held session alive with one cheap statement, and refuses it once the connection was given back', async () => {
    const owner = newOwner();
    const lock = await take(owner);
    await expect(lock?.keepAlive()).resolves.toBeUndefined();

    await lock?.abandon();
    expect(lock?.isReleased).toBe(true);
    await expect(lock?.keepAlive()).rejects.toThrow();
    // Abandoned rather than released: no unlock was sent, and whatever the session does with
    // the lock now is the session's (a failed one ends and takes it along).
  });

  it('gives the connection back even when the unlock fails, and says so', async () => {
    const owner = newOwner();
    const lock = await take(owner);
    // The session is gone as far as the handle knows: its unlock cannot run.
    await lock?.abandon();
    await expect(lock?.release()).rejects.toThrow();
    expect(lock?.isReleased).toBe(true);
  });
});
