import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { CREDENTIALS_CHANGED_TYPE, CredentialsChanged, TOPICS, envelopeOf } from '@herald/contracts';
import { hashToken, mintUserToken, runModeTargets } from '@herald/runtime';
import { expectEventually, openApiResponseChecker } from '@herald/testing';
import { dispatchOpenApi } from '../openapi/dispatch-openapi';
import { DispatchTestApp, deliveryCommand, startDispatchTestApp } from '../testing/dispatch-test-app';

const PAGE_ORIGIN = 'https://app.example.com';
const openApiProblems = openApiResponseChecker(dispatchOpenApi);

interface Item {
  n_id: string;
  n_category: string | null;
  created_on: number;
  seen_on: number | null;
  read_on: number | null;
  interacted_on: number | null;
  archived: boolean;
  message: { text: string };
}

/** SuprSend's feed API (`/v1/feed/`) as `@suprsend/web-sdk` 4.1.2 calls it, over the inbox. */
describe.each(runModeTargets())("SuprSend's feed API from a browser ($name)", ({ database, bus }) => {
  let dispatch: DispatchTestApp;
  const otherWorkspaceId = randomUUID();
  const keys = {
    own: { publicKey: `SS.PUBK.${randomBytes(32).toString('base64url')}`, signing: generateKeyPairSync('ec', { namedCurve: 'P-256' }) },
    other: { publicKey: `SS.PUBK.${randomBytes(32).toString('base64url')}`, signing: generateKeyPairSync('ec', { namedCurve: 'P-256' }) },
  };
  const now = (): number => Math.floor(Date.now() / 1000);
  const tokenFor = (distinctId: string, of: keyof typeof keys = 'own', claims: Record<string, unknown> = {}): string =>
    mintUserToken(keys[of].signing.privateKey, { distinct_id: distinctId, iat: now(), exp: now() + 300, ...claims });

  const announce = (workspaceId: string, change: CredentialsChanged): Promise<void> =>
    dispatch.bus.publish(TOPICS.credentialsChanged.name, [{ key: workspaceId, value: JSON.stringify(envelopeOf(CREDENTIALS_CHANGED_TYPE, 1, randomUUID(), workspaceId, new Date(), change)) }]);

  /** A call as the SDK makes it; `query` gets the SDK's `distinct_id` and `tenant_id` unless given. */
  async function feed(method: string, path: string, query: Record<string, unknown> = {}, options: { token?: string; key?: keyof typeof keys; origin?: string; body?: unknown } = {}) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries({ distinct_id: 'alice', tenant_id: 'default', ...query })) {
      if (value !== undefined) params.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
    const url = `${dispatch.app.url}v1/feed/${path}?${params.toString()}`;
    const response = await fetch(url, {
      method,
      headers: {
        authorization: keys[options.key ?? 'own'].publicKey,
        'x-ss-signature': options.token ?? tokenFor('alice'),
        'content-type': 'application/json',
        origin: options.origin ?? PAGE_ORIGIN,
      },
      body: method === 'GET' ? undefined : JSON.stringify(options.body ?? {}),
    });
    const body = (await response.json()) as Record<string, unknown>;
    // Every answer is the one the OpenAPI fragment documents.
    expect(openApiProblems(method, url, response.status, body)).toEqual([]);
    return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin'), body };
  }
  const list = async (query: Record<string, unknown> = {}) => (await feed('GET', 'notifications', query)).body as { results: Item[]; meta: { total_count: number; has_more: boolean } };
  const counts = async (stores?: unknown) => (await feed('GET', 'notifications_count', { stores })).body;
  const unreadStore = { store_id: 'unread', query: { read: false, tags: { or: [] }, categories: { or: [] } } };
  const billingStore = { store_id: 'billing', query: { tags: { or: [] }, categories: { or: ['billing'] } } };
  const archivedStore = { store_id: 'archived', query: { archived: true, tags: { or: [] }, categories: { or: [] } } };

  beforeAll(async () => {
    dispatch = await startDispatchTestApp(database, bus);
    for (const [workspaceId, key] of [
      [dispatch.workspaceId, keys.own],
      [otherWorkspaceId, keys.other],
    ] as const) {
      const base = { workspace_id: workspaceId, workspace_slug: 'staging' };
      await announce(workspaceId, { kind: 'public_key', change: 'created', public_key_id: `pubk_${randomUUID()}`, ...base, key_hash: hashToken(key.publicKey).toString('hex'), allowed_origins: [PAGE_ORIGIN] });
      await announce(workspaceId, { kind: 'signing_key', change: 'created', signing_key_uid: `sk_${randomUUID()}`, ...base, public_key_pem: key.signing.publicKey.export({ type: 'spki', format: 'pem' }).toString() });
    }
    await expectEventually(async () => expect((await feed('GET', 'notifications')).status).toBe(200));
    await expectEventually(async () => expect((await feed('GET', 'notifications', {}, { key: 'other', token: tokenFor('alice', 'other') })).status).toBe(200));
    const messages: Array<[string, string]> = [
      ['one', 'news'],
      ['two', 'billing'],
      ['three', 'news'],
      ['four', 'billing'],
      ['five', 'news'],
    ];
    for (const [body, category] of messages) {
      await dispatch.publishCommand(deliveryCommand('inbox', { body }, ['x'], { recipient: { kind: 'user', distinct_id: 'alice' }, category }));
    }
    await dispatch.publishCommand(deliveryCommand('inbox', { body: "bob's" }, ['x'], { recipient: { kind: 'user', distinct_id: 'bob' } }));
    await expectEventually(async () => expect((await list()).meta.total_count).toBe(5));
  });
  afterAll(() => dispatch?.close());

  it('lists the feed newest first in the SDK shape, page by page with search_after, and by store', async () => {
    const all = await list({ page_size: '20', search_after: [] });
    expect(all.meta).toEqual({ total_count: 5, has_more: false });
    expect(all.results.map((item) => item.message.text)).toEqual(['five', 'four', 'three', 'two', 'one']);
    expect(all.results[0]).toMatchObject({ n_category: 'news', seen_on: null, read_on: null, interacted_on: null, archived: false, is_pinned: false, tags: [], message: { header: null, url: null } });
    expect(typeof all.results[0].created_on).toBe('number');

    const seen: string[] = [];
    let page = await list({ page_size: '2' });
    seen.push(...page.results.map((item) => item.message.text));
    while (page.meta.has_more) {
      const last = page.results[page.results.length - 1];
      page = await list({ page_size: '2', search_after: [false, last.created_on] });
      seen.push(...page.results.map((item) => item.message.text));
    }
    // Each message once, in order: a page never ends inside messages that share a millisecond.
    expect(seen).toEqual(['five', 'four', 'three', 'two', 'one']);

    const billing = await list({ store: billingStore });
    expect(billing.results.map((item) => item.message.text)).toEqual(['four', 'two']);
    expect(billing.meta.total_count).toBe(2);
    expect(await counts([unreadStore, billingStore])).toEqual({ badge: 5, unread: 5, billing: 2 });
  });

  it('marks a message seen, read, unread, interacted and archived, each stored as the inbox shows it', async () => {
    const [five] = (await list()).results;
    const mark = async (what: string) => feed('PATCH', `notifications/${five.n_id}/${what}`);
    expect(await mark('seen')).toMatchObject({ status: 200, allowOrigin: PAGE_ORIGIN, body: { n_id: five.n_id, seen_on: expect.any(Number), read_on: null } });
    expect((await mark('read')).body).toMatchObject({ read_on: expect.any(Number) });
    expect((await mark('unread')).body).toMatchObject({ read_on: null, seen_on: expect.any(Number) });
    expect((await mark('interacted')).body).toMatchObject({ interacted_on: expect.any(Number), read_on: expect.any(Number) });
    expect((await feed('GET', `notifications/${five.n_id}`)).body).toMatchObject({ n_id: five.n_id, interacted_on: expect.any(Number) });
    expect((await mark('archive')).body).toMatchObject({ archived: true });
    // The same message in Herald's own inbox API.
    const inbox = (await dispatch.call('GET', 'v1/user/alice/inbox/')).body as { results: Array<{ id: string; seen_at: string | null; read_at: string | null; clicked_at: string | null; archived_at: string | null }> };
    expect(inbox.results.find((item) => item.id === five.n_id)).toMatchObject({ seen_at: expect.any(String), read_at: expect.any(String), clicked_at: expect.any(String), archived_at: expect.any(String) });
    expect((await list()).results.map((item) => item.message.text)).toEqual(['four', 'three', 'two', 'one']);
    expect((await list({ store: archivedStore })).results.map((item) => item.n_id)).toEqual([five.n_id]);
    expect((await mark('pin')).status).toBe(404);
    expect((await feed('PATCH', `notifications/${randomUUID()}/read`)).body).toMatchObject({ error: { type: 'NOT_FOUND' } });
  });

  it('marks many seen, resets the badge, and marks all read', async () => {
    const items = (await list()).results;
    const bulk = await feed('POST', 'bulk/notifications/seen', {}, { body: { notification_ids: [items[0].n_id, items[1].n_id, randomUUID()] } });
    expect(bulk).toMatchObject({ status: 200, body: { notification_ids: [items[0].n_id, items[1].n_id] } });
    expect(await counts()).toEqual({ badge: 2 });
    expect((await feed('PATCH', 'reset_bell_count')).body).toEqual({ badge: 0 });
    expect(await counts([unreadStore])).toEqual({ badge: 0, unread: 4 });
    await dispatch.publishCommand(deliveryCommand('inbox', { body: 'six' }, ['x'], { recipient: { kind: 'user', distinct_id: 'alice' }, category: 'news' }));
    await expectEventually(async () => expect(await counts([unreadStore])).toEqual({ badge: 1, unread: 5 }));
    expect((await feed('PATCH', 'mark_all_read')).body).toEqual({ updated: 5 });
    expect(await counts([unreadStore, billingStore])).toEqual({ badge: 0, unread: 0, billing: 0 });
    expect((await list()).results.every((item) => item.read_on !== null && item.seen_on !== null)).toBe(true);
  });

  it("shows a template's pin, tags, expiry, buttons, subtext and extra data: pinned first until read, expired ones nowhere", async () => {
    const asCarol = { token: tokenFor('carol') };
    const carolList = async (query: Record<string, unknown> = {}) =>
      (await feed('GET', 'notifications', { distinct_id: 'carol', ...query }, asCarol)).body as { results: Array<Item & Record<string, unknown>>; meta: { total_count: number; has_more: boolean } };
    const stored = async () => ((await dispatch.call('GET', 'v1/user/carol/inbox/')).body as { results: unknown[] }).results.length;
    const contents: Array<Record<string, unknown>> = [
      { body: 'old pinned', is_pinned: true },
      { body: 'plain a' },
      {
        header: 'Friend request',
        body: 'tagged',
        tags: ['mentions'],
        avatar: { image_url: 'https://cdn.test/bob.png', url: 'https://acme.test/u/bob' },
        subtext: { text: '@bob' },
        buttons: [{ text: 'Accept', url: 'https://acme.test/accept', open_in_new_tab: true }],
        extra_data: '{"request":7}',
      },
      { body: 'lasts a week', is_expiry_enabled: true, expiry: { format: 'relative', value: '7d', is_expiry_visible: true } },
      { body: 'already expired', is_expiry_enabled: true, expiry: { format: 'absolute', value: '2001-01-01T00:00:00Z' } },
      { body: 'plain b' },
    ];
    // One at a time, so each has its own millisecond and the order is the order sent.
    for (const [index, content] of contents.entries()) {
      await dispatch.publishCommand(deliveryCommand('inbox', content, ['x'], { recipient: { kind: 'user', distinct_id: 'carol' } }));
      await expectEventually(async () => expect(await stored()).toBe(index + 1));
    }
    const texts = (page: { results: Item[] }) => page.results.map((item) => item.message.text);
    const first = await carolList();
    expect(texts(first)).toEqual(['old pinned', 'plain b', 'lasts a week', 'tagged', 'plain a']);
    expect(first.meta.total_count).toBe(5);
    const byText = new Map(first.results.map((item) => [item.message.text, item]));
    expect(byText.get('old pinned')).toMatchObject({ is_pinned: true, expiry: null });
    expect(byText.get('lasts a week')).toMatchObject({ is_pinned: false, is_expiry_visible: true, expiry: expect.any(Number) });
    expect(byText.get('lasts a week')?.expiry as number).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    expect(byText.get('tagged')).toMatchObject({
      tags: ['mentions'],
      message: {
        header: 'Friend request',
        avatar: { avatar_url: 'https://cdn.test/bob.png', action_url: 'https://acme.test/u/bob' },
        subtext: { text: '@bob', action_url: null },
        actions: [{ name: 'Accept', url: 'https://acme.test/accept', open_in_new_tab: true }],
        extra_data: '{"request":7}',
      },
    });

    // search_after carries is_pinned: a page of one at a time walks the same order.
    const walked: string[] = [];
    let page = await carolList({ page_size: '1', search_after: [] });
    walked.push(...texts(page));
    while (page.meta.has_more) {
      const last = page.results[page.results.length - 1];
      page = await carolList({ page_size: '1', search_after: [last.is_pinned, last.created_on] });
      walked.push(...texts(page));
    }
    expect(walked).toEqual(texts(first));

    const mentions = { store_id: 'mentions', query: { tags: { or: ['mentions', 'nobody'] }, categories: { or: [] } } };
    expect(texts(await carolList({ store: mentions }))).toEqual(['tagged']);
    // The expired message counts nowhere.
    expect((await feed('GET', 'notifications_count', { distinct_id: 'carol', stores: [mentions, unreadStore] }, asCarol)).body).toEqual({ badge: 5, mentions: 1, unread: 5 });

    // Read, the pinned message takes its place by time.
    expect((await feed('PATCH', `notifications/${byText.get('old pinned')?.n_id}/read`, { distinct_id: 'carol' }, asCarol)).body).toMatchObject({ is_pinned: false });
    expect(texts(await carolList())).toEqual(['plain b', 'lasts a week', 'tagged', 'plain a', 'old pinned']);
  });

  it('names the failing parameter in a 400 the page can read', async () => {
    const bad = await feed('GET', 'notifications', { page_size: '500', search_after: 'x', store: { store_id: 's', query: { read: 'no' } } });
    expect(bad).toMatchObject({ status: 400, allowOrigin: PAGE_ORIGIN, body: { error: { type: 'VALIDATION_ERROR' } } });
    const message = (bad.body.error as { message: string }).message;
    for (const path of ['page_size', 'search_after', 'store.query.read']) expect(message).toContain(path);
    expect((await feed('GET', 'notifications_count', { stores: '{"a":1}' })).body).toMatchObject({ error: { message: expect.stringContaining('stores') } });
    expect((await feed('GET', 'notifications', { distinct_id: undefined })).body).toMatchObject({ error: { message: expect.stringContaining('distinct_id') } });
    expect((await feed('POST', 'bulk/notifications/seen', {}, { body: { notification_ids: ['nope'] } })).body).toMatchObject({ error: { message: expect.stringContaining('notification_ids[0]') } });
  });

  it("refuses another user's feed, another workspace's key, another tenant and a disallowed origin", async () => {
    expect(await feed('GET', 'notifications', { distinct_id: 'bob' })).toMatchObject({ status: 403, allowOrigin: PAGE_ORIGIN, body: { error: { type: 'PERMISSION_DENIED' } } });
    const [one] = (await list()).results;
    expect((await feed('PATCH', `notifications/${one.n_id}/read`, { distinct_id: 'bob' })).status).toBe(403);
    // This workspace's token with the other workspace's key does not verify; the other workspace's own alice has an empty feed.
    expect((await feed('GET', 'notifications', {}, { key: 'other' })).status).toBe(401);
    const elsewhere = await feed('GET', 'notifications', {}, { key: 'other', token: tokenFor('alice', 'other') });
    expect(elsewhere.body).toEqual({ results: [], meta: { total_count: 0, has_more: false } });
    expect((await feed('PATCH', `notifications/${one.n_id}/archive`, {}, { key: 'other', token: tokenFor('alice', 'other') })).status).toBe(404);
    expect((await feed('GET', 'notifications', {}, { token: tokenFor('alice', 'own', { tenant_id: 'acme' }) })).status).toBe(403);
    expect(await feed('GET', 'notifications', {}, { origin: 'https://evil.example.net' })).toMatchObject({ status: 403, allowOrigin: null });
  });

  it('answers CORS preflights of every feed route for the origins public keys allow', async () => {
    for (const path of ['notifications', 'notifications_count', `notifications/${randomUUID()}`, `notifications/${randomUUID()}/read`, 'bulk/notifications/seen', 'mark_all_read', 'reset_bell_count']) {
      const preflight = (origin: string) =>
        fetch(`${dispatch.app.url}v1/feed/${path}?distinct_id=alice`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,x-ss-signature' } });
      const allowed = await preflight(PAGE_ORIGIN);
      expect({ path, status: allowed.status, origin: allowed.headers.get('access-control-allow-origin') }).toEqual({ path, status: 204, origin: PAGE_ORIGIN });
      expect((await preflight('https://evil.example.net')).headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});
