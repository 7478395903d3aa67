import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { expectEventually, heraldEnv } from '@herald/testing';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { LocalSmtpServer } from '../../../libs/services/channel-dispatchers/src/testing/local-smtp-server';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { UI, artifactsFolder, describeInBrowser, launchChromium, prepareConsoleBrowserTest, watchedPage } from './testing/console-browser';

const SCREENSHOTS = artifactsFolder('console-journey');
const OWNER = { email: 'grace@example.com', password: 'correct horse battery staple' };
const SMTP_PASSWORD = 'smtp-password-for-the-journey';

/**
 * Issue 43's first "done when": a new user's whole journey in the console, in a real
 * browser, with no API call from the test (it only reads the local SMTP server): signs in
 * with the bootstrap operator's email and password; configures an SMTP vendor in its form
 * and sends a test; writes an email and an inbox variant with their previews and commits;
 * builds a workflow (a delay, a branch on the plan, an email on one path and an inbox
 * message on the other) in the editor and commits it; triggers it from the workflow's Test
 * panel, once for each path; follows each run until the email is in the SMTP server and the
 * inbox message is on the user's page.
 */
describeInBrowser('a new user in the console, from sign-in to a delivered email and inbox message (chromium, one embedded Herald)', () => {
  let herald: EmbeddedHerald;
  let smtp: LocalSmtpServer;
  let dataDir: string;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  let shot = 0;
  const screenshot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${++shot}-${name}.png`), fullPage: true });

  beforeAll(async () => {
    prepareConsoleBrowserTest(SCREENSHOTS);
    smtp = await LocalSmtpServer.start({ username: 'mailer', password: SMTP_PASSWORD });
    dataDir = mkdtempSync(join(tmpdir(), 'herald-console-journey-'));
    herald = await startEmbeddedHerald(
      heraldEnv({
        HERALD_DATA_DIR: dataDir,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: `hst_${randomBytes(24).toString('base64url')}`,
        HERALD_BOOTSTRAP_OPERATOR_EMAIL: OWNER.email,
        HERALD_BOOTSTRAP_OPERATOR_PASSWORD: OWNER.password,
        // The local SMTP server only: any other private address stays refused, as in production.
        HERALD_OUTBOUND_ALLOW: '127.0.0.1/32',
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    browser = await launchChromium();
    page = await watchedPage(browser, problems);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await herald?.stop();
    await smtp?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs in, sets up SMTP, writes a template, builds and commits a workflow, triggers it from the Test panel and follows both runs to their deliveries', async () => {
    // Sign-in: the bootstrap operator's email and password.
    await page.goto(`${herald.managementUrl}console/`);
    await expectEventually(async () => expect(await page.inputValue('input[name=base_url]')).toBe(herald.baseUrl), { timeoutMs: 30_000 });
    await page.fill('input[name=email]', OWNER.email);
    await page.fill('input[name=password]', OWNER.password);
    await screenshot('sign-in');
    await page.click('button[type=submit]');
    await page.getByRole('link', { name: 'Vendors' }).waitFor(UI);
    expect(await page.locator('header').textContent()).toContain(`${OWNER.email} owner`);

    // Vendors: SMTP configured in its form, and a test sent and answered.
    await page.getByRole('link', { name: 'Vendors' }).click();
    await page.locator('select[name=new-vendor]').selectOption('email/smtp');
    await page.getByRole('button', { name: 'Configure' }).click();
    const credential = (name: string) => page.locator(`.vendor-form [name="credential-${name}"]`);
    await credential('host').fill('127.0.0.1');
    await credential('port').fill(String(smtp.port));
    await credential('username').fill('mailer');
    await credential('password').fill(SMTP_PASSWORD);
    await credential('from').fill('Shop <shop@example.com>');
    await page.getByRole('button', { name: 'Save vendor' }).click();
    await page.locator('tr[data-vendor="email/smtp"]').waitFor(UI);
    await page.fill('.vendor-test [name=test-to]', 'ada@example.com');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.locator('.test-answer.ok').waitFor(UI);
    await smtp.received(1);
    expect(smtp.mails[0]).toMatchObject({ to: ['ada@example.com'], username: 'mailer' });
    await screenshot('vendor-tested');

    // Templates: an email and an inbox variant, each with its preview, committed.
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.fill('input[name=template-slug]', 'order-shipped');
    await page.fill('input[name=template-name]', 'Order shipped');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.locator('h2', { hasText: 'order-shipped' }).waitFor(UI);
    await page.locator('select[name=new-channel]').selectOption('email');
    await page.getByRole('button', { name: 'Add variant' }).click();
    await page.locator('.variant-editor').waitFor(UI);
    await page.fill('[name=content-subject]', 'Order {{order}} has shipped');
    await page.locator('.markup-editor .cm-content').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('<h1>Good news</h1><p>Your order {{order}} is on its way.</p>');
    // Herald's renderer draws it in the mail frame as a mail client would.
    await page.frameLocator('iframe.mail-frame').frameLocator('#mail').locator('h1', { hasText: 'Good news' }).waitFor(UI);
    await screenshot('email-preview');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.locator('.variant-editor .notice', { hasText: 'Draft saved' }).waitFor(UI);
    await page.locator('select[name=new-channel]').selectOption('inbox');
    await page.getByRole('button', { name: 'Add variant' }).click();
    await page.locator('[name=content-body]').waitFor(UI);
    await page.fill('[name=content-header]', 'Order shipped');
    await page.fill('[name=content-body]', 'Your order {{order}} is on its way');
    await page.locator('.inbox-body', { hasText: 'Your order' }).waitFor(UI);
    await screenshot('inbox-preview');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.locator('.variant-editor .notice', { hasText: 'Draft saved' }).waitFor(UI);
    await page.fill('input[name=commit-message]', 'shipping notice');
    await page.getByRole('button', { name: 'Commit' }).click();
    await page.locator('.template-live', { hasText: 'version 1' }).waitFor(UI);
    await screenshot('template-committed');

    // Workflows: a delay, a branch on the plan, an email for pro customers and an inbox message for the others.
    const node = (path: string) => page.locator(`[data-node="${path}"]`);
    const field = (name: string) => page.locator(`.node-form [name="field-${name}"]`);
    const addNode = async (list: string, nodeType: string) => {
      const adder = page.locator(`ol[data-list="${list}"] > li.add-node`);
      await adder.locator('select').selectOption(nodeType);
      await adder.getByRole('button', { name: 'Add node' }).click();
    };
    await page.getByRole('link', { name: 'Workflows' }).click();
    await page.getByRole('link', { name: 'New workflow' }).click();
    await page.locator('input[name=slug]').waitFor(UI);
    await page.fill('input[name=slug]', 'order-shipped');
    await page.fill('input[name=workflow-name]', 'Order shipped');
    await addNode('tree.nodes', 'delay');
    await field('duration').fill('0d0h0m2s');
    await addNode('tree.nodes', 'branch');
    await field('name').fill('Plan?');
    await page.fill('[name=branch-0-name]', 'pro');
    await page.fill('[name=branch-0-variable]', 'plan');
    await page.fill('[name=branch-0-value]', 'pro');
    await addNode('tree.nodes[1].branches[0].nodes', 'send_email');
    await addNode('tree.nodes[1].branches[1].nodes', 'send_inbox');
    await page.locator('.validity.valid').waitFor(UI);
    expect(await node('tree.nodes[1].branches[0].nodes[0]').textContent()).toContain('order-shipped');
    await screenshot('workflow-editor');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.locator('.notice', { hasText: 'Draft saved (version 1, valid)' }).waitFor(UI);
    await page.fill('input[name=commit_message]', 'first version');
    await page.getByRole('button', { name: 'Commit' }).click();
    await page.locator('.notice', { hasText: 'Committed: live version 1.' }).waitFor(UI);

    // The Test panel on the workflow's page: the data is checked as JSON before anything is sent.
    await page.getByRole('link', { name: 'versions, enable or disable' }).click();
    const panel = page.locator('form.workflow-test');
    /** Triggers from the panel: the API's answer, or the refusal it showed. */
    const trigger = async () => {
      await panel.getByRole('button', { name: 'Trigger' }).click();
      await panel.locator('.test-answer, [role=alert]').first().waitFor(UI);
      expect(await panel.locator('[role=alert]').count() === 0 ? '' : await panel.locator('[role=alert]').textContent()).toBe('');
      expect(await panel.locator('.test-answer').textContent()).toMatch(/^Accepted \(success\): message_id [0-9a-f-]{36} · its run$/);
    };
    await panel.waitFor(UI);
    await panel.locator('[name=test-distinct-id]').fill('ada');
    await panel.locator('[name=test-email]').fill('ada@example.com');
    await panel.locator('[name=test-data]').fill('{"plan": "pro", order: "A-7"}');
    await panel.getByRole('button', { name: 'Trigger' }).click();
    await panel.locator('.field-error', { hasText: 'not JSON' }).waitFor(UI);
    await panel.locator('[name=test-data]').fill('{"plan": "pro", "order": "A-7"}');
    await trigger();
    expect(await panel.locator('.field-error').count()).toBe(0);
    await screenshot('test-triggered');

    /** Follows the answer's link to the runs of that trigger until its run completed, then opens the run. */
    const followRun = async (channel: string) => {
      await panel.getByRole('link', { name: 'its run' }).click();
      await page.locator('h1', { hasText: 'Runs' }).waitFor(UI);
      await expectEventually(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          const row = page.locator('table.runs tbody tr').first();
          await row.waitFor({ timeout: 5_000 });
          expect(await row.locator('.status').first().textContent()).toBe('completed');
          expect(await row.textContent()).toContain(`${channel}:`);
        },
        { timeoutMs: 90_000 },
      );
      await screenshot(`run-list-${channel}`);
      await page.locator('table.runs tbody tr').first().locator('a').first().click();
      await page.locator('h1', { hasText: 'Run' }).waitFor(UI);
      await screenshot(`run-${channel}`);
    };
    await followRun('email');
    await smtp.received(2);
    expect(smtp.mails[1]).toMatchObject({ to: ['ada@example.com'], from: 'shop@example.com' });
    expect(smtp.mails[1].raw).toContain('Subject: Order A-7 has shipped');
    expect(smtp.mails[1].raw).toContain('Good news');

    // The other path: a customer on another plan gets the inbox message.
    await page.getByRole('link', { name: 'Workflows' }).click();
    await page.getByRole('link', { name: 'order-shipped' }).click();
    await panel.waitFor(UI);
    await panel.locator('[name=test-distinct-id]').fill('ada');
    await panel.locator('[name=test-data]').fill('{"plan": "free", "order": "A-8"}');
    await trigger();
    await followRun('inbox');

    // The user's page: the inbox message, and the email address the first test set.
    await page.getByRole('link', { name: 'Users' }).click();
    await page.fill('input[name=distinct_id]', 'ada');
    await page.click('form.filters button[type=submit]');
    await page.locator('table.channels').getByText('ada@example.com').waitFor(UI);
    await page.locator('table.inbox').getByText('Your order A-8 is on its way').waitFor(UI);
    await screenshot('user-inbox');
    // No other mail went out: the free customer got no email.
    expect(smtp.mails).toHaveLength(2);

    // Nothing failed unseen. Expected: a variant is looked up before it is edited (a new one
    // answers 404), and the runs page opened right after sign-in may read with the session's
    // new API key before the notification API knows it (401).
    expect(problems.filter((text) => !text.includes('status of 404') && !text.includes('status of 401'))).toEqual([]);
  }, 300_000);
});
