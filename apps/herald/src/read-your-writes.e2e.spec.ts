import { randomBytes, randomUUID } from 'node:crypto';
import { SubscriberListBroadcast, Suprsend, WorkflowTriggerRequest } from '@suprsend/node-sdk';
import { TOPICS } from '@herald/contracts';
import { INGRESS_SIGNATURE_HEADER, INGRESS_WORKSPACE_KEY_HEADER, signIngressMessage } from '@herald/ingest-api';
import { expectEventually, fetchJson, heraldEnv } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';

/** Each case's writes and triggers, as many times (10 users at once, as a busy client would). */
const TRIES = 100;
const AT_ONCE = 10;

/**
 * What Herald acknowledged for a recipient before a trigger is seen by that trigger's
 * run: a profile saved through the Node SDK (an identity event, ingest-api), the Kafka
 * ingress or REST (preference-service), a category opted out of, a list joined, each
 * answered and then followed at once by a trigger or broadcast. The writes and the triggers travel
 * different paths to the engine; the write answers once the engine holds it.
 */
describe.each(heraldModes('ryw'))('read-your-writes: an acknowledged audience write is seen by the next trigger ($name)', (mode) => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const workspaceKey = `hwk_${randomBytes(16).toString('hex')}`;
  const workspaceSecret = `hws_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let sdk: InstanceType<typeof Suprsend>;

  const management = async (method: string, path: string, body?: unknown): Promise<void> => {
    const response = await fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect({ path, status: response.status < 300 ? 'ok' : response.status, body: response.body }).toMatchObject({ status: 'ok' });
  };
  const api = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${herald.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const trigger = async (distinctId: string): Promise<void> => {
    const accepted = await sdk.workflows.trigger(new WorkflowTriggerRequest({ workflow: 'plan-note', recipients: [distinctId], data: {} }));
    expect(accepted).toMatchObject({ success: true, status_code: 202 });
  };
  /** The inbox texts of each user, once every one of them has one message. */
  const inboxTexts = async (distinctIds: readonly string[]): Promise<Map<string, string>> => {
    const texts = new Map<string, string>();
    await expectEventually(async () => {
      for (const id of distinctIds.filter((id) => !texts.has(id))) {
        const inbox = await api('GET', `v1/user/${id}/inbox/`);
        expect(inbox.status).toBe(200);
        const results = (inbox.body as { results: unknown[] }).results;
        if (results.length > 0) texts.set(id, JSON.stringify(results));
      }
      expect(texts.size).toBe(distinctIds.length);
    }, { timeoutMs: 120_000 });
    return texts;
  };
  async function inGroups(count: number, work: (index: number) => Promise<void>): Promise<void> {
    for (let start = 0; start < count; start += AT_ONCE) {
      await Promise.all(Array.from({ length: Math.min(AT_ONCE, count - start) }, (_, i) => work(start + i)));
    }
  }

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
    await management('POST', 'v1/staging/preference_category/', {
      root_categories: [{ root_category: 'transactional', sections: [{ name: 'Notes', categories: [{ category: 'notes', name: 'Notes', default_preference: 'opt_in' }] }] }],
    });
    await management('PATCH', 'v1/staging/preference_category/commit/?commit_message=categories');
    await management('POST', 'v2/staging/template/plan-note/', { name: 'Plan note', enabled_channels: ['inbox'] });
    await management('POST', 'v2/staging/template/plan-note/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Plan {{$recipient.plan}}' } });
    await management('PATCH', 'v2/staging/template/plan-note/commit/?commit_message=t');
    await management('POST', 'v1/staging/workflow/plan-note/?commit=true&commit_message=first', {
      name: 'Plan note',
      category: 'notes',
      trigger_type: 'api',
      tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'plan-note' }] },
    });
    sdk = new Suprsend(workspaceKey, workspaceSecret, { base_url: herald.baseUrl });
    // The workspace key reaches ingest-api through the bus: wait for it once.
    await expectEventually(async () => trigger('ryw-probe'), { timeoutMs: 30_000 });
  });

  afterAll(async () => {
    await herald?.stop();
    await dispose?.();
  });

  it(`a profile saved with the Node SDK's user.save() is seen by a trigger sent at once, ${TRIES} times`, async () => {
    const ids = Array.from({ length: TRIES }, (_, i) => `ryw-sdk-${i}`);
    await inGroups(TRIES, async (i) => {
      const user = sdk.user.get_instance(ids[i]);
      user.set('plan', `sdk-plan-${i}`);
      expect(await user.save()).toMatchObject({ success: true, status_code: 202 });
      await trigger(ids[i]);
    });
    const texts = await inboxTexts(ids);
    expect(ids.filter((id, i) => !(texts.get(id) ?? '').includes(`Plan sdk-plan-${i}`))).toEqual([]);
  });

  it(`a profile change published to the Kafka ingress is seen by a trigger published after it on the same topic and key, ${TRIES} times`, async () => {
    const ids = Array.from({ length: TRIES }, (_, i) => `ryw-ingress-${i}`);
    const publish = (key: string, body: unknown): Promise<void> => {
      const value = JSON.stringify(body);
      const headers = { [INGRESS_WORKSPACE_KEY_HEADER]: workspaceKey, [INGRESS_SIGNATURE_HEADER]: signIngressMessage(value, workspaceSecret) };
      return herald.bus.publish(TOPICS.ingressTrigger.name, [{ key, value, headers }]);
    };
    await inGroups(TRIES, async (i) => {
      await publish(ids[i], { distinct_id: ids[i], $user_operations: [{ $set: { plan: `ingress-plan-${i}` } }], $insert_id: randomUUID() });
      await publish(ids[i], { workflow: 'plan-note', recipients: [ids[i]], data: {} });
    });
    const texts = await inboxTexts(ids);
    expect(ids.filter((id, i) => !(texts.get(id) ?? '').includes(`Plan ingress-plan-${i}`))).toEqual([]);
  });

  it(`a profile upserted over REST is seen by a trigger sent at once, ${TRIES} times`, async () => {
    const ids = Array.from({ length: TRIES }, (_, i) => `ryw-rest-${i}`);
    await inGroups(TRIES, async (i) => {
      expect(await sdk.users.upsert(ids[i], { plan: `rest-plan-${i}` })).toMatchObject({ distinct_id: ids[i] });
      await trigger(ids[i]);
    });
    const texts = await inboxTexts(ids);
    expect(ids.filter((id, i) => !(texts.get(id) ?? '').includes(`Plan rest-plan-${i}`))).toEqual([]);
  });

  it(`a category opted out of is seen by a trigger sent at once, ${TRIES} times`, async () => {
    const ids = Array.from({ length: TRIES }, (_, i) => `ryw-pref-${i}`);
    await inGroups(TRIES, async (i) => {
      expect(await sdk.users.upsert(ids[i], { plan: 'any' })).toMatchObject({ distinct_id: ids[i] });
      const optedOut = await api('PATCH', `v1/user/${ids[i]}/preference/category/notes/`, { preference: 'opt_out' });
      expect(optedOut.status).toBe(202);
      await trigger(ids[i]);
    });
    const statusOf = new Map<string, { status: string; failure_reason?: unknown }>();
    await expectEventually(async () => {
      for (const id of ids.filter((id) => !statusOf.has(id))) {
        const page = (await sdk.messages.list({ recipient_id: id })) as { results: Array<{ status: string; failure_reason?: unknown }> };
        if (page.results.length > 0) statusOf.set(id, page.results[0]);
      }
      expect(statusOf.size).toBe(TRIES);
    }, { timeoutMs: 120_000 });
    expect(ids.filter((id) => statusOf.get(id)?.status !== 'not_sent')).toEqual([]);
    // Nothing reached an inbox.
    for (const id of ids.slice(0, 5)) expect((await api('GET', `v1/user/${id}/inbox/`)).body).toMatchObject({ results: [] });
  });

  it(`a user added to a list is reached by a broadcast sent at once, ${TRIES} times`, async () => {
    const ids = Array.from({ length: TRIES }, (_, i) => `ryw-list-${i}`);
    await inGroups(TRIES, async (i) => {
      const listId = `ryw-list-${i}`;
      await sdk.subscriber_lists.create({ list_id: listId });
      expect(await sdk.subscriber_lists.add(listId, [ids[i]])).toMatchObject({ success: true, affected_count: 1 });
      const broadcast = await sdk.subscriber_lists.broadcast(new SubscriberListBroadcast({ list_id: listId, template: 'plan-note', notification_category: 'notes', data: {} }));
      expect(broadcast).toMatchObject({ success: true, status_code: 202 });
    });
    await inboxTexts(ids);
  });
});
