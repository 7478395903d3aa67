import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { expectEventually, fetchJson, heraldEnv } from '@herald/testing';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { LocalSmtpServer } from '../../../libs/services/channel-dispatchers/src/testing/local-smtp-server';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { UI, artifactsFolder, describeInBrowser, launchChromium, prepareConsoleBrowserTest, watchedPage } from './testing/console-browser';

const SCREENSHOTS = artifactsFolder('console-templates-vendors');
const SMTP_PASSWORD = 'smtp-password-for-the-console-test';
/** What the page function reads in the browser (this file is compiled without the DOM's types). */
interface BrowserWindow {
  getComputedStyle(element: unknown): { color: string };
}

/**
 * The console's vendors and templates pages (issue 43) in a real browser, as a new user sets
 * up email without curl: an SMTP vendor configured in its form (the catalogue's fields),
 * a test sent through the dispatchers to a local SMTP server and its answer shown, an edit
 * that leaves the masked password alone; an email template written in MJML whose preview
 * (Herald's renderer, the template's mock data, in the mail frame) shows the data, saved and
 * committed with a message; an inbox variant for another locale edited and committed.
 */
describeInBrowser('the console templates and vendors pages in a real browser (chromium, one embedded Herald)', () => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let smtp: LocalSmtpServer;
  let dataDir: string;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  const management = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const screenshot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    prepareConsoleBrowserTest(SCREENSHOTS);
    smtp = await LocalSmtpServer.start({ username: 'mailer', password: SMTP_PASSWORD });
    dataDir = mkdtempSync(join(tmpdir(), 'herald-console-templates-'));
    herald = await startEmbeddedHerald(
      heraldEnv({
        HERALD_DATA_DIR: dataDir,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        // The local SMTP server only: any other private address stays refused, as in production.
        HERALD_OUTBOUND_ALLOW: '127.0.0.1/32',
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    browser = await launchChromium();
    page = await watchedPage(browser, problems);
    await page.goto(`${herald.managementUrl}console/`);
    await expectEventually(async () => expect(await page.inputValue('input[name=base_url]')).toBe(herald.baseUrl), { timeoutMs: 30_000 });
    await page.fill('input[name=service_token]', serviceToken);
    await page.click('button[type=submit]');
    await page.getByRole('link', { name: 'Vendors' }).waitFor(UI);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await herald?.stop();
    await smtp?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('configures an SMTP vendor in its form, sends a test and shows the answer, and keeps the masked password on an edit', async () => {
    await page.getByRole('link', { name: 'Vendors' }).click();
    await page.locator('select[name=new-vendor]').selectOption('email/smtp');
    await page.getByRole('button', { name: 'Configure' }).click();
    const field = (name: string) => page.locator(`.vendor-form [name="credential-${name}"]`);
    await field('host').fill('127.0.0.1');
    await field('port').fill(String(smtp.port));
    await field('username').fill('mailer');
    await field('password').fill(SMTP_PASSWORD);
    await field('from').fill('Shop <shop@example.com>');
    await screenshot('1-smtp-form');
    await page.getByRole('button', { name: 'Save vendor' }).click();
    const row = page.locator('tr[data-vendor="email/smtp"]');
    await row.waitFor(UI);
    // Settings in full, the password masked.
    expect(await row.locator('code').textContent()).toContain(`host: 127.0.0.1, port: ${smtp.port}, secure: false, username: ********, password: ********, from: Shop <shop@example.com>`);

    await page.fill('.vendor-test [name=test-to]', 'ada@example.com');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.locator('.test-answer.ok').waitFor(UI);
    expect(await page.locator('.test-result').textContent()).toBe('accepted by the vendor');
    expect(await page.locator('.test-answer').textContent()).toContain('250');
    await smtp.received(1);
    expect(smtp.mails[0]).toMatchObject({ to: ['ada@example.com'], from: 'shop@example.com', username: 'mailer' });
    expect(smtp.mails[0].raw).toContain('Subject: Herald test message');
    await screenshot('2-smtp-test-answer');

    // An edit types over the sender only: the masked password is left as it was, so the next test still authenticates.
    await row.getByRole('button', { name: 'Edit' }).click();
    expect(await field('password').inputValue()).toBe('');
    expect(await field('password').getAttribute('placeholder')).toBe('******** (unchanged unless typed over)');
    const before = await page.locator('.vendor-form').getAttribute('data-updated-at');
    await field('from').fill('Shop <orders@example.com>');
    await page.getByRole('button', { name: 'Save vendor' }).click();
    // Saved: the form starts again from what is stored, the password still masked and empty.
    await page.locator(`.vendor-form:not([data-updated-at="${before}"])`).waitFor(UI);
    expect(await field('from').inputValue()).toBe('Shop <orders@example.com>');
    expect(await field('password').inputValue()).toBe('');
    await page.fill('.vendor-test [name=test-to]', 'ada@example.com');
    await page.getByRole('button', { name: 'Send test' }).click();
    await expectEventually(() => expect(smtp.mails).toHaveLength(2), { timeoutMs: 30_000 });
    expect(smtp.mails[1]).toMatchObject({ from: 'orders@example.com', username: 'mailer' });

    // The same address rule as deliveries: a private address HERALD_OUTBOUND_ALLOW does not list is refused, and said so.
    expect((await management('PUT', 'v1/staging/vendor/email/smtp/', { credentials: { host: '10.0.0.1' } })).status).toBe(200);
    const blocked = await management('POST', 'v1/staging/vendor/email/smtp/test/', { to: 'ada@example.com' });
    expect(blocked).toMatchObject({ status: 200, body: { ok: false, status: null, error: expect.stringMatching(/^smtp: .*10\.0\.0\.1/) } });
    expect((await management('PUT', 'v1/staging/vendor/email/smtp/', { credentials: { host: '127.0.0.1' } })).status).toBe(200);
    // The dispatchers' internal route takes only requests sealed with the installation's key.
    const forged = await fetchJson(`${herald.baseUrl}internal/vendor-test`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sealed: randomBytes(64).toString('base64') }) });
    expect(forged.status).toBe(401);
  });

  it('writes an email in MJML with a live preview of the mock data, commits it, and edits an inbox variant for another locale', async () => {
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.fill('input[name=template-slug]', 'order-shipped');
    await page.fill('input[name=template-name]', 'Order shipped');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.locator('h2', { hasText: 'order-shipped' }).waitFor(UI);
    // The preview's sample data (mock data has no page of its own yet).
    expect((await management('PATCH', 'v2/staging/template/order-shipped/mock_data/', { payload: { order: 'A-7', items: 3 } })).status).toBe(200);

    await page.locator('select[name=new-channel]').selectOption('email');
    await page.getByRole('button', { name: 'Add variant' }).click();
    await page.locator('.variant-editor').waitFor(UI);
    await page.fill('[name=content-subject]', 'Order {{order}} has shipped');
    await page.locator('input[name=email-format][value=mjml]').check();
    const editor = page.locator('.markup-editor .cm-content');
    const typeMjml = async (body: string) => {
      await editor.click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText(`<mjml><mj-body>${body}</mj-body></mjml>`);
    };
    // A typo in a tag is reported by MJML with its line, as a save would report it.
    await typeMjml('<mj-sektion><mj-column><mj-text>x</mj-text></mj-column></mj-sektion>');
    await page.locator('.variant-fields .field-error', { hasText: "Element mj-sektion doesn't exist or is not registered" }).waitFor(UI);
    await typeMjml(
      '<mj-section><mj-column>' +
        '<mj-text font-size="20px" color="#2456b3">Your order {{order}} is on its way</mj-text>' +
        '<mj-text>{{items}} items</mj-text><mj-button href="https://shop.example.com/orders/{{order}}">Track it</mj-button>' +
        '</mj-column></mj-section>',
    );
    // Herald's renderer compiled the MJML and filled in the mock data; the mail frame shows it as a mail client would.
    const mail = page.frameLocator('iframe.mail-frame').frameLocator('#mail');
    await mail.locator('text=Your order A-7 is on its way').waitFor(UI);
    expect(await page.locator('.variant-fields .field-error').count()).toBe(0);
    expect(await mail.locator('a', { hasText: 'Track it' }).getAttribute('href')).toBe('https://shop.example.com/orders/A-7');
    expect(await page.locator('.email-subject').textContent()).toBe('Order A-7 has shipped');
    // MJML's inline styles apply inside the frame (the console's own policy would refuse them).
    const colour = await mail.locator('div', { hasText: /^Your order A-7 is on its way$/ }).evaluate((element) => (globalThis as unknown as BrowserWindow).getComputedStyle(element).color);
    expect(colour).toBe('rgb(36, 86, 179)');
    await screenshot('3-mjml-email-preview');

    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.locator('.variant-editor .notice', { hasText: 'Draft saved' }).waitFor(UI);
    await page.fill('input[name=commit-message]', 'MJML shipping email');
    await page.getByRole('button', { name: 'Commit' }).click();
    await page.locator('.template-live', { hasText: 'version 1' }).waitFor(UI);
    expect(await page.locator('.template-live').textContent()).toContain('“MJML shipping email”');

    // An inbox variant for French readers, edited with its own preview.
    await page.locator('select[name=new-channel]').selectOption('inbox');
    await page.fill('input[name=new-variant-id]', 'french');
    await page.fill('input[name=new-locale]', 'fr');
    await page.getByRole('button', { name: 'Add variant' }).click();
    await page.locator('[name=content-body]').waitFor(UI);
    expect(await page.inputValue('input[name=variant-locale]')).toBe('fr');
    await page.fill('[name=content-header]', 'Commande {{order}}');
    await page.fill('[name=content-body]', 'Votre commande {{order}} ({{items}} articles) est en route');
    await page.locator('.inbox-body', { hasText: 'Votre commande A-7 (3 articles) est en route' }).waitFor(UI);
    await screenshot('4-inbox-fr-preview');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.locator('.variant-editor .notice', { hasText: 'Draft saved' }).waitFor(UI);
    await page.fill('input[name=commit-message]', 'French inbox');
    await page.getByRole('button', { name: 'Commit' }).click();
    await page.locator('.template-live', { hasText: 'version 2' }).waitFor(UI);
    await screenshot('5-template-committed');

    const live = (await management('GET', 'v2/staging/template/order-shipped/variant/?mode=live')).body as { results: Array<{ channel: string; id: string; locale: string }> };
    expect(live.results.map(({ channel, id, locale }) => `${channel}/${id}/${locale}`).sort()).toEqual(['email/default/en', 'inbox/french/fr']);
    const email = (await management('GET', 'v2/staging/template/order-shipped/channel/email/variant/default/?mode=live')).body as { content: Record<string, string> };
    expect(email.content.mjml).toContain('<mj-button href="https://shop.example.com/orders/{{order}}">');
    // Expected: a variant is looked up before it is edited (a new one answers 404), and MJML's
    // default web font is fetched from Google, which a machine without internet cannot resolve.
    expect(problems.filter((problem) => !problem.includes('status of 404') && !problem.includes('net::ERR_NAME_NOT_RESOLVED'))).toEqual([]);
  });

  it("shows the template's history, diffs two versions, and restores the first as the draft, committed as version 3", async () => {
    const history = page.locator('.template-history');
    await history.locator('tr[data-version="2"]', { hasText: 'live' }).waitFor(UI);
    expect(await history.locator('tr[data-version="1"]').textContent()).toContain('MJML shipping email');
    await history.getByRole('button', { name: 'Diff with v1' }).click();
    // CodeMirror draws only the lines near the window's view, so the diff is brought into
    // view first. (On a loaded machine this wait once ran out without the line; the cause
    // is not proven, and this is the likeliest one.)
    const diff = page.locator('.version-diff .json-diff');
    await diff.waitFor(UI);
    await diff.scrollIntoViewIfNeeded();
    // The merge view marks what v2 added: the French inbox variant.
    await page.locator('.version-diff .cm-changedLine', { hasText: 'Votre commande' }).first().waitFor(UI);
    await screenshot('6-template-history-diff');

    await history.getByRole('button', { name: 'Restore v1 as draft' }).click();
    await page.locator('.notice', { hasText: 'Version 1 restored as the draft' }).waitFor(UI);
    await page.locator('dd', { hasText: 'changes not committed yet' }).waitFor(UI);
    expect(await page.locator('.variant-table tbody tr').count()).toBe(1);
    await page.fill('input[name=commit-message]', 'Back to the email only');
    await page.getByRole('button', { name: 'Commit' }).click();
    await page.locator('.template-live', { hasText: 'version 3' }).waitFor(UI);
    await history.locator('tr[data-version="3"]', { hasText: 'live' }).waitFor(UI);

    const live = (await management('GET', 'v2/staging/template/order-shipped/variant/?mode=live')).body as { results: Array<{ channel: string; id: string }> };
    expect(live.results.map(({ channel, id }) => `${channel}/${id}`)).toEqual(['email/default']);
    const versions = (await management('GET', 'v2/staging/template/order-shipped/versions/')).body as { results: Array<{ version_no: number; hash: string; commit_message: string }> };
    expect(versions.results.map(({ version_no, commit_message }) => [version_no, commit_message])).toEqual([
      [3, 'Back to the email only'],
      [2, 'French inbox'],
      [1, 'MJML shipping email'],
    ]);
    expect(versions.results[0].hash).toBe(versions.results[2].hash);
    await screenshot('7-template-restored');
  });
});
