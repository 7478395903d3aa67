import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EventAccepted, TOPICS, parseEnvelope } from '@herald/contracts';
import { REPO_ROOT, expectEventually, fetchJson, heraldEnv, uniqueName } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'e2e', 'python-sdk', 'run_all.py');
/** Debian's python3, where `.ci/run` installs python3-requests and python3-jsonschema (a pyenv python3 earlier on PATH may lack them). */
const PYTHON = process.env.HERALD_TEST_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

/** Why the SDK cannot run here, or undefined: python3 and the SDK's two dependencies. */
function pythonProblem(): string | undefined {
  const probe = spawnSync(PYTHON, ['-c', 'import requests, jsonschema'], { encoding: 'utf8' });
  if (probe.error) return `${PYTHON} cannot run (${probe.error.message}); install python3`;
  if (probe.status !== 0) return `${PYTHON} lacks the SDK's dependencies (${probe.stderr.trim().split('\n').pop()}); apt-get install python3-requests python3-jsonschema`;
  return undefined;
}
const problem = pythonProblem();
const required = process.env.HERALD_TEST_REQUIRE_INFRA === '1';
if (problem !== undefined && !required) console.warn(`SKIPPED: the suprsend-py-sdk compatibility test: ${problem}`);
const describeWithPython = problem === undefined || required ? describe : describe.skip;

/** Every call e2e/python-sdk/run_all.py makes: each public method of suprsend-py-sdk 0.19.7, some in more than one form. */
const PYTHON_CALLS = [
  'tenants.upsert',
  'tenants.get',
  'tenants.list',
  'tenants.update_preference_category',
  'tenants.list_preference_categories',
  'tenants.get_preference_category',
  'brands.upsert',
  'brands.get',
  'brands.list',
  'users.upsert',
  'users.get',
  'users.list',
  'users.get_edit_instance',
  'users.edit(UserEdit)',
  'users.edit(distinct_id, payload)',
  'users.edit(removals)',
  'users.async_edit',
  'users.get_bulk_edit_instance().save',
  'users.upsert_for_tenant',
  'users.get_for_tenant',
  'users.edit(UserEdit with tenant_id)',
  'users.edit(distinct_id, payload, tenant_id)',
  'tenants.upsert(spare)',
  'users.upsert_for_tenant(spare)',
  'users.list_associated_tenants',
  'users.unlink_tenant',
  'users.get_full_preference',
  'users.update_global_channels_preference',
  'users.get_category_preference',
  'users.update_category_preference',
  'objects.upsert',
  'objects.get',
  'objects.list',
  'objects.get_edit_instance',
  'objects.edit(ObjectEdit)',
  'objects.edit(type, id, payload)',
  'objects.create_subscriptions',
  'objects.get_subscriptions',
  'objects.delete_subscriptions',
  'users.get_objects_subscribed_to',
  'objects.get_objects_subscribed_to',
  'objects.get_full_preference',
  'objects.update_global_channels_preference',
  'objects.get_category_preference',
  'objects.update_category_preference',
  'objects.upsert(to delete)',
  'objects.delete',
  'objects.bulk_delete',
  'subscriber_lists.create',
  'subscriber_lists.get_all',
  'subscriber_lists.get',
  'subscriber_lists.add',
  'subscriber_lists.remove',
  'users.get_lists_subscribed_to',
  'subscriber_lists.broadcast',
  'subscriber_lists.start_sync',
  'subscriber_lists.get_version',
  'subscriber_lists.add_to_version',
  'subscriber_lists.remove_from_version',
  'subscriber_lists.finish_sync',
  'subscriber_lists.start_sync(to drop)',
  'subscriber_lists.delete_version',
  'subscriber_lists.create(to delete)',
  'subscriber_lists.delete',
  'workflows.trigger',
  'workflows.trigger(no tenant)',
  'workflows.bulk_trigger_instance().trigger',
  'add_attachment',
  'trigger_workflow(dict)',
  'trigger_workflow(Workflow)',
  'bulk_workflows.new_instance().trigger',
  'track',
  'track_event',
  'bulk_events.new_instance().trigger',
  'user.get_instance().save',
  'user.get_instance(removals).save',
  'bulk_users.new_instance().save',
  'messages.list',
  'messages.bulk_update',
  'users.upsert(to merge)',
  'users.merge',
  'users.upsert(to delete)',
  'users.delete',
  'users.bulk_delete',
];

interface CallResult {
  readonly method: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly result: unknown;
}

/**
 * SuprSend's Python SDK (suprsend-py-sdk 0.19.7, vendored unmodified in
 * e2e/python-sdk/vendor), run by Debian's python3 with Debian's requests and jsonschema,
 * configured with only Herald's base URL and a workspace key/secret: run_all.py calls
 * every public method once against one embedded Herald; this test asserts each call's
 * success and what Herald stored.
 */
describeWithPython('suprsend-py-sdk 0.19.7 against Herald (one embedded Herald)', () => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const workspaceKey = `hwk_${randomBytes(16).toString('hex')}`;
  const workspaceSecret = `hws_${randomBytes(24).toString('base64url')}`;
  const tag = randomBytes(4).toString('hex');
  const user = `py-user-${tag}`;
  const tenant = `py-tenant-${tag}`;
  let herald: EmbeddedHerald;
  let dataDir: string | undefined;
  let calls: CallResult[] = [];
  const events: EventAccepted[] = [];

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
  const inboxOf = async (distinctId: string): Promise<string[]> => ((ok(await api('GET', `v1/user/${distinctId}/inbox/?limit=100`)) as { results: Array<{ body: string }> }).results.map((m) => m.body));
  const resultOf = (method: string): Record<string, unknown> => calls.find((c) => c.method === method)?.result as Record<string, unknown>;

  beforeAll(async () => {
    if (problem !== undefined) throw new Error(`HERALD_TEST_REQUIRE_INFRA=1 and ${problem}`);
    dataDir = mkdtempSync(join(tmpdir(), 'herald-python-sdk-'));
    herald = await startEmbeddedHerald(
      heraldEnv({
        HERALD_DATA_DIR: dataDir,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_BOOTSTRAP_WORKSPACE_KEY: workspaceKey,
        HERALD_BOOTSTRAP_WORKSPACE_SECRET: workspaceSecret,
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    await herald.bus.subscribe({
      groupId: uniqueName('python-sdk-events'),
      topics: [TOPICS.eventAccepted.name],
      handler: async (message) => {
        const envelope = parseEnvelope(message.value);
        if (envelope.ok) events.push(envelope.value.payload as EventAccepted);
      },
    });
    ok(
      await management('POST', 'v1/staging/preference_category/', {
        root_categories: [{ root_category: 'transactional', sections: [{ name: 'Account', categories: [{ category: 'account', name: 'Account', default_preference: 'opt_in' }] }] }],
      }),
    );
    ok(await management('PATCH', 'v1/staging/preference_category/commit/?commit_message=c'));
    ok(await management('POST', 'v2/staging/template/py-welcome/', { name: 'Py welcome', enabled_channels: ['inbox'] }));
    // The recipient's role shows which profile the run read: the user's, or the user's in the tenant.
    ok(await management('POST', 'v2/staging/template/py-welcome/channel/inbox/variant/default/', { locale: 'en', content: { body: '{{$recipient.role}}: {{name}}' } }));
    ok(await management('PATCH', 'v2/staging/template/py-welcome/commit/?commit_message=t'));
    const send = { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'py-welcome' }] };
    ok(await management('POST', 'v1/staging/workflow/py-welcome/?commit=true&commit_message=t', { name: 'Py welcome', category: 'account', trigger_type: 'api', tree: send }));
    // The workflow and the template reach every service through the bus: wait until a trigger is delivered.
    await expectEventually(
      async () => {
        expect((await api('POST', 'trigger/', { workflow: 'py-welcome', recipients: [`probe-${tag}`], data: { name: 'probe' } })).status).toBe(202);
        await expectEventually(async () => expect(await inboxOf(`probe-${tag}`)).toContainEqual(expect.stringContaining('probe')), { timeoutMs: 10_000 });
      },
      { timeoutMs: 60_000 },
    );

    const { stdout } = await run(PYTHON, ['-B', '-W', 'ignore::DeprecationWarning', SCRIPT], {
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', HERALD_BASE_URL: herald.baseUrl, HERALD_WORKSPACE_KEY: workspaceKey, HERALD_WORKSPACE_SECRET: workspaceSecret, HERALD_TEST_TAG: tag },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 180_000,
    });
    calls = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as CallResult);
  }, 300_000);

  afterAll(async () => {
    await herald?.stop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it('every public method of the SDK succeeds', () => {
    expect(calls.map((call) => call.method)).toEqual(PYTHON_CALLS);
    // Failures with what the SDK saw, so a regression names its method and Herald's answer.
    expect(calls.filter((call) => !call.ok).map(({ method, detail }) => ({ method, detail }))).toEqual([]);
  });

  it("stores the user's profile in the tenant apart from its own, and a run in the tenant reads it merged over it", async () => {
    expect(await api('GET', `v1/user/${user}/tenant/${tenant}/`)).toMatchObject({
      status: 200,
      body: { tenant_id: tenant, properties: { role: 'owner', seat: 7, desk: 'A1' }, $sms: [{ value: '+15555550111' }] },
    });
    expect(await api('GET', `v1/user/${user}/tenant/py-spare-${tag}/`)).toMatchObject({ status: 404 });
    expect(resultOf('users.list_associated_tenants')).toMatchObject({ meta: { count: 2 } });
    expect(await api('GET', `v1/user/${user}/associated_tenant/`)).toMatchObject({ status: 200, body: { meta: { count: 1 }, results: [{ tenant_id: tenant }] } });
    const profile = ok(await api('GET', `v1/user/${user}/`)) as Record<string, unknown> & { properties: Record<string, unknown> };
    expect(profile.properties).toMatchObject({ name: 'Py', role: 'member', plan: 'pro', logins: 1, $locale: 'en_GB', $timezone: 'Europe/London', nickname: 'Other' });
    expect(profile.properties).not.toHaveProperty('seat');
    for (const channel of ['$email', '$sms', '$whatsapp', '$androidpush', '$iospush', '$webpush', '$slack', '$ms_teams']) expect(profile[channel]).toEqual(expect.any(Array));
    // The tenant's trigger rendered its role; the workspace trigger and the broadcast the user's own.
    await expectEventually(async () => expect((await inboxOf(user)).sort()).toEqual([`member: workspace ${tag}`, 'member: list', `owner: in tenant ${tag}`].sort()), { timeoutMs: 30_000 });
  });

  it('stores what the other methods wrote: events, identity saves, objects, lists, merges and deletes', async () => {
    await expectEventually(() => expect(events.filter((e) => e.event === 'py_tracked' && e.distinct_id === user).map((e) => e.properties.via).sort()).toEqual(['track', 'track_event']));
    expect(events.find((e) => e.properties.via === 'track_event')).toMatchObject({ tenant_id: tenant });
    await expectEventually(() => expect(events.filter((e) => e.event === 'py_bulk_event').map((e) => e.distinct_id).sort()).toEqual([`py-other-${tag}`, user].sort()));
    await expectEventually(async () => expect(await api('GET', `v1/user/py-saved-${tag}/`)).toMatchObject({ status: 200, body: { properties: { name: 'Py' }, $email: [{ value: `py-${tag}@example.com` }] } }));
    await expectEventually(async () => expect(await api('GET', `v1/user/py-bulk-user-b-${tag}/`)).toMatchObject({ status: 200, body: { $email: [{ value: `bulk-b-${tag}@example.com` }] } }));
    await expectEventually(async () => expect(await api('GET', `v1/user/py-bulk-a-${tag}/`)).toMatchObject({ status: 200, body: { properties: { bulk: 'a' } } }));
    expect(await api('GET', `v1/object/py-teams/py-team-${tag}/`)).toMatchObject({ status: 200, body: { properties: { name: 'Py', size: 3 }, subscriptions_count: 1 } });
    expect(await api('GET', `v1/object/py-teams/py-gone-${tag}/`)).toMatchObject({ status: 404 });
    expect(await api('GET', `v1/subscriber_list/py-list-${tag}/subscriber/`)).toMatchObject({ status: 200, body: { results: [{ distinct_id: user }] } });
    expect(await api('GET', `v1/subscriber_list/py-list-${tag}-gone/`)).toMatchObject({ status: 404 });
    expect(await api('GET', `v1/user/py-other-${tag}/`)).toMatchObject({ status: 404 });
    expect(await api('GET', `v1/user/py-gone-${tag}/`)).toMatchObject({ status: 404 });
    expect(await api('GET', `v1/tenant/${tenant}/`)).toMatchObject({ status: 200, body: { tenant_name: 'Py Tenant' } });
    expect(await api('GET', `v1/tenant/py-brand-${tag}/`)).toMatchObject({ status: 200, body: { tenant_name: 'Py Brand', timezone: 'Europe/Berlin' } });
    await expectEventually(async () => expect((await inboxOf(`py-legacy-${tag}`)).join()).toContain(`legacy ${tag}`));
    await expectEventually(async () => expect(await inboxOf(`py-bulk-wf-2-${tag}`)).toEqual([': bulk']));
    expect(resultOf('messages.bulk_update')).toMatchObject({ records: [{ status_code: 202 }] });
  });
});
