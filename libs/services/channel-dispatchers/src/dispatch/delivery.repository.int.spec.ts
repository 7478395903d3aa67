import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DeliveryRequested } from '@herald/contracts';
import { OutboxMessage } from '@herald/event-store';
import { databaseTargets } from '@herald/testing';
import { openDispatchDatabase } from '../testing/repository-database';
import { DISPATCH_OUTBOX } from './dispatch-outbox.repository';
import { DispatchOwnerLockRepository } from './dispatch-owner-lock.repository';
import { LedgeredDelivery, LedgeredDeliveryEntity } from './delivery.entity';
import { ClaimHolder, DeliveryRepository } from './delivery.repository';

const LEASE_MS = 10_000;
const HOUR_MS = 3_600_000;

describe.each(databaseTargets())('the delivery repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let deliveries: DeliveryRepository;
  const workspaceId = randomUUID();
  const me: ClaimHolder = { owner: 'host-a/1/0000aaaa', leaseMs: LEASE_MS };
  const other: ClaimHolder = { owner: 'host-b/2/0000bbbb', leaseMs: LEASE_MS };

  beforeAll(async () => {
    const opened = await openDispatchDatabase(target);
    db = opened.db;
    dispose = opened.close;
    deliveries = new DeliveryRepository(db);
  });
  beforeEach(async () => {
    // nextDueInMs and the sweeps read the whole table: each test starts from an empty ledger.
    await db.createQueryBuilder().delete().from(LedgeredDeliveryEntity).execute();
  });
  afterAll(async () => {
    await dispose?.();
  });

  const command = (fields: Partial<DeliveryRequested> = {}): DeliveryRequested => ({ delivery_id: randomUUID(), channel: 'sms', ...fields }) as unknown as DeliveryRequested;
  const rowOf = (deliveryId: string): Promise<LedgeredDelivery | null> => db.getRepository(LedgeredDeliveryEntity).findOneBy({ deliveryId });
  /** The database's clock, which every lease and schedule is written by. */
  const dbNow = async (): Promise<number> => ((await db.query(`SELECT now() AS now`))[0] as { now: Date }).now.getTime();
  /** A row as an earlier write left it; `*At` fields as milliseconds from now, by the database's clock. */
  async function staged(fields: Partial<Omit<LedgeredDelivery, 'leaseExpiresAt' | 'nextAttemptAt'>> & { leaseInMs?: number | null; dueInMs?: number | null } = {}): Promise<LedgeredDelivery> {
    const { leaseInMs = null, dueInMs = null, ...rest } = fields;
    const now = await dbNow();
    const requested = command();
    const row: LedgeredDelivery = {
      deliveryId: requested.delivery_id,
      workspaceId,
      channel: 'sms',
      messageKey: `${workspaceId}:ada`,
      command: requested,
      status: 'sending',
      attempts: 1,
      claimedAt: new Date(now),
      nextAttemptAt: dueInMs === null ? null : new Date(now + dueInMs),
      sentIdentities: [],
      vendor: null,
      vendorMessageId: null,
      lastError: null,
      updatedAt: new Date(now),
      owner: null,
      leaseExpiresAt: leaseInMs === null ? null : new Date(now + leaseInMs),
      callbackStatuses: [],
      ...rest,
    };
    await db.getRepository(LedgeredDeliveryEntity).save(row);
    return row;
  }
  /** Expects `at` to be `inMs` from the database's now, give or take the test's own statements. */
  const expectIn = async (at: Date | null | undefined, inMs: number): Promise<void> => {
    const now = await dbNow();
    expect(at).toBeInstanceOf(Date);
    expect((at as Date).getTime()).toBeGreaterThan(now + inMs - 5_000);
    expect((at as Date).getTime()).toBeLessThanOrEqual(now + inMs + 1_000);
  };
  const outcome = (deliveryId: string, status: string): OutboxMessage => ({
    messageId: randomUUID(),
    topic: 'notify.delivery.outcome.v1',
    key: `${workspaceId}:ada`,
    value: JSON.stringify({ delivery_id: deliveryId, status }),
    headers: { 'message-id': deliveryId },
  });
  const outboxValues = async (): Promise<Array<{ key: string; value: string; headers: Record<string, string> }>> =>
    db.query(`SELECT key, value, headers FROM ${DISPATCH_OUTBOX} ORDER BY id`);

  describe('claimAll', () => {
    it('claims new deliveries under the holder\'s lease, queued or sending as asked, and reads back only the ids', async () => {
      const queued = command();
      const sending = command({ channel: 'email' } as Partial<DeliveryRequested>);
      const claimed = await deliveries.claimAll(
        [
          { command: queued, workspaceId, messageKey: `${workspaceId}:ada` },
          { command: sending, workspaceId, messageKey: `${workspaceId}:bob`, sending: true },
        ],
        me,
      );
      expect(claimed).toEqual([
        { deliveryId: queued.delivery_id, workspaceId, messageKey: `${workspaceId}:ada`, command: queued, attempts: 1, sentIdentities: [], abandoned: false, started: false },
        { deliveryId: sending.delivery_id, workspaceId, messageKey: `${workspaceId}:bob`, command: sending, attempts: 1, sentIdentities: [], abandoned: false, started: true },
      ]);
      const row = await rowOf(queued.delivery_id);
      expect(row).toMatchObject({ workspaceId, channel: 'sms', messageKey: `${workspaceId}:ada`, command: queued, status: 'queued', attempts: 1, owner: me.owner, sentIdentities: [] });
      await expectIn(row?.leaseExpiresAt, LEASE_MS);
      expect(await rowOf(sending.delivery_id)).toMatchObject({ channel: 'email', status: 'sending', owner: me.owner });
    });

    it('answers null for a delivery claimed before (a redelivery) and for a command twice in one batch, leaving the first claim as it was', async () => {
      const first = command();
      await deliveries.claimAll([{ command: first, workspaceId, messageKey: 'k' }], me);
      const fresh = command();
      const claimed = await deliveries.claimAll(
        [
          { command: first, workspaceId, messageKey: 'k', sending: true },
          { command: fresh, workspaceId, messageKey: 'k' },
          { command: fresh, workspaceId, messageKey: 'k' },
        ],
        other,
      );
      expect(claimed.map((delivery) => delivery?.deliveryId ?? null)).toEqual([null, fresh.delivery_id, null]);
      expect(await rowOf(first.delivery_id)).toMatchObject({ status: 'queued', owner: me.owner });
      expect(await deliveries.claimAll([], me)).toEqual([]);
    });
  });

  describe('nextDueInMs', () => {
    it('is null with nothing scheduled or held, not "due now"', async () => {
      await staged({ status: 'sent' });
      expect(await deliveries.nextDueInMs()).toBeNull();
    });

    it('is the time until the earliest retry or lease end, whichever status holds it', async () => {
      await staged({ status: 'retry_scheduled', dueInMs: 60_000 });
      await staged({ status: 'sending', owner: other.owner, leaseInMs: 40_000 });
      await staged({ status: 'queued', owner: other.owner, leaseInMs: 50_000 });
      const dueIn = await deliveries.nextDueInMs();
      expect(dueIn).toBeGreaterThan(30_000);
      expect(dueIn).toBeLessThanOrEqual(40_000);

      await staged({ status: 'queued', owner: other.owner, leaseInMs: 20_000 });
      expect(await deliveries.nextDueInMs()).toBeLessThanOrEqual(20_000);
      await staged({ status: 'retry_scheduled', dueInMs: 5_000 });
      expect(await deliveries.nextDueInMs()).toBeLessThanOrEqual(5_000);
    });

    it('is 0, never negative, once something is due', async () => {
      await staged({ status: 'retry_scheduled', dueInMs: -60_000 });
      expect(await deliveries.nextDueInMs()).toBe(0);
    });
  });

  describe('startAttempts', () => {
    it('marks the holder\'s claims sending and renews their lease, answering the ids it still held', async () => {
      const mine = await staged({ status: 'queued', owner: me.owner, leaseInMs: 1_000 });
      const alreadySending = await staged({ status: 'sending', owner: me.owner, leaseInMs: 1_000 });
      const theirs = await staged({ status: 'queued', owner: other.owner, leaseInMs: 1_000 });
      const finished = await staged({ status: 'sent', owner: me.owner });

      const held = await deliveries.startAttempts([mine.deliveryId, alreadySending.deliveryId, theirs.deliveryId, finished.deliveryId, 'absent'], me);
      expect(held).toEqual(new Set([mine.deliveryId, alreadySending.deliveryId]));
      const started = await rowOf(mine.deliveryId);
      expect(started?.status).toBe('sending');
      await expectIn(started?.leaseExpiresAt, LEASE_MS);
      expect(await rowOf(theirs.deliveryId)).toMatchObject({ status: 'queued', owner: other.owner });
      expect((await rowOf(finished.deliveryId))?.status).toBe('sent');
      expect(await deliveries.startAttempts([], me)).toEqual(new Set());
    });
  });

  describe('takeOver and leaseLeftMs', () => {
    it('takes over at once a claim whose owner is gone (no owner lock), lease or not, and reads it back', async () => {
      const abandoned = await staged({ status: 'sending', owner: 'crashed/1/dead', leaseInMs: HOUR_MS, attempts: 2, sentIdentities: [0] });
      const taken = await deliveries.takeOver(abandoned.deliveryId, me);
      expect(taken).toEqual({
        deliveryId: abandoned.deliveryId,
        workspaceId,
        messageKey: abandoned.messageKey,
        command: abandoned.command,
        attempts: 2,
        sentIdentities: [0],
        abandoned: true,
        started: false,
      });
      const row = await rowOf(abandoned.deliveryId);
      expect(row).toMatchObject({ status: 'sending', owner: me.owner, attempts: 2 });
      await expectIn(row?.leaseExpiresAt, LEASE_MS);
      // Now it is this holder's: nothing to take, nothing held by another.
      expect(await deliveries.takeOver(abandoned.deliveryId, me)).toBeNull();
      expect(await deliveries.leaseLeftMs(abandoned.deliveryId, me.owner)).toBeNull();
      // A queued claim is not abandoned: no vendor was called.
      const queued = await staged({ status: 'queued', owner: 'crashed/1/dead', leaseInMs: HOUR_MS });
      expect((await deliveries.takeOver(queued.deliveryId, me))?.abandoned).toBe(false);
    });

    it('leaves the claim of a live owner alone until its lease runs out, and says how long that lease runs', async () => {
      const lock = await new DispatchOwnerLockRepository(db).tryLock(other.owner);
      expect(lock).not.toBeNull();
      try {
        const held = await staged({ status: 'sending', owner: other.owner, leaseInMs: HOUR_MS });
        expect(await deliveries.takeOver(held.deliveryId, me)).toBeNull();
        expect((await rowOf(held.deliveryId))?.owner).toBe(other.owner);
        const left = await deliveries.leaseLeftMs(held.deliveryId, me.owner);
        expect(left).toBeGreaterThan(HOUR_MS - 60_000);
        expect(left).toBeLessThanOrEqual(HOUR_MS);

        const runOut = await staged({ status: 'sending', owner: other.owner, leaseInMs: -1_000 });
        expect((await deliveries.takeOver(runOut.deliveryId, me))?.deliveryId).toBe(runOut.deliveryId);
      } finally {
        await lock?.release();
      }
    });

    it('decides a claim without an owner (older than leases) by its lease alone', async () => {
      const ownerless = await staged({ status: 'sending', owner: null, leaseInMs: HOUR_MS });
      expect(await deliveries.takeOver(ownerless.deliveryId, me)).toBeNull();
      expect(await deliveries.leaseLeftMs(ownerless.deliveryId, me.owner)).toBeGreaterThan(0);
      const runOut = await staged({ status: 'sending', owner: null, leaseInMs: -1_000 });
      // A lease that ran out reads 0 left, never negative.
      expect(await deliveries.leaseLeftMs(runOut.deliveryId, me.owner)).toBe(0);
      expect((await deliveries.takeOver(runOut.deliveryId, me))?.deliveryId).toBe(runOut.deliveryId);
    });

    it('finds nothing to take or wait for in a settled delivery or an absent one', async () => {
      for (const status of ['sent', 'failed', 'retry_scheduled']) {
        const settled = await staged({ status, owner: 'crashed/1/dead', leaseInMs: -1_000 });
        expect(await deliveries.takeOver(settled.deliveryId, me)).toBeNull();
        expect(await deliveries.leaseLeftMs(settled.deliveryId, me.owner)).toBeNull();
        expect((await rowOf(settled.deliveryId))?.owner).toBe('crashed/1/dead');
      }
      expect(await deliveries.takeOver('absent', me)).toBeNull();
      expect(await deliveries.leaseLeftMs('absent', me.owner)).toBeNull();
    });
  });

  describe('claimDue', () => {
    it('claims due retries oldest first, up to the limit, counting the attempt, queued under the holder\'s lease', async () => {
      const newer = await staged({ status: 'retry_scheduled', dueInMs: -10_000, attempts: 2 });
      const older = await staged({ status: 'retry_scheduled', dueInMs: -20_000, attempts: 1, sentIdentities: [1] });
      const later = await staged({ status: 'retry_scheduled', dueInMs: 60_000 });

      const first = await deliveries.claimDue(1, me);
      expect(first).toEqual([
        { deliveryId: older.deliveryId, workspaceId, messageKey: older.messageKey, command: older.command, attempts: 2, sentIdentities: [1], abandoned: false, started: false },
      ]);
      const row = await rowOf(older.deliveryId);
      expect(row).toMatchObject({ status: 'queued', owner: me.owner, attempts: 2 });
      await expectIn(row?.leaseExpiresAt, LEASE_MS);

      expect((await deliveries.claimDue(10, other)).map((delivery) => [delivery.deliveryId, delivery.attempts])).toEqual([[newer.deliveryId, 3]]);
      expect(await deliveries.claimDue(10, me)).toEqual([]);
      expect((await rowOf(later.deliveryId))?.status).toBe('retry_scheduled');
    });

    if (target.kind === 'postgres') {
      it('skips a due row another round holds locked', async () => {
        const locked = await staged({ status: 'retry_scheduled', dueInMs: -20_000 });
        const free = await staged({ status: 'retry_scheduled', dueInMs: -10_000 });
        const round = db.createQueryRunner();
        await round.startTransaction();
        try {
          await round.query(`SELECT delivery_id FROM dispatch.deliveries WHERE delivery_id = $1 FOR UPDATE`, [locked.deliveryId]);
          expect((await deliveries.claimDue(10, me)).map((delivery) => delivery.deliveryId)).toEqual([free.deliveryId]);
        } finally {
          await round.rollbackTransaction();
          await round.release();
        }
        expect((await deliveries.claimDue(10, me)).map((delivery) => delivery.deliveryId)).toEqual([locked.deliveryId]);
      });
    }
  });

  describe('claimExpired', () => {
    it('claims held claims whose lease ran out, keeping sending (abandoned) and queued as they were', async () => {
      const sending = await staged({ status: 'sending', owner: 'crashed/1/dead', leaseInMs: -20_000, attempts: 3 });
      const queued = await staged({ status: 'queued', owner: 'crashed/1/dead', leaseInMs: -10_000 });
      const running = await staged({ status: 'sending', owner: other.owner, leaseInMs: HOUR_MS });
      await staged({ status: 'retry_scheduled', dueInMs: -10_000 });

      const claimed = await deliveries.claimExpired(10, me);
      // In no particular order: the order picks which rows a limited batch takes (below), not the order they come back in.
      expect(claimed.map((delivery) => [delivery.deliveryId, delivery.attempts, delivery.abandoned])).toEqual(
        expect.arrayContaining([
          [sending.deliveryId, 3, true],
          [queued.deliveryId, 1, false],
        ]),
      );
      expect(claimed).toHaveLength(2);
      expect(await rowOf(sending.deliveryId)).toMatchObject({ status: 'sending', owner: me.owner, attempts: 3 });
      expect(await rowOf(queued.deliveryId)).toMatchObject({ status: 'queued', owner: me.owner });
      expect((await rowOf(running.deliveryId))?.owner).toBe(other.owner);
      expect(await deliveries.claimExpired(10, me)).toEqual([]);
    });

    it('claims no more than the limit, the oldest lease first', async () => {
      const newer = await staged({ status: 'sending', owner: 'crashed/1/dead', leaseInMs: -10_000 });
      const older = await staged({ status: 'queued', owner: 'crashed/1/dead', leaseInMs: -20_000 });
      expect((await deliveries.claimExpired(1, me)).map((delivery) => delivery.deliveryId)).toEqual([older.deliveryId]);
      expect((await deliveries.claimExpired(1, me)).map((delivery) => delivery.deliveryId)).toEqual([newer.deliveryId]);
      expect(await deliveries.claimExpired(1, me)).toHaveLength(0);
    });
  });

  describe('renewLeases', () => {
    it('renews the holder\'s claims in flight and counts them, leaving others\' and settled ones', async () => {
      const queued = await staged({ status: 'queued', owner: me.owner, leaseInMs: 1_000 });
      const sending = await staged({ status: 'sending', owner: me.owner, leaseInMs: 1_000 });
      const theirs = await staged({ status: 'sending', owner: other.owner, leaseInMs: 1_000 });
      const settled = await staged({ status: 'sent', owner: me.owner });

      expect(await deliveries.renewLeases([queued.deliveryId, sending.deliveryId, theirs.deliveryId, settled.deliveryId], me)).toBe(2);
      await expectIn((await rowOf(queued.deliveryId))?.leaseExpiresAt, LEASE_MS);
      await expectIn((await rowOf(sending.deliveryId))?.leaseExpiresAt, LEASE_MS);
      await expectIn((await rowOf(theirs.deliveryId))?.leaseExpiresAt, 1_000);
      expect((await rowOf(settled.deliveryId))?.leaseExpiresAt).toBeNull();
      expect(await deliveries.renewLeases([], me)).toBe(0);
    });
  });

  describe('markIdentitySent', () => {
    it('adds the identity to those sent and renews the lease, only while the holder holds the claim sending', async () => {
      const sending = await staged({ status: 'sending', owner: me.owner, leaseInMs: 1_000, sentIdentities: [0] });
      expect(await deliveries.markIdentitySent(sending.deliveryId, 2, me)).toBe(true);
      const row = await rowOf(sending.deliveryId);
      expect(row?.sentIdentities).toEqual([0, 2]);
      await expectIn(row?.leaseExpiresAt, LEASE_MS);

      const queued = await staged({ status: 'queued', owner: me.owner, leaseInMs: 1_000 });
      expect(await deliveries.markIdentitySent(queued.deliveryId, 0, me)).toBe(false);
      expect(await deliveries.markIdentitySent(sending.deliveryId, 3, other)).toBe(false);
      expect((await rowOf(sending.deliveryId))?.sentIdentities).toEqual([0, 2]);
    });
  });

  describe('retryFailed and statusOf', () => {
    it('schedules the workspace\'s failed delivery again, due now and without an owner', async () => {
      const failed = await staged({ status: 'failed', owner: me.owner, lastError: 'bad credentials' });
      expect(await deliveries.retryFailed(workspaceId, failed.deliveryId)).toBe(true);
      const row = await rowOf(failed.deliveryId);
      expect(row).toMatchObject({ status: 'retry_scheduled', owner: null, leaseExpiresAt: null });
      await expectIn(row?.nextAttemptAt, 0);
      expect(row?.updatedAt.getTime()).toBeGreaterThan(failed.updatedAt.getTime() - 1);
      // Due now: the next sweep of due retries takes it.
      expect((await deliveries.claimDue(10, me)).map((delivery) => delivery.deliveryId)).toEqual([failed.deliveryId]);
    });

    it('moves nothing that is not failed or not the workspace\'s, and tells the status of what is there', async () => {
      const sent = await staged({ status: 'sent' });
      const elsewhere = await staged({ status: 'failed', workspaceId: randomUUID() });
      expect(await deliveries.retryFailed(workspaceId, sent.deliveryId)).toBe(false);
      expect(await deliveries.retryFailed(workspaceId, elsewhere.deliveryId)).toBe(false);
      expect(await deliveries.retryFailed(workspaceId, 'absent')).toBe(false);
      expect((await rowOf(elsewhere.deliveryId))?.status).toBe('failed');

      expect(await deliveries.statusOf(workspaceId, sent.deliveryId)).toBe('sent');
      expect(await deliveries.statusOf(workspaceId, elsewhere.deliveryId)).toBeNull();
      expect(await deliveries.statusOf(elsewhere.workspaceId, elsewhere.deliveryId)).toBe('failed');
      expect(await deliveries.statusOf(workspaceId, 'absent')).toBeNull();
    });
  });

  describe('scheduleRetry', () => {
    it('schedules the holder\'s claim in flight after the delay, lets its lease go and keeps the error', async () => {
      const sending = await staged({ status: 'sending', owner: me.owner, leaseInMs: LEASE_MS });
      expect(await deliveries.scheduleRetry(sending.deliveryId, 30_000, 'vendor answered 503', me.owner)).toBe(true);
      const row = await rowOf(sending.deliveryId);
      expect(row).toMatchObject({ status: 'retry_scheduled', leaseExpiresAt: null, lastError: 'vendor answered 503', owner: me.owner });
      await expectIn(row?.nextAttemptAt, 30_000);
    });

    it('changes nothing when the holder no longer holds the claim sending', async () => {
      const theirs = await staged({ status: 'sending', owner: other.owner, leaseInMs: LEASE_MS });
      const queued = await staged({ status: 'queued', owner: me.owner, leaseInMs: LEASE_MS });
      expect(await deliveries.scheduleRetry(theirs.deliveryId, 1_000, 'x', me.owner)).toBe(false);
      expect(await deliveries.scheduleRetry(queued.deliveryId, 1_000, 'x', me.owner)).toBe(false);
      expect(await rowOf(theirs.deliveryId)).toMatchObject({ status: 'sending', lastError: null });
      expect((await rowOf(queued.deliveryId))?.status).toBe('queued');
    });
  });

  describe('finishAll', () => {
    it('records the final states of the claims the owner held and writes their outcomes, in order, in one statement', async () => {
      const before = (await outboxValues()).length;
      const sent = await staged({ status: 'sending', owner: me.owner, leaseInMs: LEASE_MS, dueInMs: 0 });
      const failed = await staged({ status: 'queued', owner: me.owner, leaseInMs: LEASE_MS });
      const lost = await staged({ status: 'sending', owner: other.owner, leaseInMs: LEASE_MS });

      const finished = await deliveries.finishAll(
        [
          { deliveryId: sent.deliveryId, state: { status: 'sent', vendor: 'sms/twilio', vendorMessageId: 'SM1' }, outcome: outcome(sent.deliveryId, 'sent_by_vendor') },
          { deliveryId: lost.deliveryId, state: { status: 'sent', vendor: 'sms/twilio' }, outcome: outcome(lost.deliveryId, 'sent_by_vendor') },
          { deliveryId: failed.deliveryId, state: { status: 'failed', error: 'no route' }, outcome: outcome(failed.deliveryId, 'delivery_failure') },
        ],
        me.owner,
      );
      expect(finished).toEqual([true, false, true]);
      expect(await rowOf(sent.deliveryId)).toMatchObject({ status: 'sent', vendor: 'sms/twilio', vendorMessageId: 'SM1', lastError: null, nextAttemptAt: null, leaseExpiresAt: null });
      expect(await rowOf(failed.deliveryId)).toMatchObject({ status: 'failed', vendor: null, vendorMessageId: null, lastError: 'no route', leaseExpiresAt: null });
      expect(await rowOf(lost.deliveryId)).toMatchObject({ status: 'sending', owner: other.owner, vendor: null });
      // The outcomes of the claims it held, in the records' order; none for the one taken over.
      const written = (await outboxValues()).slice(before);
      expect(written.map((row) => JSON.parse(row.value) as { delivery_id: string })).toEqual([
        { delivery_id: sent.deliveryId, status: 'sent_by_vendor' },
        { delivery_id: failed.deliveryId, status: 'delivery_failure' },
      ]);
      expect(written[0]).toMatchObject({ key: `${workspaceId}:ada`, headers: { 'message-id': sent.deliveryId } });
    });

    it('records nothing twice: a finished delivery is no longer held', async () => {
      const sending = await staged({ status: 'sending', owner: me.owner, leaseInMs: LEASE_MS });
      const record = { deliveryId: sending.deliveryId, state: { status: 'sent' as const }, outcome: outcome(sending.deliveryId, 'sent_by_vendor') };
      expect(await deliveries.finishAll([record], me.owner)).toEqual([true]);
      const before = (await outboxValues()).length;
      expect(await deliveries.finishAll([record], me.owner)).toEqual([false]);
      expect(await outboxValues()).toHaveLength(before);
      expect(await deliveries.finishAll([], me.owner)).toEqual([]);
    });
  });
});
