import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, Page, chromium } from 'playwright-core';
import { createTemporaryDatabase, expectEventually, fetchJson, heraldEnv, testInfrastructure } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';

/** Debian's chromium; `.ci/run` installs it. */
const CHROMIUM = '/usr/bin/chromium';
const required = process.env.HERALD_TEST_REQUIRE_INFRA === '1';
// Without chromium the suite is skipped locally (and reported so), and fails in CI.
const describeInBrowser = existsSync(CHROMIUM) || required ? describe : describe.skip;

/**
 * What a customer's web page does (issue 17): it gets a user token from its own backend
 * and calls Herald's inbox with the workspace public key and that token, from another
 * origin than Herald's, so CORS is real. The test backend serves the page and mints the
 * tokens with the signing key's private PEM, as the README shows.
 */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>inbox</title></head><body><script>
  const config = JSON.parse(decodeURIComponent(location.hash.slice(1)));
  window.events = [];
  const token = async (query) => (await fetch('/token?' + query)).text();
  const call = async (method, path, userToken, body) => {
    const response = await fetch(config.herald + path, {
      method,
      headers: { authorization: config.publicKey, 'x-ss-signature': userToken, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: await response.json() };
  };
  window.inbox = {
    token,
    list: async (user, userToken) => call('GET', 'v1/user/' + encodeURIComponent(user) + '/inbox/', userToken),
    markRead: async (user, id, userToken) => call('PATCH', 'v1/user/' + encodeURIComponent(user) + '/inbox/' + id + '/', userToken, { read: true }),
    preferences: async (user, userToken) => call('GET', 'v1/user/' + encodeURIComponent(user) + '/preference/', userToken),
    optOut: async (user, category, userToken) =>
      call('PATCH', 'v1/user/' + encodeURIComponent(user) + '/preference/category/' + category + '/', userToken, { preference: 'opt_out' }),
    subscribe: (user, userToken) =>
      new Promise((resolve, reject) => {
        const source = new EventSource(config.herald + 'v1/user/' + encodeURIComponent(user) + '/inbox/stream/?public_key=' + encodeURIComponent(config.publicKey) + '&token=' + userToken);
        source.addEventListener('ready', (event) => resolve(JSON.parse(event.data)));
        source.addEventListener('item', (event) => window.events.push(JSON.parse(event.data)));
        source.onerror = () => reject(new Error('event stream failed'));
      }),
  };
</script></body></html>`;

describeInBrowser('the in-app inbox in a real browser (chromium, one embedded Herald)', () => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let backend: Server;
  let backendUrl: string;
  let browser: Browser;
  let page: Page;
  let publicKey: string;
  let privateKeyPem: string;

  const management = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const ok = (response: { status: number; body: unknown }): unknown => {
    expect({ success: response.status >= 200 && response.status < 300, body: response.body }).toMatchObject({ success: true });
    return response.body;
  };
  const notify = async (distinctId: string, text: string): Promise<void> => {
    const response = await fetchJson(`${herald.baseUrl}trigger/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workflow: 'note', recipients: [{ distinct_id: distinctId }], data: { text } }),
    });
    expect(response.status).toBe(202);
  };

  /** The customer's backend: mints an ES256 user token for the signed-in user. */
  function mintUserToken(claims: Record<string, unknown>, key: string = privateKeyPem): string {
    const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const input = `${part({ alg: 'ES256', typ: 'JWT' })}.${part(claims)}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (HERALD_TEST_REQUIRE_INFRA=1 allows no skipped test)`);
    // One embedded Herald on the in-process bus; on the configured Postgres when there is one (it starts far faster than PGlite).
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-browser-inbox-'));
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
      }),
    );
    const forger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    backend = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://backend');
      if (url.pathname === '/token') {
        const now = Math.floor(Date.now() / 1000);
        const user = url.searchParams.get('user') ?? '';
        const expired = url.searchParams.has('expired');
        const claims = { distinct_id: user, iat: expired ? now - 600 : now, exp: expired ? now - 60 : now + 300 };
        response.writeHead(200, { 'content-type': 'text/plain' }).end(mintUserToken(claims, url.searchParams.has('forged') ? forger : privateKeyPem));
      } else {
        response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      }
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
    // The keys, as the README shows: a public key for the page's origin and the signing key.
    privateKeyPem = (ok(await management('POST', 'v1/staging/ws_signing_key/')) as { private_key_pem: string }).private_key_pem;
    publicKey = (ok(await management('POST', 'v1/staging/ws_public_key/', { name: 'web', allowed_domains: [backendUrl] })) as { api_key: string }).api_key;
    const categories = { root_categories: [{ root_category: 'transactional', sections: [{ name: 'News', categories: [{ category: 'news', name: 'News', default_preference: 'opt_in' }] }] }] };
    ok(await management('POST', 'v1/staging/preference_category/', categories));
    ok(await management('PATCH', 'v1/staging/preference_category/commit/?commit_message=t'));
    ok(await management('POST', 'v2/staging/template/note/', { name: 'Note', enabled_channels: ['inbox'] }));
    ok(await management('POST', 'v2/staging/template/note/channel/inbox/variant/default/', { locale: 'en', content: { body: '{{text}}' } }));
    ok(await management('PATCH', 'v2/staging/template/note/commit/?commit_message=t'));
    ok(
      await management('POST', 'v1/staging/workflow/note/?commit=true&commit_message=t', {
        name: 'Note',
        category: 'news',
        trigger_type: 'api',
        tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'note' }] },
      }),
    );
    await notify('alice', 'welcome, alice');
    await notify('bob', "bob's secret");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
    await page.goto(`${backendUrl}/#${encodeURIComponent(JSON.stringify({ herald: herald.baseUrl, publicKey }))}`);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (backend ? backend.close(resolve) : resolve(undefined)));
    await herald?.stop();
    await dispose?.();
  });

  type Answer = { status: number; body: { meta?: Record<string, number>; results?: Array<{ id: string; body: string; read_at: string | null }>; message?: string } };

  it("lists the signed-in user's inbox and marks a message read, with only the public key and a user token", async () => {
    const listed = await expectEventually(async () => {
      const answer = await page.evaluate(async () => {
        const w = globalThis as unknown as { inbox: { token(q: string): Promise<string>; list(u: string, t: string): Promise<unknown> } };
        return w.inbox.list('alice', await w.inbox.token('user=alice'));
      }) as Answer;
      expect(answer).toMatchObject({ status: 200, body: { meta: { unread_count: 1, unseen_count: 1 }, results: [{ body: 'welcome, alice' }] } });
      return answer;
    });
    const id = listed.body.results?.[0].id as string;
    const read = (await page.evaluate(async (itemId) => {
      const w = globalThis as unknown as { inbox: { token(q: string): Promise<string>; markRead(u: string, i: string, t: string): Promise<unknown> } };
      return w.inbox.markRead('alice', itemId, await w.inbox.token('user=alice'));
    }, id)) as Answer;
    expect(read.status).toBe(200);
    expect((read.body as unknown as { read_at: string | null }).read_at).not.toBeNull();
    const after = (await page.evaluate(async () => {
      const w = globalThis as unknown as { inbox: { token(q: string): Promise<string>; list(u: string, t: string): Promise<unknown> } };
      return w.inbox.list('alice', await w.inbox.token('user=alice'));
    })) as Answer;
    expect(after.body.meta).toMatchObject({ unread_count: 0, unseen_count: 0 });
  });

  it('receives a new message pushed while the page is open', async () => {
    const ready = await page.evaluate(async () => {
      const w = globalThis as unknown as { inbox: { token(q: string): Promise<string>; subscribe(u: string, t: string): Promise<unknown> } };
      return w.inbox.subscribe('alice', await w.inbox.token('user=alice'));
    });
    expect(ready).toEqual({ unseen_count: 0, unread_count: 0 });
    await notify('alice', 'pushed while you watched');
    await page.waitForFunction(() => (globalThis as unknown as { events: Array<{ body: string }> }).events.some((item) => item.body === 'pushed while you watched'));
  });

  it("reads the signed-in user's preferences and opts out of a category, seen by the backend too", async () => {
    const api = (method: string, path: string, body?: unknown) =>
      fetchJson(`${herald.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    // The customer's backend keeps its users' profiles.
    expect((await api('POST', 'v1/user/alice/', { name: 'Alice' })).status).toBeLessThan(300);
    const answers = (await page.evaluate(async () => {
      const w = globalThis as unknown as { inbox: Record<string, (...args: string[]) => Promise<unknown>> };
      const userToken = (await w.inbox.token('user=alice')) as string;
      return { read: await w.inbox.preferences('alice', userToken), optOut: await w.inbox.optOut('alice', 'news', userToken), bobs: await w.inbox.preferences('bob', userToken) };
    })) as Record<string, { status: number; body: unknown }>;
    expect(answers.read.status).toBe(200);
    expect(JSON.stringify(answers.read.body)).toContain('"news"');
    expect(answers.optOut).toMatchObject({ status: 202, body: { category: 'news', preference: 'opt_out' } });
    expect(answers.bobs.status).toBe(403);
    expect(await api('GET', 'v1/user/alice/preference/category/news/')).toMatchObject({ status: 200, body: { preference: 'opt_out' } });
  });

  it("cannot read another user's inbox, nor use an expired or wrongly signed token", async () => {
    const answers = (await page.evaluate(async () => {
      const w = globalThis as unknown as { inbox: { token(q: string): Promise<string>; list(u: string, t: string): Promise<unknown> } };
      return {
        bobsInbox: await w.inbox.list('bob', await w.inbox.token('user=alice')),
        expired: await w.inbox.list('alice', await w.inbox.token('user=alice&expired')),
        forged: await w.inbox.list('alice', await w.inbox.token('user=alice&forged')),
      };
    })) as Record<string, Answer>;
    expect(answers.bobsInbox).toMatchObject({ status: 403, body: { message: "the user token does not grant this user's inbox" } });
    expect(JSON.stringify(answers.bobsInbox)).not.toContain("bob's secret");
    expect(answers.expired).toMatchObject({ status: 401, body: { message: 'user token expired' } });
    expect(answers.forged).toMatchObject({ status: 401, body: { message: 'user token signature does not verify with the workspace signing key' } });
  });
});
