import { createECDH, randomBytes, sign } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, Page, chromium } from 'playwright-core';
import { createTemporaryDatabase, expectEventually, fetchJson, heraldEnv, testInfrastructure } from '@herald/testing';
import webpush from 'web-push';
// The dispatchers' test push service (a testing file, kept out of the library's public index).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { LocalPushService } from '../../../libs/services/channel-dispatchers/src/testing/local-push-service';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';

/** Debian's chromium; `.ci/run` installs it. */
const CHROMIUM = '/usr/bin/chromium';
const required = process.env.HERALD_TEST_REQUIRE_INFRA === '1';
const describeInBrowser = existsSync(CHROMIUM) || required ? describe : describe.skip;
const REPO_ROOT = join(__dirname, '..', '..', '..');

/**
 * The files of `@suprsend/web-sdk` 4.1.2 and its dependencies, served unmodified from
 * node_modules: the SDK's ES build imports bare names, which the page's import map resolves.
 */
const MODULES: Record<string, string> = {
  '@suprsend/web-sdk': 'node_modules/@suprsend/web-sdk/dist/es/index.js',
  mitt: 'node_modules/mitt/dist/mitt.mjs',
  'jwt-decode': 'node_modules/jwt-decode/build/jwt-decode.esm.js',
  'zustand/vanilla': 'node_modules/zustand/esm/vanilla.mjs',
  'socket.io-client': 'node_modules/socket.io-client/dist/socket.io.esm.min.js',
};
/** The SDK's service worker script, which a customer's own `/serviceworker.js` imports. */
const SDK_SERVICE_WORKER = 'node_modules/@suprsend/web-sdk/public/serviceworker.js';

/**
 * A customer's `/serviceworker.js` as SuprSend's docs have it (import the SDK's script,
 * `initSuprSend(publicKey, {host})`), plus a test hook: Chromium's push service (FCM) is
 * not reachable here, so the page hands the worker what the push service would deliver,
 * and the worker dispatches it to the SDK's own `push`, `notificationclick` and
 * `notificationclose` handlers. A script-made event cannot extend its own lifetime, so
 * the hook holds what the handler waits on with the message event instead.
 */
const serviceWorkerScript = (publicKey: string, host: string): string => `importScripts('/${SDK_SERVICE_WORKER}');
initSuprSend(${JSON.stringify(publicKey)}, { host: ${JSON.stringify(host)} });
// The SDK's reports to Herald, so the hook answers once they are answered (with their statuses).
const reports = [];
const sdkFetch = self.fetch.bind(self);
self.fetch = (...args) => {
  const request = sdkFetch(...args);
  reports.push(request.then(async (response) => response.status + ' ' + (await response.clone().text()), (error) => String(error)));
  return request;
};
self.addEventListener('message', (message) => {
  const { kind, payload } = message.data;
  const held = [];
  const dispatch = (event) => { event.waitUntil = (promise) => held.push(promise); self.dispatchEvent(event); };
  message.waitUntil((async () => {
    if (kind === 'push') dispatch(new PushEvent('push', { data: payload }));
    else {
      const [notification] = await self.registration.getNotifications();
      dispatch(new NotificationEvent(kind === 'click' ? 'notificationclick' : 'notificationclose', { notification, action: '' }));
    }
    await Promise.allSettled(held);
    const answered = await Promise.all(reports.splice(0));
    const shown = (await self.registration.getNotifications()).map((n) => ({ title: n.title, body: n.body, data: n.data }));
    message.ports[0].postMessage({ shown, reports: answered });
  })());
});`;

/** A customer's page: the SDK configured only with Herald's host, its user token minted by the customer's backend (`/token`). */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>web sdk</title>
<script type="importmap">${JSON.stringify({ imports: Object.fromEntries(Object.entries(MODULES).map(([name, file]) => [name, `/${file}`])) })}</script>
</head><body><ul id="feed"></ul><script type="module">
  import { SuprSend } from '@suprsend/web-sdk';
  const config = JSON.parse(decodeURIComponent(location.hash.slice(1)));
  window.SuprSend = SuprSend;
  window.config = config;
  window.token = async (user) => (await fetch('/token?user=' + encodeURIComponent(user))).text();
  window.render = (notifications) => {
    document.getElementById('feed').innerHTML = notifications
      .map((n) => '<li>' + (n.read_on ? '' : '<b>•</b> ') + n.message.text + ' <small>' + (n.n_category ?? '') + '</small></li>')
      .join('');
  };
  window.ready = true;
</script></body></html>`;

interface SdkResponse {
  status: 'success' | 'error';
  statusCode?: number;
  body?: unknown;
  error?: { type: string; message: string };
}

describeInBrowser("SuprSend's web SDK 4.1.2 against Herald, in chromium (one embedded Herald)", () => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let backend: Server;
  let backendUrl: string;
  let browser: Browser;
  let page: Page;
  let privateKeyPem: string;
  let serviceWorker = '';

  const management = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const api = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const ok = (response: { status: number; body: unknown }): unknown => {
    if (response.status < 200 || response.status >= 300) throw new Error(`expected a 2xx, got ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const notify = async (distinctId: string, text: string): Promise<void> => {
    expect((await api('POST', 'trigger/', { workflow: 'note', recipients: [{ distinct_id: distinctId }], data: { text } })).status).toBe(202);
  };
  type InboxList = { meta: { unread_count: number; unseen_count: number }; results: Array<{ id: string; body: string; seen_at: string | null; read_at: string | null; clicked_at: string | null; archived_at: string | null }> };
  const storedInbox = async (user: string): Promise<InboxList> => ok(await api('GET', `v1/user/${user}/inbox/?limit=100`)) as InboxList;

  function mintUserToken(claims: Record<string, unknown>): string {
    const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const input = `${part({ alg: 'ES256', typ: 'JWT' })}.${part(claims)}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key: privateKeyPem, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (HERALD_TEST_REQUIRE_INFRA=1 allows no skipped test)`);
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-web-sdk-'));
    const infra = testInfrastructure();
    const database = infra.databaseUrl ? await createTemporaryDatabase(infra.databaseUrl) : undefined;
    dispose = async () => {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
    herald = await startEmbeddedHerald(
      heraldEnv({
        HERALD_DATA_DIR: dataDir,
        ...(database ? { HERALD_DATABASE_URL: database.url } : {}),
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_LOG_LEVEL: 'error',
        // The web push test's push service is a local server.
        HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
      }),
    );
    const served = new Set([...Object.values(MODULES), SDK_SERVICE_WORKER].map((file) => `/${file}`));
    backend = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://backend');
      if (url.pathname === '/token') {
        const now = Math.floor(Date.now() / 1000);
        response.writeHead(200, { 'content-type': 'text/plain' }).end(mintUserToken({ distinct_id: url.searchParams.get('user') ?? '', iat: now, exp: now + 300 }));
      } else if (served.has(url.pathname)) {
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(join(REPO_ROOT, url.pathname)));
      } else if (url.pathname === '/serviceworker.js') {
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(serviceWorker);
      } else if (url.pathname === '/') {
        response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
    privateKeyPem = (ok(await management('POST', 'v1/staging/ws_signing_key/')) as { private_key_pem: string }).private_key_pem;
    const publicKey = (ok(await management('POST', 'v1/staging/ws_public_key/', { name: 'web', allowed_domains: [backendUrl] })) as { api_key: string }).api_key;
    serviceWorker = serviceWorkerScript(publicKey, herald.baseUrl.replace(/\/$/, ''));
    const categories = {
      root_categories: [
        {
          root_category: 'transactional',
          sections: [
            {
              name: 'Updates',
              categories: [
                { category: 'news', name: 'News', default_preference: 'opt_in' },
                { category: 'billing', name: 'Billing', default_preference: 'opt_in' },
              ],
            },
          ],
        },
      ],
    };
    ok(await management('POST', 'v1/staging/preference_category/', categories));
    ok(await management('PATCH', 'v1/staging/preference_category/commit/?commit_message=t'));
    ok(await management('POST', 'v2/staging/template/note/', { name: 'Note', enabled_channels: ['inbox'] }));
    ok(await management('POST', 'v2/staging/template/note/channel/inbox/variant/default/', { locale: 'en', content: { body: '{{text}}' } }));
    ok(await management('PATCH', 'v2/staging/template/note/commit/?commit_message=t'));
    const send = { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'note' }] };
    ok(await management('POST', 'v1/staging/workflow/note/?commit=true&commit_message=t', { name: 'Note', category: 'news', trigger_type: 'api', tree: send }));
    // A tracked event starts this one: what the page tracks reaches the user's feed.
    ok(
      await management('POST', 'v1/staging/workflow/plan-viewed/?commit=true&commit_message=t', {
        name: 'Plan viewed',
        category: 'billing',
        trigger_type: 'event',
        trigger_events: ['Viewed Plan'],
        tree: send,
      }),
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    // Only the host settings: `host` for events and preferences, `apiHost` for the feed.
    const host = herald.baseUrl.replace(/\/$/, '');
    await page.goto(`${backendUrl}/#${encodeURIComponent(JSON.stringify({ publicKey, host }))}`);
    await page.waitForFunction(() => (globalThis as unknown as { ready?: boolean }).ready === true);
    await page.evaluate(async () => {
      const w = globalThis as unknown as Record<string, unknown> & { SuprSend: new (key: string, options: unknown) => unknown; config: { publicKey: string; host: string } };
      w.sdk = new w.SuprSend(w.config.publicKey, { host: w.config.host });
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (backend ? backend.close(resolve) : resolve(undefined)));
    await herald?.stop();
    await dispose?.();
  });

  /** Runs `body` in the page with `sdk` (the SuprSend instance) and `feed` (once initialised) in scope. */
  const inPage = <T>(body: string): Promise<T> => page.evaluate(`(async () => { const w = globalThis; const sdk = w.sdk; const feed = w.feed; ${body} })()`) as Promise<T>;

  it('identifies the user, tracks an event and edits the profile, each stored by Herald', async () => {
    const identified = await inPage<SdkResponse>(`return sdk.identify('alice', await w.token('alice'));`);
    expect(identified).toMatchObject({ status: 'success', statusCode: 202 });
    expect(ok(await api('GET', 'v1/user/alice/'))).toMatchObject({ distinct_id: 'alice' });

    const edits = await inPage<SdkResponse[]>(`return [
      await sdk.user.set({ plan: 'pro' }),
      await sdk.user.increment('visits', 2),
      await sdk.user.append('wishlist', 'lamp'),
      await sdk.user.addEmail('alice@example.com'),
      await sdk.user.setPreferredLanguage('fr'),
      await sdk.user.unset('ss_ignored'),
    ];`);
    // The SDK itself refuses the last one (a reserved key): nothing is sent.
    expect(edits.map((edit) => edit.status)).toEqual(['success', 'success', 'success', 'success', 'success', 'error']);
    const user = ok(await api('GET', 'v1/user/alice/')) as { properties: Record<string, unknown>; $email?: Array<{ value: string }> };
    expect(user.properties).toMatchObject({ plan: 'pro', visits: 2, wishlist: ['lamp'], $locale: 'fr' });
    expect(JSON.stringify(user)).toContain('alice@example.com');

    expect(await inPage<SdkResponse>(`return sdk.track('Viewed Plan', { text: 'you viewed the pro plan' });`)).toMatchObject({ status: 'success' });
    await expectEventually(async () => expect((await storedInbox('alice')).results.map((item) => item.body)).toContain('you viewed the pro plan'));
  });

  it('lists the feed page by page and by store, with its counts', async () => {
    // One at a time: messages stored in the same millisecond share a page (the SDK's cursor
    // is the millisecond), and a loaded machine stores a quick burst in one transaction.
    for (const [index, text] of ['one', 'two', 'three', 'four'].entries()) {
      await notify('alice', text);
      await expectEventually(async () => expect((await storedInbox('alice')).results).toHaveLength(index + 2));
    }
    await notify('bob', "bob's secret");

    const first = await inPage<{ notifications: Array<{ message: { text: string } }>; pageInfo: { total: number; hasMore: boolean }; meta: Record<string, number> }>(`
      w.feed = sdk.feeds.initialize({
        host: { apiHost: w.config.host, socketHost: w.config.host },
        pageSize: 2,
        stores: [{ storeId: 'all' }, { storeId: 'unread', query: { read: false } }, { storeId: 'billing', query: { categories: ['billing'] } }],
      });
      await w.feed.fetch();
      await w.feed.fetchCount();
      return w.feed.data;`);
    expect(first.notifications.map((n) => n.message.text)).toEqual(['four', 'three']);
    expect(first.pageInfo).toMatchObject({ total: 5, hasMore: true });
    expect(first.meta).toEqual({ badge: 5, all: 5, unread: 5, billing: 1 });

    const all = await inPage<{ texts: string[]; hasMore: boolean }>(`
      while (feed.data.pageInfo.hasMore) await feed.fetchNextPage();
      w.render(feed.data.notifications);
      return { texts: feed.data.notifications.map((n) => n.message.text), hasMore: feed.data.pageInfo.hasMore };`);
    expect(all).toEqual({ texts: ['four', 'three', 'two', 'one', 'you viewed the pro plan'], hasMore: false });
    expect(await page.textContent('#feed')).toContain('you viewed the pro plan');
    mkdirSync(join(REPO_ROOT, 'artifacts'), { recursive: true });
    await page.screenshot({ path: join(REPO_ROOT, 'artifacts', 'web-sdk-feed.png') });

    const billing = await inPage<string[]>(`await feed.changeActiveStore('billing'); return feed.data.notifications.map((n) => n.message.text);`);
    expect(billing).toEqual(['you viewed the pro plan']);
    expect(await inPage<string[]>(`await feed.changeActiveStore('all'); return feed.data.notifications.map((n) => n.message.text);`)).toEqual(['four', 'three']);
  });

  it('marks messages seen, read, unread, interacted and archived, in bulk and all read, and resets the badge, as Herald stores them', async () => {
    const byText = async (): Promise<Map<string, InboxList['results'][number]>> => new Map((await storedInbox('alice')).results.map((item) => [item.body, item]));
    const ids = Object.fromEntries([...(await byText())].map(([text, item]) => [text, item.id]));
    const marks = await inPage<SdkResponse[]>(`const ids = ${JSON.stringify(ids)}; return [
      await feed.markAsSeen(ids.one),
      await feed.markAsRead(ids.two),
      await feed.markAsRead(ids.three),
      await feed.markAsUnread(ids.three),
      await feed.markAsInteracted(ids.four),
      await feed.markAsArchived(ids['you viewed the pro plan']),
    ];`);
    expect(marks.map((mark) => mark.status)).toEqual(['success', 'success', 'success', 'success', 'success', 'success']);
    let stored = await byText();
    expect(stored.get('one')).toMatchObject({ seen_at: expect.any(String), read_at: null });
    expect(stored.get('two')).toMatchObject({ read_at: expect.any(String) });
    expect(stored.get('three')).toMatchObject({ read_at: null, seen_at: expect.any(String) });
    expect(stored.get('four')).toMatchObject({ clicked_at: expect.any(String), read_at: expect.any(String) });
    expect(stored.get('you viewed the pro plan')).toMatchObject({ archived_at: expect.any(String) });

    // Every message left has been seen: the badge is 0; one and three are unread.
    expect(await inPage<Record<string, number>>(`await feed.fetchCount(); return feed.data.meta;`)).toEqual({ badge: 0, all: 2, unread: 2, billing: 0 });
    await notify('alice', 'five');
    await expectEventually(async () => expect(await inPage<Record<string, number>>(`await feed.fetchCount(); return feed.data.meta;`)).toMatchObject({ badge: 1, unread: 3 }));
    expect(await inPage<SdkResponse>(`return feed.resetBadgeCount();`)).toMatchObject({ status: 'success' });
    // Still unseen and unread, but from before the bell was opened.
    expect(await inPage<Record<string, number>>(`await feed.fetchCount(); return feed.data.meta;`)).toEqual({ badge: 0, all: 3, unread: 3, billing: 0 });

    const fiveId = (await byText()).get('five')?.id as string;
    expect(await inPage<SdkResponse>(`return feed.markBulkAsSeen([${JSON.stringify(fiveId)}]);`)).toMatchObject({ status: 'success', body: { notification_ids: [fiveId] } });
    expect((await byText()).get('five')).toMatchObject({ seen_at: expect.any(String), read_at: null });
    expect(await inPage<SdkResponse>(`return feed.markAllAsRead();`)).toMatchObject({ status: 'success', body: { updated: 4 } });
    stored = await byText();
    expect([...stored.values()].every((item) => item.read_at !== null)).toBe(true);
    expect(await inPage<Record<string, number>>(`await feed.fetchCount(); return feed.data.meta;`)).toEqual({ badge: 0, all: 0, unread: 0, billing: 0 });
    expect((await storedInbox('bob')).meta).toMatchObject({ unread_count: 1 });
  });

  it('hears over the socket a new message, a mark and mark-all-read from another session, and a badge reset, each shown by the page', async () => {
    const connected = await inPage<boolean>(`
      feed.initializeSocketConnection();
      w.arrived = [];
      feed.emitter.on('feed.new_notification', (n) => w.arrived.push(n.message.text));
      feed.emitter.on('feed.store_update', (data) => w.render(data.notifications));
      for (let i = 0; i < 200 && !feed.socket.connected; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      return feed.socket.connected;`);
    expect(connected).toBe(true);
    const badgeBefore = await inPage<number>(`return feed.data.meta.badge;`);

    await notify('alice', 'arrives by itself');
    await expectEventually(async () => expect(await inPage<string[]>(`return w.arrived;`)).toEqual(['arrives by itself']));
    const first = await inPage<{ text: string; n_id: string; read_on: number | null }>(`const n = feed.data.notifications[0]; return { text: n.message.text, n_id: n.n_id, read_on: n.read_on };`);
    expect(first).toMatchObject({ text: 'arrives by itself', read_on: null });
    expect(await inPage<number>(`return feed.data.meta.badge;`)).toBe(badgeBefore + 1);
    await expectEventually(async () => expect(await page.textContent('#feed')).toContain('• arrives by itself'));

    // Another device of alice's: the same public key and a token of her own, through the feed API.
    const publicKey = await inPage<string>(`return w.config.publicKey;`);
    const now = Math.floor(Date.now() / 1000);
    const otherSession = async (method: string, path: string): Promise<void> => {
      const response = await fetch(`${herald.baseUrl}v1/feed/${path}?distinct_id=alice&tenant_id=default`, {
        method,
        headers: { authorization: publicKey, 'x-ss-signature': mintUserToken({ distinct_id: 'alice', iat: now, exp: now + 300 }), 'content-type': 'application/json' },
      });
      expect(response.status).toBe(200);
    };
    await otherSession('PATCH', `notifications/${first.n_id}/read`);
    await expectEventually(async () => expect(await inPage<number | null>(`return feed.data.notifications.find((n) => n.n_id === ${JSON.stringify(first.n_id)}).read_on;`)).toEqual(expect.any(Number)));
    await expectEventually(async () => expect(await page.textContent('#feed')).not.toContain('• arrives by itself'));

    await otherSession('PATCH', `notifications/${first.n_id}/unread`);
    await notify('alice', 'one more');
    await expectEventually(async () => expect(await inPage<string[]>(`return w.arrived;`)).toEqual(['arrives by itself', 'one more']));
    await otherSession('PATCH', 'mark_all_read');
    await expectEventually(async () => expect(await inPage<boolean>(`return feed.data.notifications.every((n) => n.read_on !== null);`)).toBe(true));
    expect(await inPage<Record<string, number>>(`return feed.data.meta;`)).toMatchObject({ unread: 0 });

    await notify('alice', 'and another');
    await expectEventually(async () => expect(await inPage<number>(`return feed.data.meta.badge;`)).toBeGreaterThan(0));
    await otherSession('PATCH', 'reset_bell_count');
    await expectEventually(async () => expect(await inPage<number>(`return feed.data.meta.badge;`)).toBe(0));
    // Herald stored what the page shows.
    expect((await storedInbox('alice')).results.find((item) => item.body === 'one more')).toMatchObject({ read_at: expect.any(String) });
    mkdirSync(join(REPO_ROOT, 'artifacts'), { recursive: true });
    await page.screenshot({ path: join(REPO_ROOT, 'artifacts', 'web-sdk-feed-realtime.png') });
  });

  it("reads the user's preferences and updates a category and a channel, as Herald stores them", async () => {
    const read = await inPage<SdkResponse & { body: { sections: Array<{ subcategories?: Array<{ category: string; preference: string }> }> } }>(
      `return sdk.user.preferences.getPreferences();`,
    );
    expect(read.status).toBe('success');
    expect(read.body.sections.flatMap((section) => section.subcategories ?? [])).toContainEqual(expect.objectContaining({ category: 'news', preference: 'opt_in' }));

    const updated = await inPage<{ immediate: SdkResponse; event: string }>(`
      const event = new Promise((resolve) => {
        sdk.emitter.on('preferences_updated', () => resolve('preferences_updated'));
        sdk.emitter.on('preferences_error', (error) => resolve('preferences_error: ' + JSON.stringify(error)));
      });
      const immediate = await sdk.user.preferences.updateCategoryPreference('news', 'opt_out');
      return { immediate, event: await event };`);
    expect(updated).toMatchObject({ immediate: { status: 'success' }, event: 'preferences_updated' });
    expect(ok(await api('GET', 'v1/user/alice/preference/category/news/'))).toMatchObject({ preference: 'opt_out' });

    const channel = await inPage<string>(`
      const event = new Promise((resolve) => {
        sdk.emitter.on('preferences_updated', () => resolve('preferences_updated'));
        sdk.emitter.on('preferences_error', (error) => resolve('preferences_error: ' + JSON.stringify(error)));
      });
      const first = sdk.user.preferences.data.channel_preferences[0].channel;
      await sdk.user.preferences.updateOverallChannelPreference(first, 'required');
      w.restrictedChannel = first;
      return event;`);
    expect(channel).toBe('preferences_updated');
    const restrictedChannel = await inPage<string>(`return w.restrictedChannel;`);
    expect(ok(await api('GET', 'v1/user/alice/preference/channel_preference/'))).toMatchObject({
      channel_preferences: expect.arrayContaining([{ channel: restrictedChannel, is_restricted: true }]),
    });
    ok(await api('POST', 'v1/user/bob/', { name: 'Bob' }));
    expect(ok(await api('GET', 'v1/user/bob/preference/category/news/'))).toMatchObject({ preference: 'opt_in' });
  });

  it('registers web push through the SDK; a Herald webpush delivery, VAPID-signed and encrypted, is shown by the service worker, whose delivered and clicked events reach the message log', async () => {
    // The browser's side of the subscription: its keys decrypt what is pushed to it.
    const browserKeys = createECDH('prime256v1');
    browserKeys.generateKeys();
    const authSecret = randomBytes(16);
    const pushService = await LocalPushService.start({ ecdh: browserKeys, authSecret });
    try {
      const vapid = webpush.generateVAPIDKeys();
      ok(await management('PUT', 'v1/staging/vendor/webpush/vapid/', { priority: 1, credentials: { public_key: vapid.publicKey, private_key: vapid.privateKey, subject: 'mailto:push@example.com' } }));
      ok(await management('POST', 'v2/staging/template/browser-push/', { name: 'Browser push', enabled_channels: ['webpush'] }));
      ok(await management('POST', 'v2/staging/template/browser-push/channel/webpush/variant/default/', { locale: 'en', content: { title: 'Order {{order}}', body: 'Shipped today', url: `${backendUrl}/orders/{{order}}` } }));
      ok(await management('PATCH', 'v2/staging/template/browser-push/commit/?commit_message=t'));
      ok(
        await management('POST', 'v1/staging/workflow/browser-push/?commit=true&commit_message=t', {
          name: 'Browser push',
          category: 'news',
          trigger_type: 'api',
          tree: { nodes: [{ name: 'Push', node_type: 'send_webpush', template: 'browser-push' }] },
        }),
      );
      await page.context().grantPermissions(['notifications'], { origin: backendUrl });

      // The customer's page: the SDK with its VAPID key. Only `pushManager.subscribe` stands
      // in (FCM is unreachable), answering a subscription whose endpoint is the local push service.
      const subscription = { endpoint: `${pushService.url}/push/dora`, expirationTime: null, keys: { p256dh: browserKeys.getPublicKey().toString('base64url'), auth: authSecret.toString('base64url') } };
      const registered = await inPage<{ result: SdkResponse; applicationServerKey: string; scriptURL: string }>(`
        const subscription = ${JSON.stringify(subscription)};
        let applicationServerKey = '';
        PushManager.prototype.subscribe = async function (options) {
          applicationServerKey = btoa(String.fromCharCode(...new Uint8Array(options.applicationServerKey))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
          return { ...subscription, toJSON: () => subscription };
        };
        const pushSdk = new w.SuprSend(w.config.publicKey, { host: w.config.host, vapidKey: ${JSON.stringify(vapid.publicKey)} });
        await pushSdk.identify('dora', await w.token('dora'));
        const result = await pushSdk.webpush.registerPush();
        const registration = await navigator.serviceWorker.ready;
        return { result, applicationServerKey, scriptURL: registration.active.scriptURL };`);
      expect(registered).toEqual({ result: expect.objectContaining({ status: 'success' }), applicationServerKey: vapid.publicKey, scriptURL: `${backendUrl}/serviceworker.js` });
      // Herald stored the subscription of the SDK's $webpush (its $device_id dropped).
      await expectEventually(async () => expect(JSON.stringify(ok(await api('GET', 'v1/user/dora/')))).toContain(subscription.endpoint));

      const triggered = ok(await api('POST', 'trigger/', { workflow: 'browser-push', recipients: [{ distinct_id: 'dora' }], data: { order: '42' } })) as { message_id: string };
      await expectEventually(async () => expect(pushService.received).toHaveLength(1));
      const [push] = pushService.received;
      // Signed with the vendor's VAPID key for the push service's origin; decrypted with the subscription's keys.
      expect(push.vapid).toEqual({ publicKey: vapid.publicKey, claims: expect.objectContaining({ aud: pushService.url, sub: 'mailto:push@example.com' }) });
      expect(push.headers['content-encoding']).toBe('aes128gcm');
      const payload = JSON.parse(push.payload) as { title: string; body: string; data: { notification_id: string; launch_urls: { default: string } } };
      expect(payload).toMatchObject({ title: 'Order 42', body: 'Shipped today', data: { launch_urls: { default: `${backendUrl}/orders/42` } } });
      type LogRow = { message_id: string; channel: string; status: string };
      const logRow = async (): Promise<LogRow | undefined> =>
        (ok(await api('GET', `v1/message/?message_id=${triggered.message_id}`)) as { results: LogRow[] }).results.find((row) => row.channel === 'webpush');
      await expectEventually(async () => expect(await logRow()).toMatchObject({ message_id: payload.data.notification_id, status: 'sent_by_vendor' }));

      // The decrypted payload, to the SDK's service worker as the push service would hand it over.
      const toWorker = (kind: string, data?: string): Promise<{ shown: Array<{ title: string; body: string; data: unknown }>; reports: string[] }> =>
        inPage(`
          const registration = await navigator.serviceWorker.ready;
          const channel = new MessageChannel();
          const answer = new Promise((resolve) => { channel.port1.onmessage = (event) => resolve(event.data); });
          registration.active.postMessage({ kind: ${JSON.stringify(kind)}, payload: ${JSON.stringify(data ?? null)} }, [channel.port2]);
          return answer;`);
      // The SDK's handler shows the notification and reports it delivered (Herald answers 202).
      expect(await toWorker('push', push.payload)).toEqual({ shown: [{ title: 'Order 42', body: 'Shipped today', data: payload.data }], reports: ['202 {"message":"OK"}'] });
      await expectEventually(async () => expect(await logRow()).toMatchObject({ status: 'delivered' }));
      // A click closes it and reports it clicked.
      expect(await toWorker('click')).toEqual({ shown: [], reports: ['202 {"message":"OK"}'] });
      await expectEventually(async () => expect(await logRow()).toMatchObject({ status: 'clicked' }));
      // A dismissal is accepted and recorded nowhere; a late delivered changes nothing.
      const serviceWorkerEvent = (event: string) =>
        fetch(`${herald.baseUrl}v2/event`, {
          method: 'POST',
          headers: { authorization: inPageKey, 'content-type': 'application/json', origin: backendUrl },
          body: JSON.stringify({ event, $time: Date.now(), properties: { id: payload.data.notification_id } }),
        });
      const inPageKey = await inPage<string>(`return w.config.publicKey;`);
      expect((await serviceWorkerEvent('$notification_dismiss')).status).toBe(202);
      expect((await serviceWorkerEvent('$notification_delivered')).status).toBe(202);
      // Without a user token, only the service worker's events are taken.
      expect((await serviceWorkerEvent('Viewed Plan')).status).toBe(401);
      expect(await logRow()).toMatchObject({ status: 'clicked' });
    } finally {
      await pushService.close();
    }
  });
});
