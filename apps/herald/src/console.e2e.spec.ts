import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { createTemporaryDatabase, expectEventually, fetchJson, heraldEnv, testInfrastructure } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { UI, artifactsFolder, describeInBrowser, launchChromium, prepareConsoleBrowserTest } from './testing/console-browser';

const SCREENSHOTS = artifactsFolder('console');

interface RunMessage {
  readonly channel: string;
  readonly failure_reason: string;
}

/**
 * The operator console (issue 19) in a real browser: an operator signs in with a service
 * token, finds a run by the message_id its trigger returned, reads its timeline, opens a
 * failed delivery's reason (the email vendor's SMTP server refuses connections) and
 * replays a draft that changes the branch the run took, seeing that branch in the diff.
 */
describeInBrowser('the operator console in a real browser (chromium, one embedded Herald)', () => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let browser: Browser;
  let page: Page;
  let messageId = '';

  const management = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const api = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const ok = (response: { status: number; body: unknown }): void =>
    expect({ success: response.status >= 200 && response.status < 300, body: response.body }).toMatchObject({ success: true });
  const screenshot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  /** Pro customers get an email, others an inbox message; the draft keeps the email for enterprise customers only. */
  const workflow = (emailPlan: string) => ({
    name: 'Order update',
    category: 'transactional',
    trigger_type: 'api',
    tree: {
      nodes: [
        {
          name: 'Plan?',
          node_type: 'branch',
          branches: [
            {
              name: 'paying',
              is_default: false,
              conditions: [{ type: 'expression_v1', expression_v1: { op: 'AND', args: [{ variable_ns: '', variable: 'plan', op: '==', value: emailPlan }] } }],
              nodes: [{ name: 'Mail', node_type: 'send_email', template: 'order' }],
            },
            { name: 'others', is_default: true, conditions: [], nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'order' }] },
          ],
        },
      ],
    },
  });

  beforeAll(async () => {
    prepareConsoleBrowserTest(SCREENSHOTS);
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-console-'));
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
        HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
      }),
    );
    // An SMTP server that refuses connections: every email delivery fails, and is retried.
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    ok(await management('PUT', 'v1/staging/vendor/email/smtp/', { priority: 1, credentials: { host: '127.0.0.1', port, secure: false, username: 'u', password: 'p', from: 'shop@example.com' } }));
    ok(await management('POST', 'v2/staging/template/order/', { name: 'Order', enabled_channels: ['email', 'inbox'] }));
    ok(await management('POST', 'v2/staging/template/order/channel/email/variant/default/', { locale: 'en', content: { subject: 'Order {{order}}', text: 'Your order {{order}} has shipped' } }));
    ok(await management('POST', 'v2/staging/template/order/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Order {{order}} shipped' } }));
    ok(await management('PATCH', 'v2/staging/template/order/mock_data/', { payload: { order: 'A-1001' } }));
    ok(await management('PATCH', 'v2/staging/template/order/commit/?commit_message=t'));
    ok(await management('POST', 'v1/staging/workflow/order-update/?commit=true&commit_message=first', workflow('pro')));

    await expectEventually(async () => {
      const response = await api('POST', 'trigger/', { workflow: 'order-update', recipients: [{ distinct_id: 'ada', $email: ['ada@example.com'] }], data: { plan: 'pro', order: 'A-7' } });
      expect(response.status).toBe(202);
      messageId = (response.body as { message_id: string }).message_id;
    });
    // The delivery has failed once (the console shows what the API shows).
    await expectEventually(
      async () => {
        const runs = (await api('GET', `v1/workflow_run/?message_id=${messageId}`)).body as { results: Array<{ status: string; messages: RunMessage[] }> };
        expect(runs.results[0]?.messages.find((message) => message.channel === 'email')?.failure_reason).toContain('smtp');
      },
      { timeoutMs: 60_000 },
    );
    // The draft: only enterprise customers get the email now.
    ok(await management('POST', 'v1/staging/workflow/order-update/', workflow('enterprise')));

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await herald?.stop();
    await dispose?.();
  });

  it('signs in, finds a run by its message_id, reads its timeline and a failed delivery, and replays a draft whose diff shows the changed branch', async () => {
    // Sign in: the notification API's address comes from the management API.
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') violations.push(message.text());
    });
    await page.goto(`${herald.managementUrl}console/`);
    await expectEventually(async () => expect(await page.inputValue('input[name=base_url]')).toBe(herald.baseUrl), { timeoutMs: 30_000 });
    await page.fill('input[name=service_token]', 'hst_wrong');
    await page.click('button[type=submit]');
    await page.getByRole('alert').waitFor(UI);
    expect(await page.getByRole('alert').textContent()).toContain('401');
    await page.fill('input[name=service_token]', serviceToken);
    await screenshot('1-sign-in');
    await page.click('button[type=submit]');

    // Runs: search by the trigger's message_id.
    await page.fill('input[name=message_id]', messageId);
    await page.click('form.filters button[type=submit]');
    const row = page.locator('table.runs tbody tr');
    await row.first().waitFor(UI);
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toMatch(/order-update v1.*ada.*completed.*email: triggered/);
    // The run completed, but its email retries (or failed for good): the status says so, and why, naming the vendor once.
    expect(await row.locator('td').nth(3).textContent()).toMatch(/^completed, (delivering \(1 delivery retrying\)|1 delivery failed)$/);
    expect(await row.locator('td.reason').textContent()).toMatch(/^email: smtp: /);
    expect(await row.locator('td.reason').textContent()).not.toContain('smtp: smtp:');
    await screenshot('2-runs');
    // The other filters reach the API too: nobody else was notified.
    await page.fill('input[name=message_id]', '');
    await page.fill('input[name=recipient_id]', 'grace');
    await page.click('form.filters button[type=submit]');
    await page.getByText('No runs match').waitFor(UI);
    await page.fill('input[name=recipient_id]', 'ada');
    await page.fill('input[name=workflow_slug]', 'order-update');
    await page.click('form.filters button[type=submit]');
    await page.getByText('No runs match').waitFor({ state: 'detached', ...UI });
    await row.first().waitFor(UI);
    expect(await row.count()).toBe(1);

    // The run's timeline: the branch taken and the send, each with why.
    await row.locator('td').first().locator('a').click();
    await page.locator('ol.timeline li').first().waitFor(UI);
    const timeline = await page.locator('ol.timeline').textContent();
    expect(timeline).toContain('branch.taken.v1');
    expect(timeline).toContain('branch paying · plan == "pro": "pro" → true');
    expect(timeline).toContain('send email');
    // Each step in words.
    expect(await page.locator('ol.timeline .step-label').allTextContents()).toEqual(expect.arrayContaining(['Run started', 'Branch taken', 'Delivery requested', 'Run completed']));
    expect((await page.locator('ol.timeline .step-label').allTextContents()).filter((label) => /\.v\d+$/.test(label))).toEqual([]);
    // The vendor refuses every attempt, so how many were made by now depends on the retry schedule.
    expect(await page.locator('table.messages').textContent()).toMatch(/Mail.*email.*triggered[1-9]\d*smtp/);
    await screenshot('3-run-timeline');

    // Messages: the failed delivery and its reason.
    await page.getByRole('link', { name: 'its messages' }).click();
    await page.locator('table.messages tbody tr').first().waitFor(UI);
    const failed = page.locator('table.messages tbody tr', { hasText: 'email' });
    await failed.locator('button.link').click();
    const reason = await page.locator('dd.failure-reason').textContent();
    expect(reason).toContain('smtp');
    expect(reason).not.toContain('smtp: smtp:');
    // The vendor the failing message was tried with.
    expect(await page.locator('dd.message-vendor').textContent()).toBe('email/smtp (tried)');
    // Its content as rendered for ada: the delivery's variant with the run's data.
    await page.locator('.rendered-content pre').waitFor(UI);
    expect(await page.locator('.rendered-content').textContent()).toMatch(/"subject": "Order A-7"[\s\S]*"text": "Your order A-7 has shipped"/);
    await screenshot('4-message-failure');

    // The workflow list: live v1 with a draft pending on top.
    await page.getByRole('link', { name: 'Workflows' }).click();
    await page.locator('td.workflow-state').first().waitFor(UI);
    expect(await page.locator('td.workflow-state').first().textContent()).toBe('live v1, draft pending');
    await screenshot('4c-workflows');
    // Workflow: the live tree and the draft drawn, its versions, then a replay of the draft.
    await page.getByRole('link', { name: 'order-update' }).first().click();
    await page.locator('.tree').first().waitFor(UI);
    // The live tree and the draft are two reads: the draft may be drawn a moment after the live one.
    // Each is a React Flow graph: the nodes as cards, each path's branch and condition on the edge that starts it.
    const drawn = async (version: string) => {
      const tree = page.locator('.tree', { hasText: version });
      return { nodes: await tree.locator('.react-flow__node strong').allTextContents(), paths: await tree.locator('.react-flow__edge-text').allTextContents() };
    };
    await expectEventually(
      async () => {
        expect(await drawn('Live v1')).toEqual({ nodes: ['Plan?', 'Mail', 'Inbox'], paths: ['paying plan == "pro"', 'others (default)'] });
        expect(await drawn('Draft v2')).toEqual({ nodes: ['Plan?', 'Mail', 'Inbox'], paths: ['paying plan == "enterprise"', 'others (default)'] });
      },
      { timeoutMs: 30_000 },
    );
    await page.getByRole('button', { name: 'Replay the draft' }).click();
    const change = page.locator('.replay-diff li.change-branch_changed');
    await change.waitFor({ timeout: 60_000 });
    expect(await change.textContent()).toBe('branch changed at Plan?: paying → others');
    expect(await page.locator('.replay-diff').textContent()).toMatch(/send dropped: email \(order\) at Mail.*send added: inbox \(order\) at Inbox|send added: inbox \(order\) at Inbox.*send dropped: email \(order\) at Mail/);
    expect(await page.locator('.replay-summary').textContent()).toContain('1 of 1 runs change');
    await screenshot('5-workflow-replay');

    // Templates: the template's variants, each with its channel (the editor and its preview:
    // console-templates-vendors.e2e.spec.ts); vendors: the last error.
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('link', { name: 'order' }).click();
    await page.locator('table.variant-table tbody tr').nth(1).waitFor(UI);
    expect(await page.locator('table.variant-table tbody tr td:first-child').allTextContents()).toEqual(expect.arrayContaining(['email']));
    await screenshot('6-templates');
    await page.getByRole('link', { name: 'Vendors' }).click();
    await page.locator('table tbody tr', { hasText: 'smtp' }).waitFor(UI);
    await expectEventually(async () => expect(await page.locator('table tbody tr', { hasText: 'smtp' }).locator('td.reason').textContent()).toContain('smtp'), { timeoutMs: 30_000 });
    await screenshot('7-vendors');

    // Nothing the page did broke its content security policy or failed unseen (the wrong token's 401 aside).
    expect(violations.filter((text) => !text.includes('401'))).toEqual([]);

    // The key the console minted for the session expires on its own in 12 hours; signing out deletes it at once.
    const consoleKeys = async () =>
      ((await management('GET', 'v1/staging/ws_api_key/')).body as { results: Array<{ name: string; expires_at: string | null }> }).results.filter(
        (key) => key.name === 'console session',
      );
    const [sessionKey, ...others] = await consoleKeys();
    expect(others).toHaveLength(0);
    const hoursLeft = (new Date(sessionKey.expires_at as string).getTime() - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(11);
    expect(hoursLeft).toBeLessThanOrEqual(12);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('input[name=service_token]').waitFor(UI);
    await expectEventually(async () => expect(await consoleKeys()).toHaveLength(0));
  }, 180_000);

  it("lets any origin's page read runs and messages and trigger (the Test panel) with an API key (no credentials mode), and nothing else of the notification API", async () => {
    const preflight = (path: string) =>
      fetch(`${herald.baseUrl}${path}`, { method: 'OPTIONS', headers: { origin: 'https://ops.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    for (const path of ['v1/workflow_run/', `v1/workflow_run/${messageId}/`, 'v1/message/', 'trigger/']) {
      const answer = await preflight(path);
      expect({ path, status: answer.status, origin: answer.headers.get('access-control-allow-origin'), headers: answer.headers.get('access-control-allow-headers') }).toEqual({
        path,
        status: 204,
        origin: '*',
        headers: 'authorization, content-type',
      });
      expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    }
    // Without the key: refused, and the page can read why.
    const refused = await fetch(`${herald.baseUrl}v1/message/`, { headers: { origin: 'https://ops.example.com' } });
    expect({ status: refused.status, origin: refused.headers.get('access-control-allow-origin') }).toEqual({ status: 401, origin: '*' });
    // (Users, lists and tenants are open to the console too, through preference-service's OperatorCors.)
    for (const path of ['v1/bulk/message/']) {
      expect({ path, origin: (await preflight(path)).headers.get('access-control-allow-origin') }).toEqual({ path, origin: null });
    }
  });
});
