import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DeliveryOutcome, Envelope, InboxBulkUpdated, InboxUpdated, TOPICS, userKey } from '@herald/contracts';
import { InboxContent } from '@herald/rendering';
import { databaseTargets } from '@herald/testing';
import { DISPATCH_OUTBOX } from '../dispatch/dispatch-outbox.repository';
import { LedgeredDeliveryEntity } from '../dispatch/delivery.entity';
import { deliveryCommand } from '../testing/dispatch-test-app';
import { openDispatchDatabase } from '../testing/repository-database';
import { InboxMessageEntity } from './inbox.entities';
import { InboxOwner } from './inbox-owner';
import { InboxRepository, NewInboxMessage } from './inbox.repository';
import { InboxWrites } from './inbox-writes';

describe.each(databaseTargets())('the inbox repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let inbox: InboxRepository;

  beforeAll(async () => {
    const opened = await openDispatchDatabase(target);
    db = opened.db;
    dispose = opened.close;
    inbox = new InboxRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const newOwner = (fields: Partial<InboxOwner> = {}): InboxOwner => ({ workspaceId: randomUUID(), distinctId: 'ada', ...fields });
  const message = (owner: InboxOwner, content: Partial<InboxContent> = {}, fields: Partial<NewInboxMessage> = {}): NewInboxMessage => ({
    id: randomUUID(),
    workspaceId: owner.workspaceId,
    distinctId: owner.distinctId,
    deliveryId: randomUUID(),
    content: { channel: 'inbox', body: 'Hello', ...content },
    ...(owner.tenantId === undefined ? {} : { tenantId: owner.tenantId }),
    ...fields,
  });
  /** Stores one message of the owner; answers its id. */
  async function stored(owner: InboxOwner, content: Partial<InboxContent> = {}, fields: Partial<NewInboxMessage> = {}): Promise<string> {
    const one = message(owner, content, fields);
    await inbox.store([one]);
    return one.id;
  }
  /** The ledger row of a delivery to `owner` (what an engagement outcome reports on); answers the delivery id. */
  async function ledgered(owner: InboxOwner): Promise<string> {
    const command = deliveryCommand('inbox', { body: 'Hello' }, [], { recipient: { kind: 'user', distinct_id: owner.distinctId } });
    await db.getRepository(LedgeredDeliveryEntity).save({
      deliveryId: command.delivery_id,
      workspaceId: owner.workspaceId,
      channel: 'inbox',
      messageKey: userKey(owner.workspaceId, owner.distinctId),
      command,
      status: 'sent',
      attempts: 1,
      claimedAt: new Date(),
      sentIdentities: [],
      callbackStatuses: [],
    });
    return command.delivery_id;
  }
  /** What the outbox holds for the workspace, in the order written. */
  async function outboxOf(workspaceId: string): Promise<Array<{ topic: string; key: string; envelope: Envelope }>> {
    const rows: Array<{ topic: string; key: string; value: string }> = await db.query(`SELECT topic, key, value FROM ${DISPATCH_OUTBOX} ORDER BY id`);
    return rows
      .map((row) => ({ topic: row.topic, key: row.key, envelope: JSON.parse(row.value) as Envelope }))
      .filter((row) => row.envelope.workspace_id === workspaceId);
  }
  const inboxChanges = async (owner: InboxOwner): Promise<InboxUpdated[]> =>
    (await outboxOf(owner.workspaceId)).filter((row) => row.envelope.type === 'inbox.updated').map((row) => row.envelope.payload as InboxUpdated);
  const outcomes = async (owner: InboxOwner): Promise<DeliveryOutcome[]> =>
    (await outboxOf(owner.workspaceId)).filter((row) => row.topic === TOPICS.deliveryOutcome.name).map((row) => row.envelope.payload as DeliveryOutcome);
  const row = (id: string) => db.getRepository(InboxMessageEntity).findOneByOrFail({ id });

  describe('store', () => {
    it('stores a batch with every column its content sets, and announces each new message in storage order', async () => {
      const owner = newOwner();
      const full = message(
        { ...owner, tenantId: 'acme' },
        {
          title: 'Welcome',
          avatar: 'https://example.com/a.png',
          avatarUrl: 'https://example.com/profile',
          actionUrl: 'https://example.com/go',
          openInNewTab: true,
          subtext: { text: 'More', url: 'https://example.com/more' },
          buttons: [{ text: 'Open', url: 'https://example.com/open', openInNewTab: true }, { text: 'Later', url: 'https://example.com/later' }],
          tags: ['news', 'weekly'],
          pinned: true,
          expiry: { at: '2100-01-01T00:00:00.000Z', visible: true },
          extraData: '{"k":1}',
          importance: 'high',
        },
      );
      const plain = message(owner);
      const relative = message(owner, { expiry: { afterSeconds: 3600, visible: false } });
      const before = Date.now();

      await inbox.store([full, plain, relative]);

      expect(await row(full.id)).toEqual({
        seq: expect.any(String),
        id: full.id,
        workspaceId: owner.workspaceId,
        distinctId: 'ada',
        deliveryId: full.deliveryId,
        tenantId: 'acme',
        title: 'Welcome',
        body: 'Hello',
        avatar: 'https://example.com/a.png',
        actionUrl: 'https://example.com/go',
        createdAt: expect.any(Date),
        seenAt: null,
        readAt: null,
        archivedAt: null,
        clickedAt: null,
        outcomesPublished: [],
        pinned: true,
        expiresAt: new Date('2100-01-01T00:00:00.000Z'),
        tags: ['news', 'weekly'],
        extras: {
          subtext: { text: 'More', url: 'https://example.com/more' },
          buttons: [{ text: 'Open', url: 'https://example.com/open', open_in_new_tab: true }, { text: 'Later', url: 'https://example.com/later' }],
          avatar_url: 'https://example.com/profile',
          open_in_new_tab: true,
          extra_data: '{"k":1}',
          expiry_visible: true,
          importance: 'high',
        },
      });
      expect(await row(plain.id)).toMatchObject({ tenantId: null, title: null, avatar: null, actionUrl: null, pinned: false, expiresAt: null, tags: [], extras: null });
      // A relative expiry counts from the store, on the database's clock.
      const expiresAt = (await row(relative.id)).expiresAt?.getTime() ?? 0;
      expect(expiresAt).toBeGreaterThanOrEqual(before + 3_600_000 - 60_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3_600_000 + 60_000);
      // Sequence numbers in the batch's order.
      expect(Number((await row(full.id)).seq)).toBeLessThan(Number((await row(plain.id)).seq));
      expect(Number((await row(plain.id)).seq)).toBeLessThan(Number((await row(relative.id)).seq));

      const announced = await outboxOf(owner.workspaceId);
      expect(announced.map((entry) => [entry.topic, entry.key, entry.envelope.type])).toEqual([
        [TOPICS.inboxUpdated.name, userKey(owner.workspaceId, 'ada'), 'inbox.updated'],
        [TOPICS.inboxUpdated.name, userKey(owner.workspaceId, 'ada'), 'inbox.updated'],
        [TOPICS.inboxUpdated.name, userKey(owner.workspaceId, 'ada'), 'inbox.updated'],
      ]);
      const stamped = await row(full.id);
      expect(announced[0].envelope.payload).toEqual({
        workspace_id: owner.workspaceId,
        distinct_id: 'ada',
        tenant_id: 'acme',
        change: 'added',
        item: {
          id: full.id,
          created_at: stamped.createdAt.toISOString(),
          title: 'Welcome',
          body: 'Hello',
          avatar: 'https://example.com/a.png',
          action_url: 'https://example.com/go',
          seen_at: null,
          read_at: null,
          archived_at: null,
          clicked_at: null,
        },
      });
      expect((await inboxChanges(owner)).map((change) => [change.item.id, change.tenant_id])).toEqual([
        [full.id, 'acme'],
        [plain.id, undefined],
        [relative.id, undefined],
      ]);
    });

    it('skips a message stored before, by its id: no second row and no second announcement', async () => {
      const owner = newOwner();
      const first = message(owner, { body: 'first' });
      await inbox.store([first]);
      const again = { ...first, content: { ...first.content, body: 'changed' } };
      const other = message(owner, { body: 'other' });

      await inbox.store([again, other]);

      expect(await row(first.id)).toMatchObject({ body: 'first' });
      expect(await row(other.id)).toMatchObject({ body: 'other' });
      expect(await db.getRepository(InboxMessageEntity).countBy({ workspaceId: owner.workspaceId })).toBe(2);
      expect((await inboxChanges(owner)).map((change) => change.item.id)).toEqual([first.id, other.id]);
    });

    it('stores nothing and announces nothing when one message of the batch cannot be stored', async () => {
      const owner = newOwner();
      const good = message(owner);
      const bad = message(owner, { body: 'a NUL \u0000 here' });

      await expect(inbox.store([good, bad])).rejects.toThrow();

      expect(await db.getRepository(InboxMessageEntity).countBy({ workspaceId: owner.workspaceId })).toBe(0);
      expect(await outboxOf(owner.workspaceId)).toEqual([]);
      // The connection went back clean: the next store works.
      await inbox.store([good]);
      expect(await row(good.id)).toMatchObject({ id: good.id });
    });
  });

  it("counts the owner's unseen and unread messages, archived ones aside, within the tenant", async () => {
    const owner = newOwner();
    await stored(owner);
    const seen = await stored(owner);
    const read = await stored(owner);
    const archived = await stored(owner);
    await stored({ ...owner, tenantId: 'acme' });
    await stored({ ...owner, distinctId: 'bob' });
    await inbox.update(owner, seen, { seen: true });
    await inbox.update(owner, read, { read: true });
    await inbox.update(owner, archived, { archived: true });

    expect(await inbox.counts(owner)).toEqual({ unseen: 2, unread: 3 });
    expect(await inbox.counts({ ...owner, tenantId: 'acme' })).toEqual({ unseen: 1, unread: 1 });
    // A message whose trigger named no tenant is the default tenant's.
    expect(await inbox.counts({ ...owner, tenantId: 'default' })).toEqual({ unseen: 1, unread: 2 });
    expect(await inbox.counts(newOwner())).toEqual({ unseen: 0, unread: 0 });
  });

  it("lists the owner's messages newest first, paging to older ones with after and to newer ones with before", async () => {
    const owner = newOwner();
    const ids: string[] = [];
    for (let n = 0; n < 5; n += 1) ids.push(await stored(owner, { body: `message ${n}` }));
    await stored({ ...owner, distinctId: 'bob' });
    const acme = await stored({ ...owner, tenantId: 'acme' });
    const [m0, m1, m2, m3, m4] = ids;

    // Without a tenant, every tenant's messages.
    const all = await inbox.list(owner, { limit: 10 });
    expect(all.items.map((item) => item.id)).toEqual([acme, m4, m3, m2, m1, m0]);
    expect(all).toMatchObject({ hasPrev: false, hasNext: false });

    const first = await inbox.list({ ...owner, tenantId: 'default' }, { limit: 2 });
    expect(first.items.map((item) => item.id)).toEqual([m4, m3]);
    expect(first).toMatchObject({ hasPrev: false, hasNext: true });
    expect(first.items[0]).toEqual({
      id: m4,
      created_at: expect.any(String),
      title: null,
      body: 'message 4',
      avatar: null,
      action_url: null,
      seen_at: null,
      read_at: null,
      archived_at: null,
      clicked_at: null,
    });

    const second = await inbox.list({ ...owner, tenantId: 'default' }, { limit: 2, after: first.after });
    expect(second.items.map((item) => item.id)).toEqual([m2, m1]);
    expect(second).toMatchObject({ hasPrev: true, hasNext: true });
    const last = await inbox.list({ ...owner, tenantId: 'default' }, { limit: 2, after: second.after });
    expect(last.items.map((item) => item.id)).toEqual([m0]);
    expect(last).toMatchObject({ hasPrev: true, hasNext: false, before: last.after });

    // Back to newer ones: the two just before the cursor, still newest first.
    const back = await inbox.list({ ...owner, tenantId: 'default' }, { limit: 2, before: last.before });
    expect(back.items.map((item) => item.id)).toEqual([m2, m1]);
    expect(back).toMatchObject({ hasPrev: true, hasNext: true });
    const newest = await inbox.list({ ...owner, tenantId: 'default' }, { limit: 2, before: first.after });
    expect(newest.items.map((item) => item.id)).toEqual([m4]);
    expect(newest).toMatchObject({ hasPrev: false, hasNext: true });

    expect(await inbox.list(newOwner(), { limit: 2 })).toEqual({ items: [], before: undefined, after: undefined, hasPrev: false, hasNext: false });
  });

  describe('update', () => {
    it('sets and clears the flags, seen implied by read and by a click, keeping a first stamp, and announces each change', async () => {
      const owner = newOwner();
      const id = await stored(owner);

      const read = await inbox.update(owner, id, { read: true });
      expect(read).toMatchObject({ id, seen_at: expect.any(String), read_at: expect.any(String), archived_at: null, clicked_at: null });
      expect(read?.seen_at).toBe(read?.read_at);
      // Seen again: the first stamp stays.
      expect(await inbox.update(owner, id, { seen: true })).toMatchObject({ seen_at: read?.seen_at, read_at: read?.read_at });
      // Read cleared, seen kept unless cleared too.
      expect(await inbox.update(owner, id, { read: false })).toMatchObject({ seen_at: read?.seen_at, read_at: null });
      expect(await inbox.update(owner, id, { seen: false, archived: true })).toMatchObject({ seen_at: null, read_at: null, archived_at: expect.any(String) });
      // A click sets seen, unless the update says otherwise.
      expect(await inbox.update(owner, id, { clicked: true, seen: false })).toMatchObject({ seen_at: null, clicked_at: expect.any(String) });
      const clicked = await inbox.update(owner, id, { clicked: true });
      expect(clicked).toMatchObject({ seen_at: expect.any(String), clicked_at: expect.any(String), archived_at: expect.any(String) });
      expect(await row(id)).toMatchObject({ seenAt: new Date(clicked?.seen_at ?? ''), clickedAt: new Date(clicked?.clicked_at ?? ''), readAt: null });

      const changes = (await inboxChanges(owner)).filter((change) => change.change === 'updated');
      expect(changes).toHaveLength(6);
      expect(changes[0]).toEqual({ workspace_id: owner.workspaceId, distinct_id: 'ada', change: 'updated', item: read });
      expect(changes[5].item).toEqual(clicked);
    });

    it("answers null for a message that is not the owner's, within its tenant, and changes nothing", async () => {
      const owner = newOwner();
      const id = await stored({ ...owner, tenantId: 'acme' });

      expect(await inbox.update({ ...owner, distinctId: 'bob' }, id, { read: true })).toBeNull();
      expect(await inbox.update({ ...owner, workspaceId: randomUUID() }, id, { read: true })).toBeNull();
      expect(await inbox.update({ ...owner, tenantId: 'default' }, id, { read: true })).toBeNull();
      expect(await inbox.update(owner, randomUUID(), { read: true })).toBeNull();
      expect(await row(id)).toMatchObject({ readAt: null, seenAt: null });
      expect((await inboxChanges(owner)).map((change) => change.change)).toEqual(['added']);

      expect(await inbox.update({ ...owner, tenantId: 'acme' }, id, { read: true })).toMatchObject({ id, read_at: expect.any(String) });
      expect((await inboxChanges(owner)).map((change) => [change.change, change.tenant_id])).toEqual([
        ['added', 'acme'],
        ['updated', 'acme'],
      ]);
    });

    it('marks the announcement of one message of a bulk change', async () => {
      const owner = newOwner();
      const id = await stored(owner);
      await inbox.update(owner, id, { seen: true }, { bulk: true });
      await inbox.update(owner, id, { read: true });
      expect((await inboxChanges(owner)).map((change) => [change.change, change.bulk])).toEqual([
        ['added', undefined],
        ['updated', true],
        ['updated', undefined],
      ]);
    });

    it("reports the first seen and the first click of a message as its delivery's outcomes, each once", async () => {
      const owner = newOwner();
      const deliveryId = await ledgered(owner);
      const id = await stored(owner, {}, { deliveryId });

      await inbox.update(owner, id, { archived: true });
      expect(await outcomes(owner)).toEqual([]);
      const seen = await inbox.update(owner, id, { seen: true });
      await inbox.update(owner, id, { seen: true });
      await inbox.update(owner, id, { seen: false });
      await inbox.update(owner, id, { seen: true });
      expect(await row(id)).toMatchObject({ outcomesPublished: ['seen'] });
      const clicked = await inbox.update(owner, id, { clicked: true });
      await inbox.update(owner, id, { clicked: true, read: true });

      const reported = await outcomes(owner);
      expect(reported.map((outcome) => [outcome.status, outcome.delivery_id, outcome.vendor, outcome.at])).toEqual([
        ['seen', deliveryId, 'inbox/herald_inbox', seen?.seen_at],
        ['clicked', deliveryId, 'inbox/herald_inbox', clicked?.clicked_at],
      ]);
      expect(reported[0]).toMatchObject({ channel: 'inbox', recipient: { kind: 'user', distinct_id: 'ada' } });
      expect((await outboxOf(owner.workspaceId)).filter((entry) => entry.topic === TOPICS.deliveryOutcome.name).map((entry) => entry.key)).toEqual([
        userKey(owner.workspaceId, 'ada'),
        userKey(owner.workspaceId, 'ada'),
      ]);
      expect(await row(id)).toMatchObject({ outcomesPublished: ['seen', 'clicked'] });
    });

    it('reports a seen and a click of one update together, and nothing for a message without a ledger row', async () => {
      const owner = newOwner();
      const id = await stored(owner, {}, { deliveryId: await ledgered(owner) });
      await inbox.update(owner, id, { clicked: true });
      expect((await outcomes(owner)).map((outcome) => outcome.status)).toEqual(['seen', 'clicked']);

      const orphan = newOwner();
      const unledgered = await stored(orphan);
      expect(await inbox.update(orphan, unledgered, { clicked: true })).toMatchObject({ clicked_at: expect.any(String) });
      expect(await outcomes(orphan)).toEqual([]);
      expect(await row(unledgered)).toMatchObject({ outcomesPublished: [] });
    });
  });

  it('announces a bulk change whole, with its ids and tenant when given', async () => {
    const owner = newOwner();
    await inbox.announceBulk(owner, 'all_read');
    await inbox.announceBulk({ ...owner, tenantId: 'acme' }, 'seen', ['a', 'b']);

    const announced = await outboxOf(owner.workspaceId);
    expect(announced.map((entry) => [entry.topic, entry.key, entry.envelope.type])).toEqual([
      [TOPICS.inboxUpdated.name, userKey(owner.workspaceId, 'ada'), 'inbox.bulk_updated'],
      [TOPICS.inboxUpdated.name, userKey(owner.workspaceId, 'ada'), 'inbox.bulk_updated'],
    ]);
    expect(announced.map((entry) => entry.envelope.payload as InboxBulkUpdated)).toEqual([
      { workspace_id: owner.workspaceId, distinct_id: 'ada', change: 'all_read' },
      { workspace_id: owner.workspaceId, distinct_id: 'ada', tenant_id: 'acme', change: 'seen', notification_ids: ['a', 'b'] },
    ]);
  });

  describe('InboxWrites in front of it', () => {
    it('writes the stores made together in one batch', async () => {
      const owner = newOwner();
      const writes = new InboxWrites(inbox);
      const batches = jest.spyOn(inbox, 'store');
      try {
        const messages = [message(owner), message(owner), message(owner)];
        await Promise.all(messages.map((m) => writes.store(m.id, m.workspaceId, m.distinctId, m.deliveryId, m.content)));
        expect(batches.mock.calls.map(([batch]) => batch.map((m) => m.id))).toEqual([messages.map((m) => m.id)]);
        expect((await inboxChanges(owner)).map((change) => change.item.id)).toEqual(messages.map((m) => m.id));
      } finally {
        batches.mockRestore();
      }
    });

    it('fails only the store of a message that cannot be stored, writing the others of its batch one by one', async () => {
      const owner = newOwner();
      const writes = new InboxWrites(inbox);
      const good = message({ ...owner, tenantId: 'acme' });
      const bad = message(owner, { body: 'a NUL \u0000 here' });
      const other = message(owner);

      const results = await Promise.allSettled(
        [good, bad, other].map((m) => writes.store(m.id, m.workspaceId, m.distinctId, m.deliveryId, m.content, m.tenantId)),
      );

      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await row(good.id)).toMatchObject({ tenantId: 'acme' });
      expect(await row(other.id)).toMatchObject({ tenantId: null });
      expect(await db.getRepository(InboxMessageEntity).countBy({ id: bad.id })).toBe(0);
    });
  });
});
