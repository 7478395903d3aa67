import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { IncomingMessage, Server, ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, chromium } from 'playwright-core';
import { EngagementLinks } from '@herald/runtime';
import { createTemporaryDatabase, expectEventually, fetchJson, heraldEnv, testInfrastructure } from '@herald/testing';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { LocalSmtpServer } from '../../../libs/services/channel-dispatchers/src/testing/local-smtp-server';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';

/** Debian's chromium; `.ci/run` installs it. */
const CHROMIUM = '/usr/bin/chromium';
const required = process.env.HERALD_TEST_REQUIRE_INFRA === '1';
const describeInBrowser = existsSync(CHROMIUM) || required ? describe : describe.skip;

const EMAIL_HTML = `<html><body><h1>Hi {{name}}</h1>
<p><a href="{{shop}}/landing?item=42&amp;ref=mail#top">See the offer</a></p>
<p><a href="mailto:help@shop.example">Write to us</a> <a href="{{shop}}/second">Second link</a></p>
</body></html>`;

type Message = { message_id: string; trigger_message_id: string; channel: string; status: string; seen_at: string | null; clicked_at: string | null };

/** The HTML part of a raw message, its transfer encoding undone. */
function htmlOf(raw: string): string {
  const part = raw.split(/\r\n--/).find((chunk) => /Content-Type: text\/html/i.test(chunk)) ?? raw;
  const [head, ...rest] = part.split('\r\n\r\n');
  const body = rest.join('\r\n\r\n').replace(/\r\n--[^\r\n]*--\r\n$/, '');
  if (/Content-Transfer-Encoding: base64/i.test(head)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/Content-Transfer-Encoding: quoted-printable/i.test(head)) {
    return Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
  }
  return body;
}

/** The header's value in a raw message (unfolded). */
function headerOf(raw: string, name: string): string | undefined {
  const head = raw.split('\r\n\r\n')[0].replace(/\r\n[ \t]+/g, ' ');
  return head.split('\r\n').find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))?.slice(name.length + 1).trim();
}

/**
 * Email engagement end to end, one embedded Herald: an email goes to the test's SMTP
 * server; chromium opens it from a local page (the public host, which also passes
 * `/v1/` to Herald as a reverse proxy would), loads the pixel and clicks a link; the
 * message log shows it seen and clicked. The List-Unsubscribe one-click POST (fetch, as
 * a mail client sends it) opts the user out, so the next trigger of that category sends
 * nothing; the hosted page shows the choice and changes it back. Forged, expired and
 * foreign tokens are refused, and the click route goes nowhere but the email's link.
 */
describeInBrowser('email engagement: open pixel, tracked links, List-Unsubscribe (one embedded Herald, chromium)', () => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const secretsKey = randomBytes(32);
  let herald: EmbeddedHerald;
  let smtp: LocalSmtpServer;
  let site: Server;
  let siteUrl: string;
  let browser: Browser;
  let links: EngagementLinks;
  let dispose: () => Promise<void>;
  const landings: string[] = [];
  let mailHtml = '';

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
  const trigger = async (): Promise<string> => {
    const accepted = ok(
      await api('POST', 'trigger/', { workflow: 'offer', recipients: [{ distinct_id: 'ada', $email: ['ada@example.com'], name: 'Ada' }], data: { name: 'Ada', shop: siteUrl } }),
    ) as { message_id: string };
    return accepted.message_id;
  };
  const emailOf = async (triggerMessageId: string): Promise<Message | undefined> => {
    const log = ok(await api('GET', 'v1/message/?limit=100')) as { results: Message[] };
    return log.results.find((message) => message.trigger_message_id === triggerMessageId && message.channel === 'email');
  };
  /** A request as a mail client or browser makes it: no redirect followed. */
  const get = (url: string): Promise<Response> => fetch(url, { redirect: 'manual' });

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (HERALD_TEST_REQUIRE_INFRA=1 allows no skipped test)`);
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-engagement-'));
    const infra = testInfrastructure();
    const database = infra.databaseUrl ? await createTemporaryDatabase(infra.databaseUrl) : undefined;
    dispose = async () => {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
    smtp = await LocalSmtpServer.start({ username: 'mailer', password: 'mailer-password' });
    // The public host: the received email's HTML, the shop its links point to, and /v1/ passed on to Herald.
    site = createServer((request: IncomingMessage, response: ServerResponse) => {
      const url = new URL(request.url ?? '/', 'http://site');
      if (url.pathname.startsWith('/v1/')) {
        const upstream = new URL(`${url.pathname.slice(1)}${url.search}`, herald.baseUrl);
        const forwarded = httpRequest(upstream, { method: request.method, headers: { ...request.headers, host: upstream.host } }, (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        });
        request.pipe(forwarded);
      } else if (url.pathname === '/mail') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(mailHtml);
      } else {
        if (url.pathname !== '/favicon.ico') landings.push(`${url.pathname}${url.search}`);
        response.writeHead(200, { 'content-type': 'text/html' }).end('<p>landed</p>');
      }
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    links = new EngagementLinks(secretsKey, siteUrl);
    herald = await startEmbeddedHerald(
      heraldEnv({
        HERALD_DATA_DIR: dataDir,
        ...(database ? { HERALD_DATABASE_URL: database.url } : {}),
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_SECRETS_KEY: secretsKey.toString('base64'),
        HERALD_PUBLIC_URL: siteUrl,
        HERALD_LOG_LEVEL: 'error',
        // The SMTP server is local.
        HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
      }),
    );
    ok(
      await management('PUT', 'v1/staging/vendor/email/smtp/', {
        priority: 1,
        credentials: { host: '127.0.0.1', port: smtp.port, secure: false, username: 'mailer', password: 'mailer-password', from: 'shop@example.com' },
      }),
    );
    ok(await management('POST', 'v2/staging/template/offer/', { name: 'Offer', enabled_channels: ['email'] }));
    ok(await management('POST', 'v2/staging/template/offer/channel/email/variant/default/', { locale: 'en', content: { subject: 'An offer for {{name}}', html: EMAIL_HTML } }));
    ok(await management('PATCH', 'v2/staging/template/offer/commit/?commit_message=t'));
    ok(
      await management('POST', 'v1/staging/workflow/offer/?commit=true&commit_message=first', {
        name: 'Offer',
        category: 'promotional',
        trigger_type: 'api',
        tree: { nodes: [{ name: 'Mail', node_type: 'send_email', template: 'offer' }] },
      }),
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
    await herald?.stop();
    await smtp?.close();
    await dispose?.();
  });

  let first: string;
  let raw: string;

  it('sends the email with its links tracked, a pixel, and List-Unsubscribe for a category the user can leave', async () => {
    first = await trigger();
    await smtp.received(1);
    raw = smtp.mails[0].raw;
    mailHtml = htmlOf(raw);
    const hrefs = [...mailHtml.matchAll(/href="([^"]*)"/g)].map((match) => match[1]);
    expect(hrefs).toEqual([expect.stringMatching(new RegExp(`^${siteUrl}/v1/engagement/click/`)), 'mailto:help@shop.example', expect.stringMatching(new RegExp(`^${siteUrl}/v1/engagement/click/`))]);
    expect(mailHtml).toMatch(new RegExp(`<img src="${siteUrl}/v1/engagement/open/[^"]+" width="1" height="1"`));
    // Nothing of the recipient or of the shop's URLs in any Herald link.
    for (const url of [...mailHtml.matchAll(/(?:href|src)="(http[^"]*)"/g)].map((match) => match[1])) expect(url).not.toMatch(/landing|second|example\.com|%40/);
    expect(headerOf(raw, 'List-Unsubscribe')).toMatch(new RegExp(`^<${siteUrl}/v1/unsubscribe/[A-Za-z0-9_-]+>$`));
    expect(headerOf(raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
  });

  it('opened in chromium, its pixel and a click show the message seen and clicked in the message log', async () => {
    const page = await browser.newPage();
    try {
      const pixel = page.waitForResponse((response) => response.url().includes('/v1/engagement/open/'));
      await page.goto(`${siteUrl}/mail`);
      expect((await pixel).status()).toBe(200);
      await expectEventually(async () => expect(await emailOf(first)).toMatchObject({ status: 'seen', seen_at: expect.any(String), clicked_at: null }), { timeoutMs: 30_000 });
      await page.click('text=See the offer');
      await page.waitForURL(`${siteUrl}/landing?item=42&ref=mail#top`);
    } finally {
      await page.close();
    }
    expect(landings).toEqual(['/landing?item=42&ref=mail']);
    await expectEventually(async () => expect(await emailOf(first)).toMatchObject({ status: 'clicked', seen_at: expect.any(String), clicked_at: expect.any(String) }), { timeoutMs: 30_000 });
  });

  it('redirects only to the link that was in the email; forged, foreign and unknown tokens are refused', async () => {
    const hrefs = [...mailHtml.matchAll(/href="(http[^"]*)"/g)].map((match) => match[1]);
    const second = await get(hrefs[1]);
    expect(second.status).toBe(302);
    expect(second.headers.get('location')).toBe(`${siteUrl}/second`);
    // A query added to the tracked link changes nothing: the target is never read from the request.
    expect((await get(`${hrefs[0]}?url=https://evil.example/`)).headers.get('location')).toBe(`${siteUrl}/landing?item=42&ref=mail#top`);
    const token = hrefs[0].slice(hrefs[0].lastIndexOf('/') + 1);
    const deliveryId = links.readTrackingToken(token);
    if (deliveryId?.kind !== 'click') throw new Error('the tracked link does not carry a click token signed with the secrets key');
    const refused = async (url: string): Promise<void> => {
      const response = await get(url);
      expect({ url, status: response.status, location: response.headers.get('location') }).toEqual({ url, status: 404, location: null });
    };
    // The MAC changed, the index changed without re-signing, an index the email did not have, a delivery Herald never sent, an open token used as a click.
    await refused(`${siteUrl}/v1/engagement/click/${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`);
    await refused(`${siteUrl}/v1/engagement/click/${token.replace(/^c0\./, 'c1.')}`);
    await refused(links.clickUrl(deliveryId.deliveryId, 2));
    await refused(links.clickUrl(`${deliveryId.deliveryId}-not-sent`, 0));
    await refused(`${siteUrl}/v1/engagement/click/${links.trackingToken({ kind: 'open', deliveryId: deliveryId.deliveryId })}`);
    await refused(`${siteUrl}/v1/engagement/open/${token}`);
  });

  it("the one-click POST opts the user out of the email's category: the next trigger sends nothing", async () => {
    const unsubscribe = (headerOf(raw, 'List-Unsubscribe') ?? '').replace(/^<|>$/g, '');
    const token = unsubscribe.slice(unsubscribe.lastIndexOf('/') + 1);
    // Forged and expired links are refused and change nothing.
    const bytes = Buffer.from(token, 'base64url');
    bytes[bytes.length - 1] ^= 1;
    const oneClick = (url: string): Promise<Response> =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click', redirect: 'manual' });
    expect((await oneClick(`${siteUrl}/v1/unsubscribe/${bytes.toString('base64url')}`)).status).toBe(404);
    const scope = links.readPreferenceToken(token, new Date());
    if (!scope.ok) throw new Error('the List-Unsubscribe link does not carry a preference link sealed with the secrets key');
    expect(scope.scope).toMatchObject({ workspaceSlug: 'staging', distinctId: 'ada', category: 'promotional' });
    const expired = links.unsubscribeUrl(scope.scope, new Date(Date.now() - 61 * 86_400_000));
    expect((await oneClick(expired)).status).toBe(410);
    // A POST that is not RFC 8058's (a link scanner, a form of another shape) unsubscribes nobody.
    expect((await fetch(unsubscribe, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'x=1' })).status).toBe(400);
    expect((ok(await api('GET', 'v1/user/ada/preference/category/promotional/')) as { preference: string }).preference).toBe('opt_in');

    // The profile the trigger's inline recipient made is applied asynchronously.
    await expectEventually(async () => expect((await oneClick(unsubscribe)).status).toBe(200), { timeoutMs: 30_000 });
    expect((ok(await api('GET', 'v1/user/ada/preference/category/promotional/')) as { preference: string }).preference).toBe('opt_out');
    const next = await trigger();
    await expectEventually(async () => expect(await emailOf(next)).toMatchObject({ status: 'not_sent' }), { timeoutMs: 30_000 });
    expect(smtp.mails).toHaveLength(1);
  });

  it('a GET on the link shows the hosted preference page (no script, no external asset), whose form changes the choice', async () => {
    const unsubscribe = (headerOf(raw, 'List-Unsubscribe') ?? '').replace(/^<|>$/g, '');
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => violations.push(message.text()));
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    try {
      const response = await page.goto(unsubscribe);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
      const promotional = page.locator('input[name="subscribed"][value="promotional"]');
      expect(await promotional.isChecked()).toBe(false);
      // A category that cannot be unsubscribed is shown, checked and disabled.
      expect(await page.locator('label', { hasText: 'System' }).locator('input[type="checkbox"]').isDisabled()).toBe(true);
      await promotional.check();
      await Promise.all([page.waitForURL(`${unsubscribe}/preferences`), page.click('button[type="submit"]')]);
      expect(await page.textContent('[role="status"]')).toContain('saved');
      expect(await page.locator('input[name="subscribed"][value="promotional"]').isChecked()).toBe(true);
    } finally {
      await page.close();
    }
    expect(violations).toEqual([]);
    expect(requested.every((url) => url.startsWith(`${siteUrl}/v1/unsubscribe/`))).toBe(true);
    expect((ok(await api('GET', 'v1/user/ada/preference/category/promotional/')) as { preference: string }).preference).toBe('opt_in');
    expect((await get(`${siteUrl}/v1/unsubscribe/not-a-token`)).status).toBe(404);
  });
});
