import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { databaseTargets } from '@herald/testing';
import { openIngestDatabase } from '../testing/repository-database';
import { IdempotencyRepository, KeyClaim, RequestKind } from './idempotency.repository';

describe.each(databaseTargets())('the idempotency repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let keys: IdempotencyRepository;

  beforeAll(async () => {
    const opened = await openIngestDatabase(target);
    db = opened.db;
    dispose = opened.close;
    keys = new IdempotencyRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const claimOf = (key: string, fields: Partial<KeyClaim> = {}): KeyClaim => ({ workspaceId: randomUUID(), kind: 'trigger', key, messageId: randomUUID(), ...fields });
  /** Moves a key's times into the past, as a request that died or a day that passed leaves them. */
  async function age(claim: KeyClaim, times: { claimedAgo?: string; expiresAgo?: string }): Promise<void> {
    await db.query(
      `UPDATE ingest.idempotency_keys
          SET claimed_at = CASE WHEN $4::interval IS NULL THEN claimed_at ELSE now() - $4::interval END,
              expires_at = CASE WHEN $5::interval IS NULL THEN expires_at ELSE now() - $5::interval END
        WHERE workspace_id = $1 AND request_kind = $2 AND idempotency_key = $3`,
      [claim.workspaceId, claim.kind, claim.key, times.claimedAgo ?? null, times.expiresAgo ?? null],
    );
  }
  async function stored(claim: Pick<KeyClaim, 'workspaceId' | 'kind' | 'key'>): Promise<Array<{ message_id: string; state: string; window_hours: number }>> {
    return db.query(
      `SELECT message_id::text, state, round(extract(epoch FROM expires_at - claimed_at) / 3600)::int AS window_hours
         FROM ingest.idempotency_keys WHERE workspace_id = $1 AND request_kind = $2 AND idempotency_key = $3`,
      [claim.workspaceId, claim.kind, claim.key],
    );
  }

  it('inserts a pending claim for 24 hours, and refuses a second claim of the key whatever its message id', async () => {
    const first = claimOf('signup-1');
    expect(await keys.insertPending([first])).toEqual([true]);
    expect(await stored(first)).toEqual([{ message_id: first.messageId, state: 'pending', window_hours: 24 }]);

    expect(await keys.insertPending([{ ...first, messageId: randomUUID() }])).toEqual([false]);
    expect(await keys.insertPending([first])).toEqual([false]);
    expect(await stored(first)).toEqual([{ message_id: first.messageId, state: 'pending', window_hours: 24 }]);
  });

  it('keeps kinds and workspaces apart: the same key is free in another kind or workspace', async () => {
    const trigger = claimOf('shared');
    const kinds: RequestKind[] = ['event', 'broadcast'];
    expect(await keys.insertPending([trigger, ...kinds.map((kind) => ({ ...trigger, kind, messageId: randomUUID() })), { ...trigger, workspaceId: randomUUID() }])).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it('answers a batch claim by claim, in the order given: one row per key, won by one claim', async () => {
    const workspaceId = randomUUID();
    const taken = claimOf('taken', { workspaceId });
    await keys.insertPending([taken]);
    const fresh = claimOf('fresh', { workspaceId });
    const rival = { ...fresh, messageId: randomUUID() };
    const twin = claimOf('twin', { workspaceId });
    const answers = await keys.insertPending([rival, { ...taken, messageId: randomUUID() }, twin, fresh, { ...twin, messageId: twin.messageId.toUpperCase() }]);

    // Of two message ids for one key, one went in, and its claim (only) answers true.
    const [row] = await stored(fresh);
    expect([rival.messageId, fresh.messageId]).toContain(row.message_id);
    expect([answers[0], answers[3]]).toEqual([row.message_id === rival.messageId, row.message_id === fresh.messageId]);
    expect(answers[1]).toBe(false);
    // Of identical claims (a uuid's case aside), the first given wins the row; the other finds the key taken.
    expect([answers[2], answers[4]]).toEqual([true, false]);
    expect(await stored(twin)).toEqual([{ message_id: twin.messageId, state: 'pending', window_hours: 24 }]);
  });

  it('claims each key once when two batches with keys in common, in opposite orders, run at once', async () => {
    const workspaceId = randomUUID();
    const mine = Array.from({ length: 20 }, (_, i) => claimOf(`race-${i}`, { workspaceId }));
    const theirs = mine.map((claim) => ({ ...claim, messageId: randomUUID() })).reverse();
    const [a, b] = await Promise.all([keys.insertPending(mine), keys.insertPending(theirs)]);
    const won = mine.map((_, i) => Number(a[i]) + Number(b[mine.length - 1 - i]));
    expect(won).toEqual(Array(20).fill(1));
  });

  it('reads a claim with its state, message id, expiry and lease judged by the database clock; nothing for an absent key', async () => {
    const claim = claimOf('read-1', { kind: 'event' });
    expect(await keys.read(claim.workspaceId, claim.kind, claim.key)).toBeUndefined();
    await keys.insertPending([claim]);
    const fresh = await keys.read(claim.workspaceId, claim.kind, claim.key);
    expect(fresh).toEqual({ messageId: claim.messageId, state: 'pending', expired: false, leaseOver: false, claimedAt: expect.any(String) });
    // To the microsecond, as Postgres prints it.
    expect(fresh?.claimedAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00$/);
    expect(await keys.read(claim.workspaceId, 'trigger', claim.key)).toBeUndefined();

    await age(claim, { claimedAgo: '6 seconds' });
    expect(await keys.read(claim.workspaceId, claim.kind, claim.key)).toMatchObject({ state: 'pending', expired: false, leaseOver: true });
    await age(claim, { expiresAgo: '1 second' });
    expect(await keys.read(claim.workspaceId, claim.kind, claim.key)).toMatchObject({ expired: true });
  });

  it('marks the claims of a batch accepted, only where the row holds the same message id', async () => {
    const workspaceId = randomUUID();
    const a = claimOf('accept-a', { workspaceId });
    const b = claimOf('accept-b', { workspaceId, kind: 'broadcast' });
    const untouched = claimOf('accept-c', { workspaceId });
    const never = claimOf('never-claimed', { workspaceId });
    await keys.insertPending([a, b, untouched]);
    await keys.markAccepted([a, b, { ...untouched, messageId: randomUUID() }, never]);
    expect(await keys.read(workspaceId, a.kind, a.key)).toMatchObject({ state: 'accepted', messageId: a.messageId });
    expect(await keys.read(workspaceId, b.kind, b.key)).toMatchObject({ state: 'accepted', messageId: b.messageId });
    expect(await keys.read(workspaceId, untouched.kind, untouched.key)).toMatchObject({ state: 'pending', messageId: untouched.messageId });
    expect(await stored(never)).toEqual([]);
  });

  it('renews an expired key for a new message id and a new 24 hours, once; a live key is not renewed', async () => {
    const claim = claimOf('old-1');
    await keys.insertPending([claim]);
    await keys.markAccepted([claim]);
    const next = randomUUID();
    expect(await keys.renewExpired(claim.workspaceId, claim.kind, claim.key, next)).toBe(false);
    expect(await keys.read(claim.workspaceId, claim.kind, claim.key)).toMatchObject({ messageId: claim.messageId, state: 'accepted' });

    await age(claim, { claimedAgo: '25 hours', expiresAgo: '1 hour' });
    expect(await keys.renewExpired(claim.workspaceId, claim.kind, claim.key, next)).toBe(true);
    expect(await stored(claim)).toEqual([{ message_id: next, state: 'pending', window_hours: 24 }]);
    expect(await keys.read(claim.workspaceId, claim.kind, claim.key)).toMatchObject({ expired: false, leaseOver: false });
    expect(await keys.renewExpired(claim.workspaceId, claim.kind, claim.key, randomUUID())).toBe(false);
    expect(await keys.renewExpired(claim.workspaceId, claim.kind, 'no-such-key', randomUUID())).toBe(false);
  });

  it('takes over a pending claim after its lease only as it was read: a second taker, or an accepted claim, gets false', async () => {
    const claim = claimOf('died-1');
    await keys.insertPending([claim]);
    await age(claim, { claimedAgo: '5 minutes' });
    const abandoned = await keys.read(claim.workspaceId, claim.kind, claim.key);
    expect(abandoned).toMatchObject({ state: 'pending', leaseOver: true });

    expect(await keys.takeOver(claim.workspaceId, claim.kind, claim.key, abandoned!.claimedAt)).toBe(true);
    // Taken over: claimed now, with the same message id.
    expect(await keys.read(claim.workspaceId, claim.kind, claim.key)).toMatchObject({ messageId: claim.messageId, state: 'pending', leaseOver: false });
    expect(await keys.takeOver(claim.workspaceId, claim.kind, claim.key, abandoned!.claimedAt)).toBe(false);

    await age(claim, { claimedAgo: '5 minutes' });
    const accepted = await keys.read(claim.workspaceId, claim.kind, claim.key);
    await keys.markAccepted([claim]);
    expect(await keys.takeOver(claim.workspaceId, claim.kind, claim.key, accepted!.claimedAt)).toBe(false);
    expect(await keys.read(claim.workspaceId, claim.kind, claim.key)).toMatchObject({ state: 'accepted', leaseOver: true });
  });

  it("releases a pending claim of its own message id only: another message id's or an accepted one stays", async () => {
    const claim = claimOf('release-1');
    await keys.insertPending([claim]);
    await keys.release(claim.workspaceId, claim.kind, claim.key, randomUUID());
    expect(await stored(claim)).toHaveLength(1);
    await keys.release(claim.workspaceId, claim.kind, claim.key, claim.messageId);
    expect(await stored(claim)).toEqual([]);
    expect(await keys.insertPending([claim])).toEqual([true]);

    await keys.markAccepted([claim]);
    await keys.release(claim.workspaceId, claim.kind, claim.key, claim.messageId);
    expect(await keys.read(claim.workspaceId, claim.kind, claim.key)).toMatchObject({ state: 'accepted' });
  });

  it('prunes the claims expired for more than an hour, and no other', async () => {
    const workspaceId = randomUUID();
    const [long, recent, live] = ['prune-long', 'prune-recent', 'prune-live'].map((key) => claimOf(key, { workspaceId }));
    await keys.insertPending([long, recent, live]);
    await age(long, { expiresAgo: '61 minutes' });
    await age(recent, { expiresAgo: '59 minutes' });
    await keys.pruneExpired();
    expect(await stored(long)).toEqual([]);
    expect(await stored(recent)).toHaveLength(1);
    expect(await stored(live)).toHaveLength(1);
  });
});
