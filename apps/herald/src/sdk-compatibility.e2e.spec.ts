import { randomBytes } from 'node:crypto';
import { Event, SubscriberListBroadcast, Suprsend, Workflow, WorkflowTriggerRequest } from '@suprsend/node-sdk';
import { Envelope, EventAccepted, TOPICS, TriggerAccepted, TriggerChunkAccepted, expandTriggerChunk, parseEnvelope } from '@herald/contracts';
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
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
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
        HERALD_BOOTSTRAP_API_KEY: apiKey,
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
    await herald.bus.subscribe({
      groupId: uniqueName('sdk-test-reader'),
      topics: [TOPICS.triggerChunkAccepted.name],
      handler: async (message) => {
        const envelope = parseEnvelope(message.value);
        if (envelope.ok) triggers.push(...expandTriggerChunk(envelope.value as Envelope<TriggerChunkAccepted>).map((t) => t.payload));
      },
    });
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

    // An inbox template for the legacy dynamic workflow (it names a template, not a workflow).
    for (const [method, path, body] of [
      ['POST', 'v2/staging/template/sdk-inbox/', { name: 'SDK inbox', enabled_channels: ['inbox'] }],
      ['POST', 'v2/staging/template/sdk-inbox/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Hi {{name}}' } }],
      ['PATCH', 'v2/staging/template/sdk-inbox/commit/?commit_message=t', undefined],
    ] as const) {
      expect((await management(method, path, body)).status).toBeLessThan(300);
    }

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

  // ---- The calls that answered 404 before issue 16, and the rest of the SDK's methods.

  const inboxOf = async (distinctId: string): Promise<Array<{ message_id?: string; n_id?: string } & Record<string, unknown>>> => {
    const inbox = await fetchJson(`${herald.baseUrl}v1/user/${distinctId}/inbox/`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(inbox.status).toBe(200);
    return (inbox.body as { results: Array<Record<string, unknown>> }).results;
  };
  const legacy = (name: string, distinctId: string): InstanceType<typeof Workflow> =>
    new Workflow({ name, template: 'sdk-inbox', notification_category: 'account', users: [{ distinct_id: distinctId, $channels: ['inbox'] }], data: { name: distinctId } });

  it('trigger_workflow and bulk_workflows (the legacy dynamic workflow) are delivered to the inbox; track is accepted', async () => {
    await expectEventually(async () => expect(await sdk.trigger_workflow(legacy('sdk-legacy', 'sdk-legacy-1'))).toMatchObject({ success: true, status_code: 202 }));
    const bulk = sdk.bulk_workflows.new_instance();
    bulk.append(legacy('sdk-legacy-bulk', 'sdk-legacy-2'), legacy('sdk-legacy-bulk', 'sdk-legacy-3'));
    expect(await bulk.trigger()).toMatchObject({ status: 'success', total: 2, success: 2, failure: 0 });
    for (const user of ['sdk-legacy-1', 'sdk-legacy-2', 'sdk-legacy-3']) {
      await expectEventually(async () => expect(JSON.stringify(await inboxOf(user))).toContain(`Hi ${user}`), { timeoutMs: 60_000 });
    }
    expect(await sdk.track('sdk-tracker', 'sdk_tracked', { n: 1 })).toMatchObject({ success: true, status_code: 202 });
    await expectEventually(() => expect(events.filter((e) => e.event === 'sdk_tracked')).toHaveLength(1));
  });

  it('messages.list and messages.bulk_update: a message marked seen shows seen, bad input is a 400', async () => {
    let messageId = '';
    await expectEventually(
      async () => {
        const page = (await sdk.messages.list({ recipient_id: 'sdk-legacy-1', limit: 5 })) as { results: Array<{ message_id: string; status: string }> };
        expect(page.results).toHaveLength(1);
        messageId = page.results[0].message_id;
      },
      { timeoutMs: 60_000 },
    );
    const updated = await sdk.messages.bulk_update([
      { message_id: messageId, action: 'seen' },
      { message_id: 'no-such-message', action: 'clicked' },
      { message_id: `${messageId}-x`, action: 'archived' },
    ]);
    expect(updated).toEqual({
      records: [
        { message_id: messageId, status_code: 202, error: null },
        { message_id: 'no-such-message', status_code: 404, error: { type: 'not_found', message: 'not found' } },
        { message_id: `${messageId}-x`, status_code: 404, error: { type: 'not_found', message: 'not found' } },
      ],
    });
    await expectEventually(async () => {
      const page = (await sdk.messages.list({ recipient_id: 'sdk-legacy-1' })) as { results: Array<{ status: string }> };
      expect(page.results[0].status).toBe('seen');
    });
    await expect(sdk.messages.bulk_update([{ message_id: messageId, action: 'shred' }])).rejects.toThrow(/400/);
    const junk: unknown[] = [null, [], {}, { messages: [] }, { messages: 'x' }, { messages: [null] }, { messages: [{ message_id: 1, action: 'seen' }] }, { messages: [{ message_id: 'a', action: 'seen' }, { message_id: 'a', action: 'seen' }] }];
    for (const body of junk) {
      const response = await fetchJson(`${herald.baseUrl}v1/bulk/message/`, { method: 'PATCH', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
  });

  it('users: list, upsert, edit, edit instances, async_edit, merge, get_lists_subscribed_to, delete, bulk_delete', async () => {
    await sdk.users.upsert('sdk-primary', { $email: ['primary@example.com'], plan: 'pro' });
    await sdk.users.upsert('sdk-secondary', { $email: ['secondary@example.com'], company: 'Acme' });
    expect(await sdk.users.edit('sdk-primary', { operations: [{ $set: { seats: 2 } }] })).toMatchObject({ properties: { plan: 'pro', seats: 2 } });
    const edit = sdk.users.get_edit_instance('sdk-primary');
    edit.set('role', 'admin');
    expect(await sdk.users.edit(edit)).toMatchObject({ properties: { role: 'admin' } });
    const asyncEdit = sdk.users.get_edit_instance('sdk-primary');
    asyncEdit.set('via', 'async');
    expect(await sdk.users.async_edit(asyncEdit)).toMatchObject({ success: true });
    const bulkEdit = sdk.users.get_bulk_edit_instance();
    const one = sdk.users.get_edit_instance('sdk-bulk-edit-1');
    one.set('n', 1);
    bulkEdit.append(one);
    expect(await bulkEdit.save()).toMatchObject({ status: 'success', success: 1 });
    await expectEventually(async () => expect(await sdk.users.get('sdk-primary')).toMatchObject({ properties: { via: 'async' } }));

    const merged = (await sdk.users.merge('sdk-primary', 'sdk-secondary')) as Record<string, Array<{ value: unknown }>>;
    expect(merged.$email.map((e) => e.value)).toEqual(['primary@example.com', 'secondary@example.com']);
    expect(merged).toMatchObject({ properties: { plan: 'pro', company: 'Acme' } });
    await expect(sdk.users.get('sdk-secondary')).rejects.toThrow(/404/);

    await sdk.subscriber_lists.create({ list_id: 'sdk-member-of' });
    await sdk.subscriber_lists.add('sdk-member-of', ['sdk-primary']);
    expect(((await sdk.users.get_lists_subscribed_to('sdk-primary')) as { results: Array<{ list: { list_id: string } }> }).results.map((r) => r.list.list_id)).toEqual(['sdk-member-of']);
    expect(((await sdk.users.list({ limit: 1 })) as { results: unknown[] }).results).toHaveLength(1);

    await sdk.users.upsert('sdk-gone-1', {});
    await sdk.users.upsert('sdk-gone-2', {});
    expect(await sdk.users.delete('sdk-gone-1')).toMatchObject({ success: true });
    expect(await sdk.users.bulk_delete({ distinct_ids: ['sdk-gone-2', 'sdk-never'] })).toMatchObject({ success: true, status_code: 204 });
    await expect(sdk.users.get('sdk-gone-2')).rejects.toThrow(/404/);
  });

  it('objects: list, get, edit and its instances, get_objects_subscribed_to, delete, bulk_delete', async () => {
    await sdk.objects.upsert('sdk-teams', 'alpha', { name: 'Alpha' });
    await sdk.objects.upsert('sdk-teams', 'beta', { name: 'Beta' });
    expect(await sdk.objects.get('sdk-teams', 'alpha')).toMatchObject({ id: 'alpha', properties: { name: 'Alpha' } });
    expect(((await sdk.objects.list('sdk-teams', { limit: 10 })) as { results: unknown[] }).results).toHaveLength(2);
    expect(await sdk.objects.edit('sdk-teams', 'alpha', { operations: [{ $set: { size: 3 } }] })).toMatchObject({ properties: { size: 3 } });
    for (const instance of [sdk.objects.get_edit_instance('sdk-teams', 'alpha'), sdk.objects.get_instance('sdk-teams', 'alpha')]) {
      instance.set('edited', true);
      expect(await sdk.objects.edit(instance)).toMatchObject({ properties: { edited: true } });
    }
    await sdk.objects.upsert('sdk-orgs', 'org', {});
    await sdk.objects.create_subscriptions('sdk-orgs', 'org', { recipients: [{ id: 'alpha', object_type: 'sdk-teams' }] });
    expect(((await sdk.objects.get_objects_subscribed_to('sdk-teams', 'alpha')) as { results: unknown[] }).results).toHaveLength(1);
    expect(await sdk.objects.delete('sdk-teams', 'beta')).toMatchObject({ success: true });
    expect(await sdk.objects.bulk_delete('sdk-teams', { object_ids: ['alpha'] })).toMatchObject({ success: true, status_code: 204 });
    await expect(sdk.objects.get('sdk-teams', 'alpha')).rejects.toThrow(/404/);
  });

  it('subscriber_lists: create, get_all, get, add, remove, versions from start_sync to finish_sync, broadcast, delete', async () => {
    await sdk.subscriber_lists.create({ list_id: 'sdk-list', list_name: 'SDK list' });
    expect(await sdk.subscriber_lists.add('sdk-list', ['sdk-old-1', 'sdk-old-2'])).toMatchObject({ success: true, affected_count: 2 });
    expect(await sdk.subscriber_lists.remove('sdk-list', ['sdk-old-2'])).toMatchObject({ affected_count: 1 });
    expect(((await sdk.subscriber_lists.get_all({ limit: 100 })) as { results: Array<{ list_id: string }> }).results.map((l) => l.list_id)).toContain('sdk-list');

    const draft = (await sdk.subscriber_lists.start_sync('sdk-list')) as { version_id: string; status: string };
    expect(draft.status).toBe('draft');
    expect(await sdk.subscriber_lists.add_to_version('sdk-list', draft.version_id, ['sdk-legacy-1', 'sdk-new-2'])).toMatchObject({ affected_count: 2 });
    expect(await sdk.subscriber_lists.remove_from_version('sdk-list', draft.version_id, ['sdk-new-2'])).toMatchObject({ affected_count: 1 });
    expect(await sdk.subscriber_lists.get_version('sdk-list', draft.version_id)).toMatchObject({ subscribers_count: 1, version_id: draft.version_id });
    expect(await sdk.subscriber_lists.get('sdk-list')).toMatchObject({ subscribers_count: 1 });
    expect(await sdk.subscriber_lists.finish_sync('sdk-list', draft.version_id)).toMatchObject({ status: 'active', subscribers_count: 1, version_id: null });
    expect(((await sdk.users.get_lists_subscribed_to('sdk-legacy-1')) as { results: Array<{ list: { list_id: string } }> }).results.map((r) => r.list.list_id)).toEqual(['sdk-list']);
    const discarded = (await sdk.subscriber_lists.start_sync('sdk-list')) as { version_id: string };
    expect(await sdk.subscriber_lists.delete_version('sdk-list', discarded.version_id)).toMatchObject({ success: true });

    // The synced list's one member gets the broadcast in the inbox.
    const broadcast = await sdk.subscriber_lists.broadcast(new SubscriberListBroadcast({ list_id: 'sdk-list', template: 'sdk-inbox', notification_category: 'account', data: { name: 'list member' } }));
    expect(broadcast).toMatchObject({ success: true, status_code: 202 });
    await expectEventually(async () => expect(JSON.stringify(await inboxOf('sdk-legacy-1'))).toContain('Hi list member'), { timeoutMs: 60_000 });
    expect(await sdk.subscriber_lists.delete('sdk-list')).toMatchObject({ success: true });
  });

  it('tenants and brands: the same records under both names', async () => {
    expect(await sdk.tenants.upsert('sdk-tenant', { tenant_name: 'SDK tenant' })).toMatchObject({ tenant_id: 'sdk-tenant' });
    expect(await sdk.brands.get('sdk-tenant')).toMatchObject({ brand_id: 'sdk-tenant', brand_name: 'SDK tenant' });
    expect(await sdk.brands.upsert('sdk-brand', { brand_name: 'SDK brand' })).toMatchObject({ brand_id: 'sdk-brand', brand_name: 'SDK brand' });
    expect(await sdk.tenants.get('sdk-brand')).toMatchObject({ tenant_name: 'SDK brand' });
    expect(((await sdk.tenants.list({ limit: 10 })) as { results: unknown[] }).results.length).toBeGreaterThanOrEqual(2);
    expect(((await sdk.brands.list({ limit: 10 })) as { results: Array<{ brand_id: string }> }).results.map((b) => b.brand_id)).toEqual(expect.arrayContaining(['sdk-tenant', 'sdk-brand']));
  });

  it('a wrong secret is refused with 401 and reported as a failure by the SDK', async () => {
    const wrong = new Suprsend(workspaceKey, 'not-the-secret', { base_url: herald.baseUrl });
    const response = await wrong.workflows.trigger(new WorkflowTriggerRequest({ workflow: 'welcome', recipients: ['nobody'], data: {} }));
    expect(response).toMatchObject({ success: false, status_code: 401 });
    expect(triggersFor('nobody')).toEqual([]);
  });
});
