import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { expectEventually, fetchJson, heraldEnv } from '@herald/testing';
// The dispatchers' test SMTP server (a testing file, kept out of the library's public index).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { LocalSmtpServer } from '../../../libs/services/channel-dispatchers/src/testing/local-smtp-server';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { UI, artifactsFolder, describeInBrowser, launchChromium, prepareConsoleBrowserTest, watchedPage } from './testing/console-browser';

const SCREENSHOTS = artifactsFolder('console-users-operate');
const SMTP_PASSWORD = 'smtp-password-for-the-operate-test';

interface MessageRow {
  readonly message_id: string;
  readonly execution_id: string;
  readonly channel: string;
  readonly status: string;
  readonly failure_reason: string;
  readonly workflow: { slug: string };
}

/**
 * The console's users and operate pages (issue 43) in a real browser: right after sign-in
 * the session's new API key reads runs (no 401); a user found by distinct_id, with
 * profile, channels, inbox and lists; a category opted out in the console, and the next
 * trigger of that category not sent; the overview's counts; a failed email opened at its
 * own URL and retried once its vendor is fixed; a waiting run cancelled; a list's members
 * changed.
 */
describeInBrowser('the console users and operate pages in a real browser (chromium, one embedded Herald)', () => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
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
  const api = (method: string, path: string, body?: unknown, key = apiKey): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const ok = (response: { status: number; body: unknown }): void =>
    expect({ success: response.status >= 200 && response.status < 300, body: response.body }).toMatchObject({ success: true });
  const screenshot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const smtpVendor = (password: string) => ({ priority: 1, credentials: { host: '127.0.0.1', port: smtp.port, secure: false, username: 'mailer', password, from: 'shop@example.com' } });
  const trigger = async (workflow: string): Promise<string> => {
    const response = await api('POST', 'trigger/', { workflow, recipients: [{ distinct_id: 'ada' }], data: { order: 'A-7' } });
    expect(response.status).toBe(202);
    return (response.body as { message_id: string }).message_id;
  };
  const messagesOf = async (triggerId: string): Promise<MessageRow[]> => ((await api('GET', `v1/message/?message_id=${triggerId}`)).body as { results: MessageRow[] }).results;

  beforeAll(async () => {
    prepareConsoleBrowserTest(SCREENSHOTS);
    smtp = await LocalSmtpServer.start({ username: 'mailer', password: SMTP_PASSWORD });
    dataDir = mkdtempSync(join(tmpdir(), 'herald-console-operate-'));
    herald = await startEmbeddedHerald(
      heraldEnv({
        HERALD_DATA_DIR: dataDir,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_OUTBOUND_ALLOW: '127.0.0.1/32',
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    // The email vendor with a wrong password: the SMTP server refuses it (535), a failure for good.
    ok(await management('PUT', 'v1/staging/vendor/email/smtp/', smtpVendor('wrong-password')));
    ok(await management('POST', 'v2/staging/template/order/', { name: 'Order', enabled_channels: ['email', 'inbox'] }));
    ok(await management('POST', 'v2/staging/template/order/channel/email/variant/default/', { locale: 'en', content: { subject: 'Order {{order}}', text: 'Your order {{order}} has shipped' } }));
    ok(await management('POST', 'v2/staging/template/order/channel/inbox/variant/default/', { locale: 'en', content: { body: 'News about {{order}}' } }));
    ok(await management('PATCH', 'v2/staging/template/order/commit/?commit_message=t'));
    const workflow = (name: string, category: string, nodes: unknown[]) => ({ name, category, trigger_type: 'api', tree: { nodes } });
    ok(await management('POST', 'v1/staging/workflow/receipt/?commit=true&commit_message=first', workflow('Receipt', 'transactional', [{ name: 'Mail', node_type: 'send_email', template: 'order' }])));
    ok(await management('POST', 'v1/staging/workflow/newsletter/?commit=true&commit_message=first', workflow('Newsletter', 'promotional', [{ name: 'Inbox', node_type: 'send_inbox', template: 'order' }])));
    ok(
      await management(
        'POST',
        'v1/staging/workflow/reminder/?commit=true&commit_message=first',
        workflow('Reminder', 'transactional', [
          { name: 'Wait a day', node_type: 'delay', delay_type: 'fixed', duration: '1d0h0m0s' },
          { name: 'Inbox', node_type: 'send_inbox', template: 'order' },
        ]),
      ),
    );
    ok(await api('POST', 'v1/user/ada/', { $email: ['ada@example.com'], name: 'Ada Lovelace', plan: 'pro' }));
    ok(await api('POST', 'v1/subscriber_list/', { list_id: 'beta', list_name: 'Beta testers' }));
    ok(await api('POST', 'v1/subscriber_list/beta/subscriber/add/', { distinct_ids: ['ada'] }));
    ok(await api('POST', 'v1/tenant/acme/', { tenant_name: 'Acme' }));
    ok(await api('POST', 'v1/object/team/eng/', { name: 'Engineering' }));

    browser = await launchChromium();
    page = await watchedPage(browser, problems);
    page.on('dialog', (dialog) => void dialog.accept());
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await herald?.stop();
    await smtp?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('an API key works on every service as soon as its create answers (no wait, no retry)', async () => {
    const created = await management('POST', 'v1/staging/ws_api_key/', { name: 'fresh' });
    expect(created.status).toBe(201);
    const { api_key: fresh, id } = created.body as { api_key: string; id: string };
    // The engine, preference-service, channel-dispatchers and ingest-api, each from its own read model.
    const answers = await Promise.all([
      api('GET', 'v1/workflow_run/', undefined, fresh),
      api('GET', 'v1/user/ada/', undefined, fresh),
      api('GET', 'v1/user/ada/inbox/', undefined, fresh),
      api('POST', 'event/', { distinct_id: 'ada', event: 'key_checked' }, fresh),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 202]);
    // Deleted: refused everywhere as soon as the delete answers.
    expect((await management('DELETE', `v1/staging/ws_api_key/${id}/`)).status).toBe(204);
    const refused = await Promise.all([api('GET', 'v1/workflow_run/', undefined, fresh), api('GET', 'v1/user/ada/', undefined, fresh), api('GET', 'v1/user/ada/inbox/', undefined, fresh)]);
    expect(refused.map((answer) => answer.status)).toEqual([401, 401, 401]);
  });

  it('finds a user, opts a category out in the console (the next trigger of it is not sent), shows the overview, opens and retries a failed email, cancels a run, changes a list', async () => {
    // Before: a newsletter reaches ada's inbox, and a receipt fails on the email vendor's password.
    const firstNewsletter = await trigger('newsletter');
    const receipt = await trigger('receipt');
    await expectEventually(async () => expect((await messagesOf(firstNewsletter)).map((m) => m.status)).toEqual(['delivered']), { timeoutMs: 60_000 });
    await expectEventually(async () => expect((await messagesOf(receipt)).map((m) => m.status)).toEqual(['delivery_failure']), { timeoutMs: 60_000 });
    const [failed] = await messagesOf(receipt);
    expect(failed.failure_reason).toContain('535');

    // Sign in: the Runs page reads with the session's brand-new API key at once, no 401.
    await page.goto(`${herald.managementUrl}console/`);
    await expectEventually(async () => expect(await page.inputValue('input[name=base_url]')).toBe(herald.baseUrl), { timeoutMs: 30_000 });
    await page.fill('input[name=service_token]', serviceToken);
    await page.click('button[type=submit]');
    await page.locator('table.runs tbody tr').first().waitFor(UI);
    expect(await page.getByRole('alert').count()).toBe(0);

    // Users: found by distinct_id; profile, channels, inbox, lists, runs and messages.
    await page.getByRole('link', { name: 'Users' }).click();
    await page.locator('table.users tbody tr', { hasText: 'ada' }).waitFor(UI);
    await screenshot('1-users');
    await page.fill('input[name=distinct_id]', 'ada');
    await page.click('form.filters button[type=submit]');
    await page.locator('table.channels').getByText('ada@example.com').waitFor(UI);
    expect(await page.locator('pre.json').first().textContent()).toContain('Ada Lovelace');
    await page.locator('table.inbox').getByText('News about A-7').waitFor(UI);
    await page.locator('.user-lists').getByRole('link', { name: 'Beta testers' }).waitFor(UI);
    await expectEventually(async () => expect(await page.locator('table.user-messages tbody tr').count()).toBe(2), { timeoutMs: 30_000 });
    expect(await page.locator('table.user-runs').textContent()).toMatch(/newsletter[\s\S]*receipt|receipt[\s\S]*newsletter/);
    await screenshot('2-user');

    // Opt out of the promotional category in the console: the next newsletter is not sent.
    const promotional = page.locator('input[name="pref:promotional"]');
    expect(await promotional.isChecked()).toBe(true);
    await promotional.click();
    await expectEventually(async () => expect(await page.locator('input[name="pref:promotional"]').isChecked()).toBe(false), { timeoutMs: 30_000 });
    expect(await page.locator('input[name="pref:promotional:inbox"]').isDisabled()).toBe(true);
    const afterOptOut = await trigger('newsletter');
    await expectEventually(async () => expect((await messagesOf(afterOptOut)).map((m) => m.status)).toEqual(['not_sent']), { timeoutMs: 60_000 });
    const [skipped] = await messagesOf(afterOptOut);
    expect(skipped.failure_reason).toMatch(/opt/i);
    // The preference stands as the API reads it, and the page shows the skip among ada's messages.
    expect(JSON.stringify((await api('GET', 'v1/user/ada/preference/category/promotional/')).body)).toContain('"preference":"opt_out"');
    await page.reload();
    await page.locator('table.user-messages tbody tr', { hasText: 'not_sent' }).waitFor(UI);
    await screenshot('3-user-opted-out');

    // Overview: the counts of Herald's own message log.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.locator('.stat[data-stat=total] .stat-value').waitFor(UI);
    const stat = async (name: string) => Number(await page.locator(`.stat[data-stat=${name}] .stat-value`).textContent());
    expect({ total: await stat('total'), delivered: await stat('delivered'), failed: await stat('failed'), skipped: await stat('skipped') }).toEqual({ total: 3, delivered: 1, failed: 1, skipped: 1 });
    expect(await page.locator('table.by-channel tr[data-channel=inbox] td.count-total').textContent()).toBe('2');
    expect(await page.locator('table.by-vendor tr[data-vendor="email/smtp"] td.count-failed').textContent()).toBe('1');
    expect(await page.locator('table.failed-by-reason').textContent()).toContain('535');
    expect(await page.locator('.chart .chart-bar').count()).toBeGreaterThanOrEqual(24);
    await screenshot('4-overview');
    await page.getByRole('button', { name: 'Last 30 days' }).click();
    await expectEventually(async () => expect(await page.locator('.chart .chart-bar').count()).toBe(31), { timeoutMs: 30_000 });

    // The failed email at its own URL: status, reason, vendor, its history in the run's log.
    await page.goto(`${herald.managementUrl}console/messages/${failed.message_id}`);
    await page.locator('dd.message-status').waitFor(UI);
    expect(await page.locator('dd.message-status').textContent()).toContain('delivery_failure');
    expect(await page.locator('dd.failure-reason').textContent()).toContain('535');
    expect(await page.locator('dd.message-vendor').textContent()).toBe('email/smtp');
    await expectEventually(async () => expect(await page.locator('.message-history .step-label').allTextContents()).toEqual(['Delivery requested', 'Delivery outcome']), { timeoutMs: 30_000 });
    await screenshot('5-message-failed');

    // Fix the vendor, then retry in the console: the email goes out, and the page shows it sent.
    ok(await management('PUT', 'v1/staging/vendor/email/smtp/', smtpVendor(SMTP_PASSWORD)));
    await page.getByRole('button', { name: 'Retry this delivery' }).click();
    await page.getByText('Retry scheduled').waitFor(UI);
    await smtp.received(1);
    expect(smtp.mails[0].raw).toContain('Subject: Order A-7');
    await expectEventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        expect(await page.locator('dd.message-status').textContent()).toMatch(/^sent_by_vendor after 2 attempts$/);
      },
      { timeoutMs: 60_000 },
    );
    expect(await page.locator('dd.failure-reason').textContent()).toBe('—');
    await screenshot('6-message-retried');

    // A run waiting a day, cancelled from its page.
    const reminder = await trigger('reminder');
    let runId = '';
    await expectEventually(async () => {
      const runs = (await api('GET', `v1/workflow_run/?message_id=${reminder}`)).body as { results: Array<{ execution_id: string; status: string }> };
      expect(runs.results.map((run) => run.status)).toEqual(['running']);
      runId = runs.results[0].execution_id;
    });
    await page.goto(`${herald.managementUrl}console/runs/${runId}`);
    await page.getByRole('button', { name: 'Cancel this run' }).click();
    await expectEventually(async () => expect(await page.locator('dd.run-status').textContent()).toBe('cancelled'), { timeoutMs: 30_000 });
    expect(await page.locator('ol.timeline .step-label').allTextContents()).toContain('Run cancelled');
    expect(await page.getByRole('button', { name: 'Cancel this run' }).count()).toBe(0);
    await screenshot('7-run-cancelled');

    // Runs filtered by the user, and the messages list paged, link to each message's page.
    await page.goto(`${herald.managementUrl}console/runs?recipient_id=ada&workflow_slug=receipt`);
    await expectEventually(async () => expect(await page.locator('table.runs tbody tr').count()).toBe(1), { timeoutMs: 30_000 });
    await page.goto(`${herald.managementUrl}console/messages?recipient_id=ada&limit=2`);
    await page.locator('table.messages tbody tr').nth(1).waitFor(UI);
    expect(await page.locator('nav.pager').textContent()).toContain('2 of 3');
    await page.getByRole('button', { name: 'Older →' }).click();
    await expectEventually(async () => expect(await page.locator('table.messages tbody tr').count()).toBe(1), { timeoutMs: 30_000 });
    const oldest = (await page.locator('table.messages button.link').textContent()) ?? '';
    await page.locator('table.messages a.open-message').click();
    await page.locator('dd.message-status').waitFor(UI);
    expect(page.url()).toBe(`${herald.managementUrl}console/messages/${encodeURIComponent(oldest)}`);
    expect(await page.locator('h1').textContent()).toBe(`Message ${oldest}`);

    // A list's members: one added, then removed.
    await page.goto(`${herald.managementUrl}console/lists/beta`);
    await page.locator('table.members').getByText('ada').waitFor(UI);
    await page.fill('input[name=add_distinct_ids]', 'grace');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.locator('table.members').getByText('grace').waitFor(UI);
    await expectEventually(async () => expect(await page.locator('dd.list-count').textContent()).toBe('2'), { timeoutMs: 30_000 });
    await screenshot('8-list');
    await page.locator('table.members tr', { hasText: 'grace' }).getByRole('button', { name: 'Remove' }).click();
    await page.locator('table.members').getByText('grace').waitFor({ state: 'detached', ...UI });
    expect(((await api('GET', 'v1/subscriber_list/beta/subscriber/')).body as { results: Array<{ distinct_id: string }> }).results.map((m) => m.distinct_id)).toEqual(['ada']);

    // Tenants and objects: a list and a detail page each.
    await page.getByRole('link', { name: 'Tenants' }).click();
    await page.getByRole('link', { name: 'acme' }).click();
    await page.getByText('"tenant_name": "Acme"').waitFor(UI);
    await screenshot('9-tenant');
    await page.getByRole('link', { name: 'Objects' }).click();
    await page.fill('input[name=object_type]', 'team');
    await page.click('form.filters button[type=submit]');
    await page.getByRole('link', { name: 'eng' }).click();
    await page.getByText('"name": "Engineering"').waitFor(UI);
    await screenshot('10-object');

    expect(problems).toEqual([]);
  }, 300_000);
});
