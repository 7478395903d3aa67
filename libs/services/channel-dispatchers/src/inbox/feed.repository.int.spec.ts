import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DeliveryRequested, InboxBulkUpdated } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { DISPATCH_OUTBOX } from '../dispatch/dispatch-outbox.repository';
import { LedgeredDeliveryEntity } from '../dispatch/delivery.entity';
import { openDispatchDatabase } from '../testing/repository-database';
import { ALL_NOT_ARCHIVED, FeedFilter } from './feed-query';
import { FeedRepository } from './feed.repository';
import { InboxMessage, InboxMessageEntity } from './inbox.entities';
import { InboxOwner } from './inbox-owner';

describe.each(databaseTargets())('the feed repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let feed: FeedRepository;

  beforeAll(async () => {
    const opened = await openDispatchDatabase(target);
    db = opened.db;
    dispose = opened.close;
    feed = new FeedRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const newOwner = (fields: Partial<InboxOwner> = {}): InboxOwner => ({ workspaceId: randomUUID(), distinctId: 'ada', ...fields });
  const at = (minute: number, ms = 0): Date => new Date(Date.UTC(2026, 2, 1, 10, minute, 0, ms));
  const FAR_PAST = new Date('2000-01-01T00:00:00Z');
  const FAR_FUTURE = new Date('2100-01-01T00:00:00Z');

  /** Stores a message of the owner (its delivery's command naming `category`, when given); answers its id. */
  async function stored(owner: InboxOwner, fields: Partial<InboxMessage> & { category?: string } = {}): Promise<string> {
    const { category, ...columns } = fields;
    const id = randomUUID();
    const deliveryId = randomUUID();
    if (category !== undefined) {
      await db.getRepository(LedgeredDeliveryEntity).save({
        deliveryId,
        workspaceId: owner.workspaceId,
        channel: 'inbox',
        messageKey: `${owner.workspaceId}:${owner.distinctId}`,
        command: { delivery_id: deliveryId, channel: 'inbox', category } as unknown as DeliveryRequested,
        status: 'sent',
        attempts: 1,
        claimedAt: at(0),
        sentIdentities: [],
        callbackStatuses: [],
      });
    }
    await db.getRepository(InboxMessageEntity).insert({
      id,
      workspaceId: owner.workspaceId,
      distinctId: owner.distinctId,
      deliveryId,
      tenantId: owner.tenantId ?? null,
      title: `Title ${id}`,
      body: 'Hello',
      avatar: null,
      actionUrl: null,
      createdAt: at(1),
      seenAt: null,
      readAt: null,
      archivedAt: null,
      clickedAt: null,
      outcomesPublished: [],
      pinned: false,
      expiresAt: null,
      tags: [],
      extras: null,
      ...columns,
    });
    return id;
  }
  const filter = (fields: Partial<FeedFilter> = {}): FeedFilter => ({ ...ALL_NOT_ARCHIVED, ...fields });

  it('pages pinned unread messages first, then newest first, never ending a page inside messages stored in one millisecond', async () => {
    const owner = newOwner();
    const oldest = await stored(owner, { createdAt: at(1) });
    const [b1, b2, b3] = [await stored(owner, { createdAt: at(2) }), await stored(owner, { createdAt: at(2) }), await stored(owner, { createdAt: at(2) })];
    const newest = await stored(owner, { createdAt: at(3) });
    const pinned = await stored(owner, { createdAt: at(0), pinned: true });
    // Read, a pinned message takes its place by time.
    const pinnedRead = await stored(owner, { createdAt: at(0, 500), pinned: true, readAt: at(5) });
    await stored(owner, { createdAt: at(4), archivedAt: at(5) });
    await stored(owner, { createdAt: at(4), expiresAt: FAR_PAST });
    await stored(newOwner({ workspaceId: owner.workspaceId, distinctId: 'bob' }), { createdAt: at(4) });

    const first = await feed.page(owner, { pageSize: 3, filter: filter() });
    expect(first.totalCount).toBe(7);
    expect(first.hasMore).toBe(true);
    // Three asked for, and the two others stored in the same millisecond as the third.
    expect(first.results.map((item) => item.n_id)).toEqual([pinned, newest, b3, b2, b1]);
    expect(first.results[0].is_pinned).toBe(true);
    const last = first.results[first.results.length - 1];
    const second = await feed.page(owner, { pageSize: 3, filter: filter(), after: { pinned: last.is_pinned, createdMs: last.created_on } });
    expect(second).toEqual({ results: [expect.objectContaining({ n_id: oldest }), expect.objectContaining({ n_id: pinnedRead, is_pinned: false })], totalCount: 7, hasMore: false });
    // After the pinned message: every unpinned one.
    expect((await feed.page(owner, { pageSize: 10, filter: filter(), after: { pinned: true, createdMs: first.results[0].created_on } })).results).toHaveLength(6);
    expect(await feed.page(newOwner(), { pageSize: 3, filter: filter() })).toEqual({ results: [], totalCount: 0, hasMore: false });
  });

  it("filters a store's messages by read, archived, tags and category, and by tenant", async () => {
    const owner = newOwner();
    const read = await stored(owner, { readAt: at(5), tags: ['billing'], category: 'transactional' });
    const unread = await stored(owner, { tags: ['news', 'weekly'], category: 'marketing' });
    const archived = await stored(owner, { archivedAt: at(5) });
    const acme = await stored({ ...owner, tenantId: 'acme' });
    const ids = async (storeFilter: FeedFilter, who: InboxOwner = owner) => (await feed.page(who, { pageSize: 10, filter: storeFilter })).results.map((item) => item.n_id).sort();

    expect(await ids(filter({ read: true }))).toEqual([read]);
    expect(await ids(filter({ read: false }))).toEqual([unread, acme].sort());
    expect(await ids(filter({ archived: true }))).toEqual([archived]);
    expect(await ids(filter({ tags: ['weekly', 'other'] }))).toEqual([unread]);
    expect(await ids(filter({ categories: ['transactional'] }))).toEqual([read]);
    expect(await ids(filter(), { ...owner, tenantId: 'acme' })).toEqual([acme]);
    // A message whose trigger named no tenant is the default tenant's.
    expect(await ids(filter(), { ...owner, tenantId: 'default' })).toEqual([read, unread].sort());
  });

  it('reads a numbered page before a time, with the total', async () => {
    const owner = newOwner();
    const ids = [];
    for (let minute = 1; minute <= 5; minute += 1) ids.push(await stored(owner, { createdAt: at(minute) }));
    const page = await feed.numberedPage(owner, { offset: 1, limit: 2, filter: filter() });
    expect(page.totalCount).toBe(5);
    expect(page.results.map((item) => item.n_id)).toEqual([ids[3], ids[2]]);
    const before = await feed.numberedPage(owner, { offset: 0, limit: 10, createdBeforeMs: at(3).getTime(), filter: filter() });
    expect(before).toEqual({ results: [expect.objectContaining({ n_id: ids[1] }), expect.objectContaining({ n_id: ids[0] })], totalCount: 2 });
  });

  it('reads one of the owner\'s messages as the SDK reads it, and whose a message is', async () => {
    const owner = newOwner();
    const id = await stored(owner, {
      createdAt: at(1),
      seenAt: at(2),
      clickedAt: at(3),
      tags: ['news'],
      avatar: 'https://example.com/a.png',
      actionUrl: 'https://example.com/go',
      expiresAt: FAR_FUTURE,
      extras: { subtext: { text: 'More' }, expiry_visible: true },
      category: 'marketing',
    });
    const item = await feed.item(owner, id);
    expect(item).toMatchObject({
      n_id: id,
      n_category: 'marketing',
      created_on: at(1).getTime(),
      seen_on: at(2).getTime(),
      read_on: null,
      interacted_on: at(3).getTime(),
      archived: false,
      tags: ['news'],
      expiry: FAR_FUTURE.getTime(),
      is_expiry_visible: true,
      is_pinned: false,
      message: { header: `Title ${id}`, text: 'Hello', url: 'https://example.com/go', avatar: { avatar_url: 'https://example.com/a.png', action_url: null }, subtext: { text: 'More', action_url: null } },
    });
    expect(await feed.item({ ...owner, distinctId: 'bob' }, id)).toBeNull();
    expect(await feed.item(owner, randomUUID())).toBeNull();

    expect(await feed.recipientOf(owner.workspaceId, id)).toBe('ada');
    expect(await feed.recipientOf(randomUUID(), id)).toBeNull();
    expect(await feed.recipientOf(owner.workspaceId, randomUUID())).toBeNull();
  });

  it("lists the owner's unread messages in storage order, up to a limit, within the tenant", async () => {
    const owner = newOwner();
    const first = await stored(owner, { createdAt: at(3) });
    await stored(owner, { readAt: at(4) });
    const second = await stored(owner, { createdAt: at(1) });
    const acme = await stored({ ...owner, tenantId: 'acme' });
    await stored({ ...owner, distinctId: 'bob' });
    expect(await feed.unreadIds(owner, 10)).toEqual([first, second, acme]);
    expect(await feed.unreadIds(owner, 2)).toEqual([first, second]);
    expect(await feed.unreadIds({ ...owner, tenantId: 'acme' }, 10)).toEqual([acme]);
    expect(await feed.unreadIds({ ...owner, tenantId: 'default' }, 10)).toEqual([first, second]);
  });

  it("counts the badge since the last reset and each store's unread messages, and announces a reset", async () => {
    const owner = newOwner();
    await stored(owner, { tags: ['news'] });
    await stored(owner, { seenAt: at(2), tags: ['news'] });
    await stored(owner, { readAt: at(2), seenAt: at(2) });
    await stored(owner, { archivedAt: at(2) });
    await stored(owner, { expiresAt: FAR_PAST });
    await stored({ ...owner, tenantId: 'acme' });
    const stores = [
      { storeId: 'news', filter: filter({ tags: ['news'] }) },
      { storeId: 'archive', filter: filter({ archived: true }) },
    ];
    expect(await feed.counts(owner, stores)).toEqual({ badge: 2, news: 2, archive: 1 });
    expect(await feed.counts({ ...owner, tenantId: 'acme' }, [])).toEqual({ badge: 1 });

    await feed.resetBadge({ ...owner, tenantId: 'acme' });
    expect(await feed.counts({ ...owner, tenantId: 'acme' }, [])).toEqual({ badge: 0 });
    // A reset is per tenant scope: the caller who sees every tenant still has its badge.
    expect(await feed.counts(owner, stores)).toEqual({ badge: 2, news: 2, archive: 1 });
    await feed.resetBadge(owner);
    await feed.resetBadge(owner);
    expect(await feed.counts(owner, stores)).toEqual({ badge: 0, news: 2, archive: 1 });
    // Stored after the reset, a message counts again.
    await stored(owner, { createdAt: new Date(Date.now() + 60_000) });
    expect((await feed.counts(owner, [])).badge).toBe(1);

    const rows: Array<{ value: string }> = await db.query(`SELECT value FROM ${DISPATCH_OUTBOX} ORDER BY id`);
    const resets = rows.map((row) => (JSON.parse(row.value) as { payload: InboxBulkUpdated }).payload).filter((update) => update.workspace_id === owner.workspaceId);
    expect(resets).toEqual([
      { workspace_id: owner.workspaceId, distinct_id: 'ada', tenant_id: 'acme', change: 'badge_reset' },
      { workspace_id: owner.workspaceId, distinct_id: 'ada', change: 'badge_reset' },
      { workspace_id: owner.workspaceId, distinct_id: 'ada', change: 'badge_reset' },
    ]);
  });
});
