import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Suprsend, Workflow } from '@suprsend/node-sdk';
import { REPO_ROOT, expectEventually, fetchJson, heraldEnv } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';

const run = promisify(execFile);
const PROJECT = join(REPO_ROOT, 'e2e', 'java-sdk');

/** Every public call of suprsend-java-sdk 0.5.0, as JavaSdkCheck names them. */
const JAVA_CALLS = [
  'triggerWorkflow',
  'triggerWorkflow(JSONObject)',
  'bulkWorkflows',
  'trackEvent',
  'track',
  'bulkEvents',
  'user.save',
  'bulkUsers',
  'brands.upsert',
  'brands.get',
  'brands.list',
  'subscriberLists.create',
  'subscriberLists.getAll',
  'subscriberLists.get',
  'subscriberLists.add',
  'subscriberLists.remove',
  'subscriberLists.broadcast',
];

interface CallResult {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/**
 * The official SuprSend Java SDK (0.5.0, from Maven Central) against Herald, configured
 * with only Herald's base URL and a workspace key/secret: e2e/java-sdk is built with
 * Maven and calls every public method of the SDK once, printing a line per call.
 */
beforeAll(async () => {
  // Maven fetches the SDK into ~/.m2 the first time (cached afterwards).
  await run('mvn', ['-q', '-B', '-f', join(PROJECT, 'pom.xml'), 'package'], { cwd: PROJECT, maxBuffer: 16 * 1024 * 1024 });
}, 600_000);

describe.each(heraldModes('java-sdk'))('the official suprsend-java-sdk 0.5.0 against Herald ($name)', (mode) => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const workspaceKey = `hwk_${randomBytes(16).toString('hex')}`;
  const workspaceSecret = `hws_${randomBytes(24).toString('base64url')}`;
  const tag = randomBytes(4).toString('hex');
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let calls: CallResult[] = [];

  const management = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const api = (method: string, path: string): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${apiKey}` } });
  const inboxText = async (distinctId: string): Promise<string> => {
    const inbox = await api('GET', `v1/user/${distinctId}/inbox/`);
    expect(inbox.status).toBe(200);
    return JSON.stringify(inbox.body);
  };

  beforeAll(async () => {
    const prepared = await mode.prepare();
    dispose = prepared.dispose;
    herald = await startEmbeddedHerald(
      heraldEnv({
        ...prepared.env,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_BOOTSTRAP_WORKSPACE_KEY: workspaceKey,
        HERALD_BOOTSTRAP_WORKSPACE_SECRET: workspaceSecret,
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    const ok = (response: { status: number; body: unknown }): void => expect({ success: response.status >= 200 && response.status < 300, body: response.body }).toMatchObject({ success: true });
    ok(
      await management('POST', 'v1/staging/preference_category/', {
        root_categories: [{ root_category: 'transactional', sections: [{ name: 'Account', categories: [{ category: 'account', name: 'Account', default_preference: 'opt_in' }] }] }],
      }),
    );
    ok(await management('PATCH', 'v1/staging/preference_category/commit/?commit_message=c'));
    ok(await management('POST', 'v2/staging/template/java-welcome/', { name: 'Java welcome', enabled_channels: ['inbox'] }));
    ok(await management('POST', 'v2/staging/template/java-welcome/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Hello {{name}}' } }));
    ok(await management('PATCH', 'v2/staging/template/java-welcome/commit/?commit_message=t'));

    // The key, the category and the template reach every service through the bus: the
    // Node SDK's legacy trigger_workflow is delivered once all of them have.
    const node = new Suprsend(workspaceKey, workspaceSecret, { base_url: herald.baseUrl });
    await expectEventually(
      async () => {
        const probe = await node.trigger_workflow(
          new Workflow({ name: 'probe', template: 'java-welcome', notification_category: 'account', users: [{ distinct_id: `probe-${tag}` }], data: { name: 'probe' } }),
        );
        expect(probe).toMatchObject({ success: true, status_code: 202 });
        await expectEventually(async () => expect(await inboxText(`probe-${tag}`)).toContain('Hello probe'), { timeoutMs: 10_000 });
      },
      { timeoutMs: 60_000 },
    );

    const { stdout } = await run('java', ['-cp', `${join(PROJECT, 'target', 'classes')}:${join(PROJECT, 'target', 'dependency', '*')}`, 'dev.herald.sdkcheck.JavaSdkCheck', herald.baseUrl, workspaceKey, workspaceSecret, tag], {
      maxBuffer: 16 * 1024 * 1024,
      timeout: 120_000,
    });
    calls = stdout
      .split('\n')
      .filter((line) => line.startsWith('CALL '))
      .map((line) => {
        const [, name, outcome, ...rest] = line.split(' ');
        return { name, ok: outcome === 'OK', detail: rest.join(' ') };
      });
  }, 300_000);

  afterAll(async () => {
    await herald?.stop();
    await dispose?.();
  });

  it('every public call of the SDK succeeds', () => {
    expect(calls.map((call) => call.name)).toEqual(JAVA_CALLS);
    // Failures with what the SDK saw, so a regression names its call and Herald's answer.
    expect(calls.filter((call) => !call.ok)).toEqual([]);
  });

  it('triggerWorkflow (the dynamic workflow) and the broadcast reach the inbox, rendered', async () => {
    await expectEventually(async () => expect(await inboxText(`java-inbox-${tag}`)).toContain(`Hello Java ${tag}`), { timeoutMs: 60_000 });
    await expectEventually(async () => expect(await inboxText(`java-inbox-${tag}`)).toContain('Hello list'), { timeoutMs: 60_000 });
    await expectEventually(async () => expect(await inboxText(`java-bulk-2-${tag}`)).toContain(`Hello Java ${tag}`), { timeoutMs: 60_000 });
  });

  it('user.save stores every channel, the tokenless Slack entries included; brands are tenants', async () => {
    await expectEventually(async () => {
      const user = await api('GET', `v1/user/java-user-${tag}/`);
      expect(user.status).toBe(200);
      const body = user.body as Record<string, Array<{ value: unknown }>>;
      expect(body.$email.map((e) => e.value)).toEqual([`java-${tag}@example.com`]);
      expect(body.$slack.map((e) => e.value)).toEqual(
        expect.arrayContaining([
          // addSlackEmail and addSlackUserid: no access_token (the vendor's bot token sends).
          expect.not.objectContaining({ access_token: expect.anything() }),
          expect.objectContaining({ email: `slack-${tag}@example.com` }),
          expect.objectContaining({ user_id: expect.stringMatching(/^U/) }),
        ]),
      );
    });
    expect(await api('GET', `v1/tenant/java-brand-${tag}/`)).toMatchObject({ status: 200, body: { tenant_name: 'Java Brand', timezone: 'Europe/Berlin' } });
  });
});
