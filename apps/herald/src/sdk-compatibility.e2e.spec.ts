import { randomBytes } from 'node:crypto';
import { Event, Suprsend, WorkflowTriggerRequest } from '@suprsend/node-sdk';
import { EventAccepted, TOPICS, TriggerAccepted, parseEnvelope } from '@herald/contracts';
import { expectEventually, fetchJson, heraldEnv, uniqueName } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';

/**
 * The official SuprSend Node SDK, configured only with Herald's base URL and a workspace
 * key/secret, against the whole of Herald as `npm start` composes it.
 */
describe.each(heraldModes('sdk'))('the official @suprsend/node-sdk against Herald ($name)', (mode) => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const workspaceKey = `hwk_${randomBytes(16).toString('hex')}`;
  const workspaceSecret = `hws_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let sdk: InstanceType<typeof Suprsend>;
  const triggers: TriggerAccepted[] = [];
  const events: EventAccepted[] = [];

  beforeAll(async () => {
    const prepared = await mode.prepare();
    dispose = prepared.dispose;
    herald = await startEmbeddedHerald(
      heraldEnv({
        ...prepared.env,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_WORKSPACE_KEY: workspaceKey,
        HERALD_BOOTSTRAP_WORKSPACE_SECRET: workspaceSecret,
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    const read = <T>(topic: string, into: T[]): Promise<unknown> =>
      herald.bus.subscribe({
        groupId: uniqueName('sdk-test-reader'),
        topics: [topic],
        handler: async (message) => {
          const envelope = parseEnvelope(message.value);
          if (envelope.ok) into.push(envelope.value.payload as T);
        },
      });
    await read(TOPICS.triggerAccepted.name, triggers);
    await read(TOPICS.eventAccepted.name, events);

    const management = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
      fetchJson(`${herald.managementUrl}${path}`, {
        method,
        headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const categories = {
      root_categories: [{ root_category: 'transactional', sections: [{ name: 'Account', categories: [{ category: 'account', name: 'Account', default_preference: 'opt_in' }] }] }],
    };
    expect(await management('POST', 'v1/staging/preference_category/', categories)).toMatchObject({ status: 200 });
    expect(await management('PATCH', 'v1/staging/preference_category/commit/?commit_message=categories')).toMatchObject({ status: 200 });
    const workflow = {
      name: 'Welcome',
      category: 'account',
      trigger_type: 'api',
      tree: { nodes: [{ name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration: '0d0h0m1s' }] },
    };
    expect(await management('POST', 'v1/staging/workflow/welcome/', workflow)).toMatchObject({ status: 201 });
    const committed = await management('PATCH', 'v1/staging/workflow/welcome/commit/?commit_message=first');
    expect(committed).toMatchObject({ status: 202, body: { status: 'active' } });

    sdk = new Suprsend(workspaceKey, workspaceSecret, { base_url: herald.baseUrl });
    // The workflow and the workspace key reach ingest-api through the bus; wait for both.
    await expectEventually(async () => {
      const probe = await sdk.workflows.trigger(new WorkflowTriggerRequest({ workflow: 'welcome', recipients: ['probe'], data: {} }));
      expect(probe).toMatchObject({ success: true });
    }, { timeoutMs: 30_000 });
  });

  afterAll(async () => {
    await herald?.stop();
    await dispose?.();
  });

  const triggersFor = (distinctId: string): TriggerAccepted[] =>
    triggers.filter((t) => t.recipient.kind === 'user' && t.recipient.distinct_id === distinctId);

  it('workflows.trigger: a single trigger is accepted and becomes one run per recipient', async () => {
    const response = await sdk.workflows.trigger(
      new WorkflowTriggerRequest(
        { workflow: 'welcome', recipients: ['sdk-1', { distinct_id: 'sdk-2', $email: ['two@example.com'] }], data: { plan: 'pro' } },
        { idempotency_key: 'sdk-single-1', tenant_id: 'acme' },
      ),
    );
    expect(response).toMatchObject({ success: true, status: 'success', status_code: 202 });
    const messageId = (JSON.parse((response as unknown as { message: string }).message) as { message_id: string }).message_id;
    await expectEventually(() => expect([...triggersFor('sdk-1'), ...triggersFor('sdk-2')]).toHaveLength(2));
    expect(triggersFor('sdk-2')[0]).toMatchObject({ message_id: messageId, tenant_id: 'acme', data: { plan: 'pro' }, idempotency_key: 'sdk-single-1' });
  });

  it('workflows.bulk_trigger_instance: every record is accepted and runs', async () => {
    const bulk = sdk.workflows.bulk_trigger_instance();
    for (let i = 0; i < 5; i += 1) bulk.append(new WorkflowTriggerRequest({ workflow: 'welcome', recipients: [`sdk-bulk-${i}`], data: { i } }));
    const response = await bulk.trigger();
    expect(response).toMatchObject({ status: 'success', total: 5, success: 5, failure: 0 });
    await expectEventually(() => expect([0, 1, 2, 3, 4].flatMap((i) => triggersFor(`sdk-bulk-${i}`))).toHaveLength(5));
  });

  it('track_event: an event is accepted', async () => {
    const response = await sdk.track_event(new Event('sdk-user', 'sdk_signed_up', { plan: 'pro' }, { idempotency_key: 'sdk-ev-1' }));
    expect(response).toMatchObject({ success: true, status_code: 202 });
    await expectEventually(() => expect(events.filter((e) => e.event === 'sdk_signed_up')).toEqual([expect.objectContaining({ distinct_id: 'sdk-user', properties: expect.objectContaining({ plan: 'pro' }) })]));
  });

  it('bulk_events: every event is accepted', async () => {
    const bulk = sdk.bulk_events.new_instance();
    bulk.append(new Event('sdk-a', 'sdk_bulk_event', {}), new Event('sdk-b', 'sdk_bulk_event', {}));
    const response = await bulk.trigger();
    expect(response).toMatchObject({ status: 'success', total: 2, success: 2, failure: 0 });
    await expectEventually(() => expect(events.filter((e) => e.event === 'sdk_bulk_event').map((e) => e.distinct_id).sort()).toEqual(['sdk-a', 'sdk-b']));
  });

  it('user.get_instance(...).save(): the identity event is accepted and lands in the profile', async () => {
    const user = sdk.user.get_instance('sdk-saved');
    user.add_email('saved@example.com');
    user.add_androidpush('fcm-token-1', 'fcm');
    user.set({ plan: 'pro', seats: 3 });
    user.set_preferred_language('en');
    user.set_timezone('Europe/London');
    user.increment('logins', 2);
    expect(await user.save()).toMatchObject({ success: true, status_code: 202 });
    await expectEventually(async () =>
      expect(await sdk.users.get('sdk-saved')).toMatchObject({
        distinct_id: 'sdk-saved',
        properties: { plan: 'pro', seats: 3, logins: 2, $locale: 'en', $timezone: 'Europe/London' },
        $email: [{ value: 'saved@example.com', status: 'active' }],
        $androidpush: [{ value: { token: 'fcm-token-1', provider: 'fcm' } }],
      }),
    );

    const again = sdk.user.get_instance('sdk-saved');
    again.remove_email('saved@example.com');
    again.unset('seats');
    expect(await again.save()).toMatchObject({ success: true, status_code: 202 });
    await expectEventually(async () => {
      const saved = (await sdk.users.get('sdk-saved')) as Record<string, unknown>;
      expect(saved.$email).toBeUndefined();
      expect(saved.properties).toEqual({ plan: 'pro', logins: 2, $locale: 'en', $timezone: 'Europe/London' });
    });
  });

  it('bulk_users: every user of the bulk is saved', async () => {
    const bulk = sdk.bulk_users.new_instance();
    for (let i = 0; i < 3; i += 1) {
      const user = sdk.user.get_instance(`sdk-bulk-user-${i}`);
      user.set('index', i);
      bulk.append(user);
    }
    expect(await bulk.save()).toMatchObject({ status: 'success', total: 3, success: 3, failure: 0 });
    await expectEventually(async () => {
      for (let i = 0; i < 3; i += 1) expect(await sdk.users.get(`sdk-bulk-user-${i}`)).toMatchObject({ properties: { index: i } });
    });
  });

  it('objects.create_subscriptions / get_subscriptions and users.get_objects_subscribed_to', async () => {
    await sdk.objects.upsert('teams', 'sdk-team', { name: 'SDK team' });
    const created = await sdk.objects.create_subscriptions('teams', 'sdk-team', { recipients: ['sdk-saved', { id: 'sdk-squad', object_type: 'squads' }], properties: { role: 'member' } });
    expect((created as { results: unknown[] }).results).toHaveLength(2);
    const listed = (await sdk.objects.get_subscriptions('teams', 'sdk-team', { limit: 10 })) as { meta: { count: number } };
    expect(listed.meta.count).toBe(2);
    const subscribedTo = (await sdk.users.get_objects_subscribed_to('sdk-saved')) as { results: Array<{ object: { id: string } }> };
    expect(subscribedTo.results.map((r) => r.object.id)).toEqual(['sdk-team']);
    await sdk.objects.delete_subscriptions('teams', 'sdk-team', { recipients: ['sdk-saved'] });
    expect(((await sdk.objects.get_subscriptions('teams', 'sdk-team')) as { meta: { count: number } }).meta.count).toBe(1);
  });

  it('describes the notification API at {base_url}/openapi.json, every public service merged', async () => {
    const { status, body } = await fetchJson(`${herald.baseUrl}openapi.json`);
    expect(status).toBe(200);
    expect(Object.keys((body as { paths: Record<string, unknown> }).paths)).toEqual(expect.arrayContaining(['/trigger/', '/event/']));
  });

  it('a wrong secret is refused with 401 and reported as a failure by the SDK', async () => {
    const wrong = new Suprsend(workspaceKey, 'not-the-secret', { base_url: herald.baseUrl });
    const response = await wrong.workflows.trigger(new WorkflowTriggerRequest({ workflow: 'welcome', recipients: ['nobody'], data: {} }));
    expect(response).toMatchObject({ success: false, status_code: 401 });
    expect(triggersFor('nobody')).toEqual([]);
  });
});
