import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { expectEventually, heraldEnv } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { UI, artifactsFolder, describeInBrowser, launchChromium, prepareConsoleBrowserTest } from './testing/console-browser';

const SCREENSHOTS = artifactsFolder('console-people');
const OWNER = { email: 'owner@example.com', password: 'first start passphrase 2026' };

/**
 * People in the console (issue 43): the first owner (from the environment) signs in with
 * a password, invites an editor and a viewer, who accept their links in their own
 * browsers; the viewer sees secrets masked and no way to change anything, and the API
 * refuses (403) what the page does not offer; every kind of change shows in the Audit page.
 */
describeInBrowser('people, roles and the audit log in the console (chromium, one embedded Herald)', () => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dataDir: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    prepareConsoleBrowserTest(SCREENSHOTS);
    dataDir = mkdtempSync(join(tmpdir(), 'herald-people-'));
    herald = await startEmbeddedHerald(
      heraldEnv({
        HERALD_DATA_DIR: dataDir,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_OPERATOR_EMAIL: OWNER.email,
        HERALD_BOOTSTRAP_OPERATOR_PASSWORD: OWNER.password,
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await herald?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** A browser of its own (its own cookies), with every page error and refused request collected. */
  async function person(): Promise<{ page: Page; refused: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('pageerror', (error) => refused.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400) refused.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
    });
    return { page, refused };
  }

  /** A management call from the page, with its session cookie, as the console makes them. */
  const fromPage = (page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => // eslint-disable-line @typescript-eslint/no-explicit-any
    page.evaluate(
      async ({ method, path, body }) => {
        const response = await fetch(`/${path}`, {
          method,
          headers: { 'x-herald-console': '1', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : null };
      },
      { method, path, body },
    );

  async function invite(page: Page, email: string, role: string): Promise<string> {
    await page.fill('input[name=invite_email]', email);
    await page.selectOption('select[name=invite_role]', role);
    await page.click('form.invite button[type=submit]');
    await page.locator('code.accept-url', { hasText: 'token=' }).waitFor(UI);
    await page.locator(`tr[data-email="${email}"]`).waitFor(UI);
    return (await page.locator('code.accept-url').textContent())!;
  }

  async function accept(url: string, name: string, password: string): Promise<{ page: Page; refused: string[] }> {
    const invited = await person();
    await invited.page.goto(url);
    await invited.page.locator('input[name=name]').waitFor(UI);
    await expectEventually(async () => expect(await invited.page.inputValue('input[name=base_url]')).not.toBe(''), { timeoutMs: 30_000 });
    await invited.page.fill('input[name=name]', name);
    await invited.page.fill('input[name=password]', password);
    await invited.page.click('button[type=submit]');
    await invited.page.getByRole('link', { name: 'People' }).waitFor(UI);
    return invited;
  }

  it('lets the owner invite an editor and a viewer; the viewer sees no secret and can change nothing; each kind of change is in the audit log', async () => {
    const owner = await person();
    await owner.page.goto(`${herald.managementUrl}console/`);
    await expectEventually(async () => expect(await owner.page.inputValue('input[name=base_url]')).not.toBe(''), { timeoutMs: 30_000 });
    await owner.page.fill('input[name=email]', OWNER.email);
    await owner.page.fill('input[name=password]', 'not the password');
    await owner.page.click('button[type=submit]');
    await owner.page.getByRole('alert').waitFor(UI);
    expect(await owner.page.getByRole('alert').textContent()).toContain('wrong email or password');
    await owner.page.fill('input[name=password]', OWNER.password);
    await owner.page.screenshot({ path: join(SCREENSHOTS, '1-sign-in.png'), fullPage: true });
    await owner.page.click('button[type=submit]');
    await owner.page.getByRole('link', { name: 'People' }).click();
    await owner.page.locator(`tr[data-email="${OWNER.email}"]`).waitFor(UI);

    const editorUrl = await invite(owner.page, 'editor@example.com', 'editor');
    const viewerUrl = await invite(owner.page, 'viewer@example.com', 'viewer');
    await owner.page.screenshot({ path: join(SCREENSHOTS, '2-people-invited.png'), fullPage: true });

    // Changes of each kind, made with the owner's console session.
    expect((await fromPage(owner.page, 'POST', 'v1/staging/ws_key/', { name: 'mobile app' })).status).toBe(201);
    expect((await fromPage(owner.page, 'PUT', 'v1/staging/vendor/email/smtp/', { priority: 1, credentials: { host: '127.0.0.1', port: 2525, secure: false, username: 'u', password: 'smtp-secret', from: 'shop@example.com' } })).status).toBeLessThan(300);

    const editor = await accept(editorUrl, 'Eddie', 'a long passphrase for Eddie');
    const workflow = { name: 'Welcome', trigger_type: 'api', tree: { nodes: [{ name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration: '0d0h0m2s' }] } };
    expect((await fromPage(editor.page, 'POST', 'v1/staging/workflow/welcome/', workflow)).status).toBeLessThan(300);
    expect((await fromPage(editor.page, 'POST', 'v1/staging/ws_key/', { name: 'not mine to make' })).status).toBe(403);

    const viewer = await accept(viewerUrl, 'Vi', 'read-only and 42 more');
    await viewer.page.getByRole('link', { name: 'People' }).click();
    await viewer.page.locator('table.workspace-keys tbody tr').first().waitFor(UI);
    // The page offers no change: no invitation form, no role to pick, no remove.
    expect(await viewer.page.locator('form.invite').count()).toBe(0);
    expect(await viewer.page.locator('table.operators select, table.operators button').count()).toBe(0);
    // Secrets: the owner reads them in full, the viewer only their first characters.
    await owner.page.reload();
    await owner.page.locator('table.workspace-keys tbody tr').nth(1).waitFor(UI);
    const ownerSecrets = await owner.page.locator('table.workspace-keys code.secret').allTextContents();
    const viewerSecrets = await viewer.page.locator('table.workspace-keys code.secret').allTextContents();
    expect(ownerSecrets.every((secret) => secret.startsWith('hws_') && !secret.includes('*'))).toBe(true);
    expect(viewerSecrets).toHaveLength(ownerSecrets.length);
    expect(viewerSecrets.every((secret) => /^.{8}\*{12}$/.test(secret))).toBe(true);
    for (const secret of ownerSecrets) expect(await viewer.page.content()).not.toContain(secret);
    await viewer.page.screenshot({ path: join(SCREENSHOTS, '3-people-as-viewer.png'), fullPage: true });
    await viewer.page.getByRole('link', { name: 'Workflows' }).click();
    await viewer.page.locator('table').first().waitFor(UI);
    expect(await viewer.page.getByRole('link', { name: 'New workflow' }).count()).toBe(0);
    // Templates and vendors are listed without a control that changes them.
    await viewer.page.getByRole('link', { name: 'Templates' }).click();
    await viewer.page.locator('h1', { hasText: 'Templates' }).waitFor(UI);
    expect(await viewer.page.getByRole('button', { name: 'Create template' }).count()).toBe(0);
    await viewer.page.getByRole('link', { name: 'Vendors' }).click();
    await viewer.page.locator('tr[data-vendor="email/smtp"]').waitFor(UI);
    expect(await viewer.page.locator('tr[data-vendor="email/smtp"] button').count()).toBe(0);
    expect(await viewer.page.getByRole('button', { name: 'Configure' }).count()).toBe(0);
    // What the page does not offer, the API refuses.
    const refusals = [
      await fromPage(viewer.page, 'POST', 'v1/staging/workflow/welcome/', workflow),
      await fromPage(viewer.page, 'PUT', 'v1/staging/vendor/email/smtp/', { priority: 2 }),
      await fromPage(viewer.page, 'POST', 'v1/staging/ws_key/', { name: 'x' }),
      await fromPage(viewer.page, 'POST', 'v1/operator/', { email: 'friend@example.com', role: 'owner' }),
    ];
    expect(refusals.map((answer) => [answer.status, answer.body.error_code])).toEqual(Array(4).fill([403, 'permission_denied']));
    // The viewer's notification-API key (held by the tab) reads, and is refused a trigger.
    const viewerKeyAnswers = await viewer.page.evaluate(async () => {
      // This file is compiled without the DOM's types: the page's sessionStorage, as the console uses it.
      const storage = (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }).sessionStorage;
      const session = JSON.parse(storage.getItem('herald.console.session') ?? '{}') as { baseUrl: string; apiKey: string };
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(new URL(path, session.baseUrl), {
          method,
          headers: { authorization: `Bearer ${session.apiKey}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return [response.status, ((await response.json()) as { error_code?: string }).error_code ?? null];
      };
      return [await call('GET', 'v1/message/?limit=1'), await call('POST', 'trigger/', { workflow: 'welcome', recipients: ['ada'] })];
    });
    expect(viewerKeyAnswers).toEqual([
      [200, null],
      [403, 'permission_denied'],
    ]);
    expect((await fromPage(viewer.page, 'GET', 'v1/staging/vendor/email/smtp/')).body.credentials.password).not.toBe('smtp-secret');

    // The editor forgot the password: the owner hands over a reset link; using it signs the editor in anew and ends the old session.
    await owner.page.locator('tr[data-email="editor@example.com"] button.reset-password').click();
    await owner.page.locator('code.reset-url', { hasText: 'token=' }).waitFor(UI);
    const resetUrl = (await owner.page.locator('code.reset-url').textContent())!;
    expect(resetUrl).toMatch(/\/console\/reset-password\?token=hor_/);
    const resetting = await person();
    await resetting.page.goto(resetUrl);
    await resetting.page.getByRole('button', { name: 'Set password and sign in' }).waitFor(UI);
    await expectEventually(async () => expect(await resetting.page.inputValue('input[name=base_url]')).not.toBe(''), { timeoutMs: 30_000 });
    await resetting.page.fill('input[name=password]', 'a fresh passphrase for Eddie');
    await resetting.page.screenshot({ path: join(SCREENSHOTS, '3b-password-reset.png'), fullPage: true });
    await resetting.page.click('button[type=submit]');
    await resetting.page.getByRole('link', { name: 'People' }).waitFor(UI);
    expect((await fromPage(resetting.page, 'GET', 'v1/operator_session/')).body.operator).toMatchObject({ email: 'editor@example.com', role: 'editor' });
    expect((await fromPage(editor.page, 'GET', 'v1/workspace/')).status).toBe(401);

    // The owner changes a role in the page.
    await owner.page.selectOption('select[aria-label="role of editor@example.com"]', 'viewer');
    await expectEventually(async () => expect(await owner.page.inputValue('select[aria-label="role of editor@example.com"]')).toBe('viewer'), { timeoutMs: 30_000 });

    await owner.page.getByRole('link', { name: 'Audit' }).click();
    await owner.page.locator('table.audit-log tbody tr').first().waitFor(UI);
    const kinds = new Set(await owner.page.locator('table.audit-log tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind'))));
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['operator', 'vendor', 'workflow', 'ws_key']));
    const rows = await owner.page.locator('table.audit-log tbody tr').allTextContents();
    expect(rows.some((row) => row.includes('editor@example.com') && row.includes('POST /v1/:workspace/workflow/:slug'))).toBe(true);
    expect(rows.some((row) => row.includes(OWNER.email) && row.includes('PATCH /v1/operator/:id'))).toBe(true);
    expect(rows.some((row) => row.includes(OWNER.email) && row.includes('POST /v1/operator/:id/password_reset'))).toBe(true);
    expect(rows.some((row) => row.includes('editor@example.com') && row.includes('POST /v1/operator_session/password_reset'))).toBe(true);
    // A row opens on its before and after; the vendor's secret is not in it.
    await owner.page.locator('table.audit-log tbody tr[data-kind=vendor]').first().click();
    await owner.page.locator('table.audit-log .change').waitFor(UI);
    expect(await owner.page.locator('table.audit-log .change').textContent()).not.toContain('smtp-secret');
    await owner.page.screenshot({ path: join(SCREENSHOTS, '4-audit.png'), fullPage: true });

    // The only refusals any page saw are the ones asked for above.
    expect(owner.refused.filter((line) => !line.includes('/v1/operator_session/'))).toEqual([]);
    expect(editor.refused).toEqual(['403 POST /v1/staging/ws_key/', '401 GET /v1/workspace/']);
    expect(resetting.refused.filter((line) => !line.includes('/v1/operator_session/'))).toEqual([]);
    expect(viewer.refused).toEqual(['403 POST /v1/staging/workflow/welcome/', '403 PUT /v1/staging/vendor/email/smtp/', '403 POST /v1/staging/ws_key/', '403 POST /v1/operator/', '403 POST /trigger/']);
  }, 300_000);
});
