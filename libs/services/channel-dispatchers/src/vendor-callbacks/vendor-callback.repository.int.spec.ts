import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DeliveryRequested, SuppressionChanged, TOPICS } from '@herald/contracts';
import { OutboxMessage } from '@herald/event-store';
import { databaseTargets } from '@herald/testing';
import { DISPATCH_OUTBOX } from '../dispatch/dispatch-outbox.repository';
import { LedgeredDelivery, LedgeredDeliveryEntity } from '../dispatch/delivery.entity';
import { SuppressionList } from '../suppressions/suppression-list';
import { SuppressionRepository } from '../suppressions/suppression.repository';
import { openDispatchDatabase } from '../testing/repository-database';
import { CallbackRecord, VendorCallbackRepository } from './vendor-callback.repository';

describe.each(databaseTargets())('the vendor callback repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let suppressionList: SuppressionList;
  let callbacks: VendorCallbackRepository;

  beforeAll(async () => {
    const opened = await openDispatchDatabase(target);
    db = opened.db;
    dispose = opened.close;
    const suppressed = new SuppressionRepository(db);
    suppressionList = new SuppressionList(suppressed);
    callbacks = new VendorCallbackRepository(db, suppressed, suppressionList);
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** A delivery in the ledger, sent through `vendor` unless told otherwise. */
  async function ledgered(workspaceId: string, fields: Partial<LedgeredDelivery> = {}): Promise<LedgeredDelivery> {
    const deliveryId = randomUUID();
    const delivery: LedgeredDelivery = {
      deliveryId,
      workspaceId,
      channel: 'email',
      messageKey: `${workspaceId}:ada`,
      command: { delivery_id: deliveryId, channel: fields.channel ?? 'email' } as unknown as DeliveryRequested,
      status: 'sent',
      attempts: 1,
      claimedAt: new Date('2026-03-01T10:00:00Z'),
      nextAttemptAt: null,
      sentIdentities: [0],
      vendor: 'email/postmark',
      vendorMessageId: `pm-${deliveryId}`,
      lastError: null,
      updatedAt: new Date('2026-03-01T10:00:00Z'),
      owner: null,
      leaseExpiresAt: null,
      callbackStatuses: [],
      ...fields,
    };
    await db.getRepository(LedgeredDeliveryEntity).save(delivery);
    return delivery;
  }
  const outcome = (delivery: LedgeredDelivery, status: string): OutboxMessage => ({
    messageId: randomUUID(),
    topic: TOPICS.deliveryOutcome.name,
    key: delivery.messageKey,
    value: JSON.stringify({ delivery_id: delivery.deliveryId, status }),
  });
  const bounce = (delivery: LedgeredDelivery, address: string): SuppressionChanged => ({
    change: 'added',
    workspace_id: delivery.workspaceId,
    channel: 'email',
    address,
    reason: 'hard_bounce',
    detail: '550 no such user',
    vendor: 'email/postmark',
    at: '2026-03-01T11:00:00.000Z',
  });
  const recordOf = (delivery: LedgeredDelivery, status: string, suppression?: SuppressionChanged): CallbackRecord => ({
    deliveryId: delivery.deliveryId,
    status,
    outcome: outcome(delivery, status),
    ...(suppression ? { suppression } : {}),
  });
  /** What the outbox holds for these deliveries and workspaces, in order: each message's topic and value. */
  async function outboxOf(keys: readonly string[]): Promise<Array<{ topic: string; value: Record<string, unknown> }>> {
    const rows: Array<{ topic: string; key: string; value: string }> = await db.query(`SELECT topic, key, value FROM ${DISPATCH_OUTBOX} ORDER BY id`);
    return rows.filter((row) => keys.includes(row.key)).map((row) => ({ topic: row.topic, value: JSON.parse(row.value) as Record<string, unknown> }));
  }

  it("finds the workspace channel's sent deliveries by the vendor's message ids", async () => {
    const workspace = randomUUID();
    const sent = await ledgered(workspace);
    const sms = await ledgered(workspace, { channel: 'sms', vendor: 'sms/twilio', vendorMessageId: 'SM-1' });
    await ledgered(workspace, { status: 'retry_scheduled', vendorMessageId: 'pm-retrying' });
    const elsewhere = await ledgered(randomUUID(), { vendorMessageId: 'pm-elsewhere' });
    const found = await callbacks.sentDeliveries(workspace, 'email', [sent.vendorMessageId ?? '', sent.vendorMessageId ?? '', 'pm-retrying', 'pm-elsewhere', 'SM-1', 'unknown']);
    expect(found).toEqual([{ deliveryId: sent.deliveryId, workspaceId: workspace, messageKey: sent.messageKey, command: sent.command, vendor: 'email/postmark', vendorMessageId: sent.vendorMessageId }]);
    expect(await callbacks.sentDeliveries(workspace, 'sms', ['SM-1'])).toEqual([expect.objectContaining({ deliveryId: sms.deliveryId, vendor: 'sms/twilio', vendorMessageId: 'SM-1' })]);
    expect(await callbacks.sentDeliveries(elsewhere.workspaceId, 'email', [])).toEqual([]);
  });

  it('finds the delivery a tracking token names, whatever its status', async () => {
    const delivery = await ledgered(randomUUID(), { status: 'failed', vendor: null, vendorMessageId: null });
    expect(await callbacks.trackedDelivery(delivery.deliveryId)).toEqual({
      deliveryId: delivery.deliveryId,
      workspaceId: delivery.workspaceId,
      messageKey: delivery.messageKey,
      command: delivery.command,
      status: 'failed',
      vendor: null,
      vendorMessageId: null,
    });
    expect(await callbacks.trackedDelivery(randomUUID())).toBeUndefined();
  });

  it('records each status once per delivery, with its outcome, and nothing for a delivery the ledger lacks', async () => {
    const workspace = randomUUID();
    const first = await ledgered(workspace);
    const second = await ledgered(workspace, { messageKey: `${workspace}:bob` });
    expect(await callbacks.record([])).toBe(0);
    expect(await callbacks.record([recordOf(first, 'delivered'), recordOf(second, 'delivered'), recordOf(first, 'delivered'), recordOf(first, 'seen')])).toBe(3);
    // A vendor's retry of the same callback, and a delivery the ledger does not hold.
    expect(await callbacks.record([recordOf(first, 'seen'), { ...recordOf(first, 'clicked'), deliveryId: randomUUID() }])).toBe(0);
    expect(await callbacks.record([recordOf(second, 'clicked')])).toBe(1);

    const statuses = await db.getRepository(LedgeredDeliveryEntity).find({ select: { deliveryId: true, callbackStatuses: true }, where: [{ deliveryId: first.deliveryId }, { deliveryId: second.deliveryId }] });
    expect(Object.fromEntries(statuses.map((row) => [row.deliveryId, row.callbackStatuses]))).toEqual({ [first.deliveryId]: ['delivered', 'seen'], [second.deliveryId]: ['delivered', 'clicked'] });
    expect((await outboxOf([first.messageKey, second.messageKey])).map((message) => [message.value.delivery_id, message.value.status])).toEqual([
      [first.deliveryId, 'delivered'],
      [second.deliveryId, 'delivered'],
      [first.deliveryId, 'seen'],
      [second.deliveryId, 'clicked'],
    ]);
  });

  it('suppresses a bounced address in the same transaction, announces it and drops the cached list', async () => {
    const workspace = randomUUID();
    const delivery = await ledgered(workspace);
    // The list is read (and cached) before the bounce.
    expect(await suppressionList.suppressedAmong(workspace, 'email', ['ada@example.com'])).toEqual(new Map());

    expect(await callbacks.record([recordOf(delivery, 'bounced', bounce(delivery, 'ada@example.com'))])).toBe(1);
    expect(await suppressionList.suppressedAmong(workspace, 'email', ['ada@example.com'])).toEqual(new Map([['ada@example.com', { reason: 'hard_bounce', detail: '550 no such user' }]]));
    const announced = await outboxOf([delivery.messageKey, workspace]);
    expect(announced.map((message) => message.topic)).toEqual([TOPICS.deliveryOutcome.name, TOPICS.suppressionChanged.name]);
    expect(announced[1].value).toMatchObject({ payload: bounce(delivery, 'ada@example.com') });

    // Taken off the list since, the address stays off when the vendor sends the bounce again.
    await new SuppressionRepository(db).apply({ ...bounce(delivery, 'ada@example.com'), change: 'removed' });
    suppressionList.forget({ workspace_id: workspace, channel: 'email' });
    expect(await callbacks.record([recordOf(delivery, 'bounced', bounce(delivery, 'ada@example.com'))])).toBe(0);
    expect(await suppressionList.suppressedAmong(workspace, 'email', ['ada@example.com'])).toEqual(new Map());
    expect(await outboxOf([delivery.messageKey, workspace])).toHaveLength(2);
  });
});
