import { createHmac, randomBytes, sign } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { Browser, Page, chromium } from 'playwright-core';
import { createTemporaryDatabase, expectEventually, fetchJson, heraldEnv, testInfrastructure } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';

/** Debian's chromium; `.ci/run` installs it. */
const CHROMIUM = '/usr/bin/chromium';
const required = process.env.HERALD_TEST_REQUIRE_INFRA === '1';
const describeInBrowser = existsSync(CHROMIUM) || required ? describe : describe.skip;
const REPO_ROOT = join(__dirname, '..', '..', '..');

/**
 * A customer's page, as their docs show it: `@suprsend/react-inbox` 3.9.0's `<SuprSendInbox>`
 * (workspace key, distinct id and the subscriber id the backend made), and `@suprsend/react`
 * 0.3.5's `<SuprSendProvider>` with its `<Inbox>` and a preference centre on
 * `useSuprSendClient()` (0.3.5 has no preference components), every host pointed at Herald.
 * Bundled by vite at test time, the packages unmodified from node_modules.
 */
const PAGE_SCRIPT = `
import React, { createElement as h, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import SuprSendInbox from '@suprsend/react-inbox';
import 'react-toastify/dist/ReactToastify.css';
import { SuprSendProvider, Inbox, useSuprSendClient, useAuthenticateUser } from '@suprsend/react';

const config = await (await fetch('/config')).json();

function Preferences() {
  const client = useSuprSendClient();
  const { authenticatedUser } = useAuthenticateUser();
  const [categories, setCategories] = useState(null);
  useEffect(() => {
    if (!client || !authenticatedUser) return;
    const show = () => setCategories((client.user.preferences.data?.sections ?? []).flatMap((section) => section.subcategories ?? []));
    client.emitter.on('preferences_updated', show);
    client.user.preferences.getPreferences().then(show);
    return () => client.emitter.off('preferences_updated', show);
  }, [client, authenticatedUser]);
  if (!categories) return h('p', null, 'loading preferences');
  return h('ul', { id: 'preference-list' }, categories.map((category) =>
    h('li', { key: category.category },
      h('label', null,
        h('input', {
          type: 'checkbox',
          'data-category': category.category,
          checked: category.preference === 'opt_in',
          onChange: (event) => client.user.preferences.updateCategoryPreference(category.category, event.target.checked ? 'opt_in' : 'opt_out'),
        }),
        ' ' + category.name))));
}

function App() {
  const legacyHost = config.host + '/js-inbox';
  // Side by side, so neither popover covers the other's bell.
  return h('div', { style: { display: 'flex', gap: '560px', padding: '16px' } },
    h('section', { id: 'legacy' },
      h(SuprSendInbox, {
        workspaceKey: config.workspaceKey,
        distinctId: config.legacy.distinctId,
        subscriberId: config.legacy.subscriberId,
        host: { apiHost: legacyHost, socketHost: legacyHost, collectorHost: legacyHost },
      })),
    h(SuprSendProvider, { publicApiKey: config.modern.publicKey, distinctId: config.modern.distinctId, userToken: config.modern.userToken, host: config.host },
      h('section', { id: 'modern' }, h(Inbox, { pageSize: 20, host: { apiHost: config.host, socketHost: config.host } })),
      h('section', { id: 'preferences' }, h(Preferences))));
}

createRoot(document.getElementById('root')).render(h(App));
`;

const CONTENT_TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.svg': 'image/svg+xml' };

describeInBrowser("SuprSend's React packages against Herald, in chromium: @suprsend/react-inbox 3.9.0 and @suprsend/react 0.3.5 (one embedded Herald)", () => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const workspaceKey = `wk_${randomBytes(16).toString('hex')}`;
  const workspaceSecret = `ws_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let backend: Server;
  let backendUrl: string;
  let browser: Browser;
  let page: Page;

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
  type Stored = Array<{ id: string; body: string; seen_at: string | null; read_at: string | null; clicked_at: string | null; archived_at: string | null }>;
  const stored = async (user: string): Promise<Stored> => (ok(await api('GET', `v1/user/${user}/inbox/?limit=100`)) as { results: Stored }).results;
  /** One at a time, each stored before the next: the lists' order is the order sent. */
  const notify = async (user: string, text: string): Promise<void> => {
    const before = (await stored(user)).length;
    expect((await api('POST', 'trigger/', { workflow: 'note', recipients: [{ distinct_id: user }], data: { text } })).status).toBe(202);
    await expectEventually(async () => expect(await stored(user)).toHaveLength(before + 1));
  };
  /** The subscriber id the customer's backend makes (SuprSend's `hmac_rawurlsafe_base64_string`). */
  const subscriberIdOf = (user: string): string => createHmac('sha256', workspaceSecret).update(user).digest('base64url');
  const legacyBellCount = async (): Promise<number> => {
    const response = await fetch(`${herald.baseUrl}js-inbox/notification_count/?distinct_id=lee&subscriber_id=${subscriberIdOf('lee')}&tenant_id=default`, { headers: { authorization: `${workspaceKey}:` } });
    return ((await response.json()) as { ss_bell_count: number }).ss_bell_count;
  };

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (HERALD_TEST_REQUIRE_INFRA=1 allows no skipped test)`);
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-react-inbox-'));
    // Inside the repository, so the bundler resolves the packages from its node_modules.
    mkdirSync(join(REPO_ROOT, 'node_modules', '.cache'), { recursive: true });
    const pageDir = mkdtempSync(join(REPO_ROOT, 'node_modules', '.cache', 'herald-react-inbox-page-'));
    const infra = testInfrastructure();
    const database = infra.databaseUrl ? await createTemporaryDatabase(infra.databaseUrl) : undefined;
    dispose = async () => {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(pageDir, { recursive: true, force: true });
    };
    writeFileSync(join(pageDir, 'page.js'), PAGE_SCRIPT);
    writeFileSync(join(pageDir, 'index.html'), '<!doctype html><html><head><meta charset="utf-8"><title>inbox</title></head><body><div id="root"></div><script type="module" src="./page.js"></script></body></html>');
    writeFileSync(
      join(pageDir, 'vite.config.mjs'),
      `export default ${JSON.stringify({
        root: pageDir,
        logLevel: 'warn',
        // The packages' own copies of react-dom (npm nests 18.x under them for react-popper's peer range) would break React 19's.
        resolve: { dedupe: ['react', 'react-dom'] },
        define: { 'process.env.NODE_ENV': '"production"' },
        build: { outDir: join(pageDir, 'dist'), emptyOutDir: true, minify: false, target: 'esnext', reportCompressedSize: false },
      })};`,
    );
    const bundling = promisify(execFile)(process.execPath, [join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', join(pageDir, 'vite.config.mjs')], { cwd: pageDir });
    herald = await startEmbeddedHerald(
      heraldEnv({
        HERALD_DATA_DIR: dataDir,
        ...(database ? { HERALD_DATABASE_URL: database.url } : {}),
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_BOOTSTRAP_WORKSPACE_KEY: workspaceKey,
        HERALD_BOOTSTRAP_WORKSPACE_SECRET: workspaceSecret,
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    await bundling;
    let privateKeyPem = '';
    let publicKey = '';
    // The customer's backend: the page, and the credentials it makes for its signed-in users.
    backend = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://backend');
      if (url.pathname === '/config') {
        const now = Math.floor(Date.now() / 1000);
        const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
        const input = `${part({ alg: 'ES256', typ: 'JWT' })}.${part({ distinct_id: 'mona', iat: now, exp: now + 600 })}`;
        const userToken = `${input}.${sign('sha256', Buffer.from(input), { key: privateKeyPem, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
        const config = { host: herald.baseUrl.replace(/\/$/, ''), workspaceKey, legacy: { distinctId: 'lee', subscriberId: subscriberIdOf('lee') }, modern: { publicKey, distinctId: 'mona', userToken } };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(config));
        return;
      }
      const file = join(pageDir, 'dist', url.pathname === '/' ? 'index.html' : url.pathname);
      if (!file.startsWith(join(pageDir, 'dist')) || !existsSync(file)) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
    privateKeyPem = (ok(await management('POST', 'v1/staging/ws_signing_key/')) as { private_key_pem: string }).private_key_pem;
    // The page's origin: a public key allows it, for both packages (the workspace key has no origins of its own).
    publicKey = (ok(await management('POST', 'v1/staging/ws_public_key/', { name: 'web', allowed_domains: [backendUrl] })) as { api_key: string }).api_key;
    const categories = { root_categories: [{ root_category: 'transactional', sections: [{ name: 'Updates', categories: [{ category: 'news', name: 'News', default_preference: 'opt_in' }] }] }] };
    ok(await management('POST', 'v1/staging/preference_category/', categories));
    ok(await management('PATCH', 'v1/staging/preference_category/commit/?commit_message=t'));
    ok(await management('POST', 'v2/staging/template/note/', { name: 'Note', enabled_channels: ['inbox'] }));
    ok(await management('POST', 'v2/staging/template/note/channel/inbox/variant/default/', { locale: 'en', content: { body: '{{text}}' } }));
    ok(await management('PATCH', 'v2/staging/template/note/commit/?commit_message=t'));
    ok(await management('POST', 'v1/staging/workflow/note/?commit=true&commit_message=t', { name: 'Note', category: 'news', trigger_type: 'api', tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'note' }] } }));
    await notify('lee', 'first for lee');
    await notify('lee', 'second for lee');
    await notify('mona', 'hello mona');

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.goto(backendUrl);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (backend ? backend.close(resolve) : resolve(undefined)));
    await herald?.stop();
    await dispose?.();
  });

  const legacy = () => page.locator('#legacy');
  const modern = () => page.locator('#modern');

  it("react-inbox 3.9.0: the bell's count, a message arriving live (bell and toast), the list, mark read, a click and mark all read, as Herald stores them", async () => {
    await expectEventually(async () => expect(await legacy().getByText('2', { exact: true }).count()).toBe(1));
    await notify('lee', 'third for lee');
    // Over the js-inbox socket: the bell counts it and a toast shows it.
    await expectEventually(async () => expect(await legacy().getByText('3', { exact: true }).count()).toBe(1));
    await expectEventually(async () => expect(await page.locator('.Toastify').textContent()).toContain('third for lee'));

    // Opening the bell shows the list, newest first, and resets the bell's count in Herald.
    await legacy().locator('svg').first().click();
    await expectEventually(async () => expect(await legacy().getByText('Mark all as read').count()).toBe(1));
    const text = (await legacy().textContent()) ?? '';
    expect(text.indexOf('third for lee')).toBeLessThan(text.indexOf('second for lee'));
    expect(text.indexOf('second for lee')).toBeLessThan(text.indexOf('first for lee'));
    await expectEventually(async () => expect(await legacyBellCount()).toBe(0));
    expect(await legacy().getByText('3', { exact: true }).count()).toBe(0);
    mkdirSync(join(REPO_ROOT, 'artifacts'), { recursive: true });
    await page.screenshot({ path: join(REPO_ROOT, 'artifacts', 'react-inbox-3.9.0.png') });

    const byText = async (): Promise<Map<string, Stored[number]>> => new Map((await stored('lee')).map((item) => [item.body, item]));
    // The message's menu: Mark as read.
    await legacy().getByText('second for lee').hover();
    await legacy().locator('svg:has(path[d^="M12 13C12.5523"])').locator('visible=true').click();
    await legacy().getByText('Mark as read', { exact: true }).locator('visible=true').click();
    await expectEventually(async () => expect((await byText()).get('second for lee')).toMatchObject({ read_at: expect.any(String) }));
    expect((await byText()).get('first for lee')).toMatchObject({ read_at: null });

    // A click on a message: clicked (and read), reported as SuprSend's collector receives it.
    await legacy().getByText('first for lee').click();
    await expectEventually(async () => expect((await byText()).get('first for lee')).toMatchObject({ clicked_at: expect.any(String), read_at: expect.any(String) }));

    await legacy().getByText('Mark all as read').click();
    await expectEventually(async () => expect([...(await byText()).values()].every((item) => item.read_at !== null)).toBe(true));
    // A click outside closes the popover.
    await page.mouse.click(5, 700);
    await expectEventually(async () => expect(await legacy().getByText('Mark all as read').count()).toBe(0));
  });

  it("@suprsend/react 0.3.5: its Inbox's bell, a live message, the list and mark all read; its preference toggle, as Herald stores them", async () => {
    await expectEventually(async () => expect(await modern().getByText('1', { exact: true }).count()).toBe(1));
    await notify('mona', 'again mona');
    await expectEventually(async () => expect(await modern().getByText('2', { exact: true }).count()).toBe(1));

    await modern().locator('svg').first().click();
    await expectEventually(async () => expect(await modern().getByText('again mona').count()).toBe(1));
    const text = (await modern().textContent()) ?? '';
    expect(text.indexOf('again mona')).toBeLessThan(text.indexOf('hello mona'));
    await page.screenshot({ path: join(REPO_ROOT, 'artifacts', 'suprsend-react-inbox.png') });
    await modern().getByText('Mark all as read').click();
    await expectEventually(async () => expect((await stored('mona')).every((item) => item.read_at !== null)).toBe(true));
    expect(await stored('lee')).toHaveLength(3);

    const news = page.locator('#preferences input[data-category="news"]');
    await expectEventually(async () => expect(await news.isChecked()).toBe(true));
    await news.click();
    await expectEventually(async () => expect(ok(await api('GET', 'v1/user/mona/preference/category/news/'))).toMatchObject({ preference: 'opt_out' }));
    await expectEventually(async () => expect(await news.isChecked()).toBe(false));
  });
});
