import { randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { Server, createServer } from 'node:http';
import { Client } from 'pg';
import {
  AUDIENCE_CHANGED_TYPE,
  CHANNELS,
  CREDENTIALS_CHANGED_TYPE,
  DeadLetterPayload,
  DELIVERY_OUTCOME_TYPE,
  DEFINITION_CHANGED_TYPE,
  DefinitionChanged,
  DeliveryRequested,
  EVENT_ACCEPTED_TYPE,
  EventAccepted,
  TOPICS,
  TRIGGER_ACCEPTED_TYPE,
  TriggerAccepted,
  deliveryTopic,
  deterministicUuid,
  envelopeOf,
  parseEnvelope,
} from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { TestHttpApp, ensureHeraldTopics, hashToken, openTargetBus, openTargetDatabase, runModeTargets, startTestHttpApp } from '@herald/runtime';
import { acceptedTrigger, acceptedTriggerChunk, expectEventually, fetchJson, openApiResponseChecker } from '@herald/testing';
import { engineOpenApi } from '../openapi/engine-openapi';
import { workflowEngine } from '../workflow-engine.module';
import { RunHost } from './run-host';

const openApiProblems = openApiResponseChecker(engineOpenApi);

interface Hook {
  readonly at: number;
  readonly body: unknown;
  readonly idempotencyKey?: string;
}

const categories = {
  root_categories: [{ root_category: 'transactional', sections: [{ name: 'Account', categories: [{ category: 'account', name: 'Account', default_preference: 'opt_in' }] }] }],
};
const welcomeMail = {
  slug: 'welcome-mail',
  enabled_channels: ['email'],
  variants: [
    {
      id: 'default',
      channel: 'email',
      tenant_id: null,
      locale: 'en',
      seq_no: 1,
      conditions: [],
      content: { subject: 'Welcome {{name}}', html: '<p>Hi {{name}}</p>', text: 'Hi {{name}}' },
      needs_vendor_approval: false,
      approval_status: 'auto_approved',
    },
  ],
};

describe.each(runModeTargets())('workflow runs ($name)', ({ database, bus: busTarget }) => {
  const workspace = randomUUID();
  const otherWorkspace = randomUUID();
  const apiKey = `hak_${randomUUID()}`;
  const otherApiKey = `hak_${randomUUID()}`;
  let bus: MessageBus;
  let app: TestHttpApp;
  let dispose: () => Promise<void>;
  let databaseUrl: string;
  let hookServer: Server;
  let hookUrl: string;
  const hooks: Hook[] = [];
  const deliveries: DeliveryRequested[] = [];
  const smsDeliveries: DeliveryRequested[] = [];
  let version = 0;

  beforeAll(async () => {
    const db = await openTargetDatabase(database);
    databaseUrl = db.url;
    dispose = db.dispose;
    bus = openTargetBus(busTarget, 'engine-test');
    await ensureHeraldTopics(bus, 3);
    hookServer = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      request.on('end', () => {
        hooks.push({ at: Date.now(), body: JSON.parse(text || 'null'), idempotencyKey: request.headers['idempotency-key'] as string | undefined });
        // /tainted/nul and /tainted/surrogate-key answer JSON that parses but Postgres cannot store.
        const tainted: Record<string, string> = { '/tainted/nul': '{"tier":"gold","note":"a\\u0000b"}', '/tainted/surrogate-key': '{"tier":"gold","\\ud800":1}' };
        response.writeHead(200, { 'content-type': 'application/json' }).end(tainted[request.url ?? ''] ?? JSON.stringify({ tier: 'gold' }));
      });
    });
    await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;
    app = await startTestHttpApp(workflowEngine, databaseUrl, { bus, env: { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' } });
    await bus.subscribe({
      groupId: `reader-${randomUUID()}`,
      topics: [deliveryTopic('sms').name],
      handler: async (message) => {
        const envelope = parseEnvelope(message.value);
        if (envelope.ok) smsDeliveries.push(envelope.value.payload as DeliveryRequested);
      },
    });
    await bus.subscribe({
      groupId: `reader-${randomUUID()}`,
      topics: [deliveryTopic('email').name],
      handler: async (message) => {
        const envelope = parseEnvelope(message.value);
        if (envelope.ok) deliveries.push(envelope.value.payload as DeliveryRequested);
      },
    });

    await announce('category', 'categories', categories);
    await announce('template', 'welcome-mail', welcomeMail);
    await announce('template', 'alerts', {
      slug: 'alerts',
      enabled_channels: ['email', 'sms'],
      variants: [
        { ...welcomeMail.variants[0], id: 'mail' },
        { id: 'text', channel: 'sms', tenant_id: null, locale: 'en', seq_no: 1, conditions: [], content: { body: 'Alert for {{name}}' }, needs_vendor_approval: false, approval_status: 'auto_approved' },
      ],
    });
    // A template and a workflow on every channel there is, so a new channel is covered by the opt-out test.
    await announce('template', 'everywhere', {
      slug: 'everywhere',
      enabled_channels: [...CHANNELS],
      variants: CHANNELS.map((channel) => ({ ...welcomeMail.variants[0], id: channel, channel, content: { subject: 'Hi', html: '<p>Hi</p>', text: 'Hi', body: 'Hi', title: 'Hi' } })),
    });
    await announceWorkflow('everywhere', {
      name: 'Everywhere',
      category: 'account',
      trigger_type: 'api',
      tree: { nodes: [{ name: 'All channels', node_type: 'send_multi_channel', template: 'everywhere', channels: [...CHANNELS] }] },
    });
    // Sent after what a test waits on, on the same key: its delivery comes after every earlier one of that recipient.
    await announceWorkflow('marker', {
      name: 'Marker',
      category: 'account',
      trigger_type: 'api',
      tree: { nodes: [{ name: 'Mail', node_type: 'send_email', template: 'welcome-mail' }] },
    });
    await announceWorkflow('alert', {
      name: 'Alert',
      category: 'account',
      trigger_type: 'api',
      tree: { nodes: [{ name: 'Mail', node_type: 'send_email', template: 'alerts' }, { name: 'Text', node_type: 'send_sms', template: 'alerts' }] },
    });
    await announceWorkflow('onboarding', {
      name: 'Onboarding',
      category: 'account',
      trigger_type: 'api',
      tree: {
        nodes: [
          { name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration: '0d0h0m2s' },
          {
            name: 'Pro?',
            node_type: 'branch',
            branches: [
              {
                name: 'pro',
                is_default: false,
                conditions: [{ type: 'expression_v1', expression_v1: { op: 'AND', args: [{ variable_ns: '', variable: 'plan', op: '==', value: 'pro' }] } }],
                nodes: [{ name: 'Tell CRM', node_type: 'httpapi_webhook', http_method: 'POST', url: hookUrl, body: '{ user: data["$recipient"].distinct_id, plan: data.plan }', output_key: 'crm' }],
              },
              { name: 'others', is_default: true, conditions: [], nodes: [{ name: 'Nothing to wait for', node_type: 'delay', delay_type: 'fixed', duration: '0d0h0m0s' }] },
            ],
          },
          { name: 'Mail', node_type: 'send_email', template: 'welcome-mail' },
        ],
      },
    });
    await announceWorkflow('bad-delay', {
      name: 'Bad delay',
      category: 'account',
      trigger_type: 'api',
      tree: { nodes: [{ name: 'Wait for it', node_type: 'delay', delay_type: 'dynamic', duration: '.wait' }, { name: 'Mail', node_type: 'send_email', template: 'welcome-mail' }] },
    });
    await announceWorkflow('tainted-answer', {
      name: 'Tainted answer',
      category: 'account',
      trigger_type: 'api',
      tree: {
        nodes: [
          { name: 'Look up', node_type: 'httpapi_fetch', http_method: 'GET', url: `"${hookUrl.replace('/hook', '/tainted/')}" + data.answer`, output_key: 'lookup' },
          { name: 'Mail', node_type: 'send_email', template: 'welcome-mail' },
        ],
      },
    });
    await announceWorkflow('slow', {
      name: 'Slow',
      category: 'account',
      trigger_type: 'api',
      tree: { nodes: [{ name: 'Wait an hour', node_type: 'delay', delay_type: 'fixed', duration: '0d1h0m0s' }, { name: 'Mail', node_type: 'send_email', template: 'welcome-mail' }] },
    });
    for (const [ws, key] of [
      [workspace, apiKey],
      [otherWorkspace, otherApiKey],
    ]) {
      const change = { kind: 'api_key', change: 'created', api_key_id: randomUUID(), workspace_id: ws, workspace_slug: 'staging', key_hash: hashToken(key).toString('hex') };
      await bus.publish(TOPICS.credentialsChanged.name, [{ key: ws, value: JSON.stringify(envelopeOf(CREDENTIALS_CHANGED_TYPE, 1, randomUUID(), ws, new Date(), change)) }]);
    }
    await announceWorkflow('on-signup', {
      name: 'On signup',
      category: 'account',
      trigger_type: 'event',
      trigger_events: ['signed_up'],
      tree: { nodes: [{ name: 'Mail', node_type: 'send_email', template: 'welcome-mail' }] },
    });
    await announceWorkflow('batched', {
      name: 'Batched',
      category: 'account',
      trigger_type: 'api',
      tree: {
        nodes: [
          { name: 'Collect', node_type: 'batch', mode: 'accumulate_all', window_type: 'fixed', fixed_window: '0d1h0m0s', batch_key: '.project', retain_count: 100 },
          { name: 'Mail', node_type: 'send_email', template: 'welcome-mail' },
        ],
      },
    });
    await announceWorkflow('batch-cancel', {
      name: 'Batch, owner cancelled',
      category: 'account',
      trigger_type: 'api',
      tree: {
        nodes: [
          { name: 'Collect', node_type: 'batch', mode: 'accumulate_all', window_type: 'fixed', fixed_window: '0d1h0m0s' },
          { name: 'Mail', node_type: 'send_email', template: 'welcome-mail' },
        ],
      },
    });
    await announceWorkflow('wait-paid', {
      name: 'Wait until paid',
      category: 'account',
      trigger_type: 'api',
      tree: {
        nodes: [
          {
            name: 'Paid?',
            node_type: 'branch_waituntil',
            branches: [
              {
                name: 'paid',
                is_default: false,
                conditions: [{ type: 'future_event', event_name: 'order_paid', event_conditions: [{ variable_ns: '$future_event', variable: 'order_id', op: '==', value: 'o-1' }] }],
                nodes: [{ name: 'Thanks', node_type: 'send_email', template: 'welcome-mail' }],
              },
              { name: 'unpaid', is_default: true, conditions: [{ type: 'delay', delay_properties: { delay_type: 'fixed', value: '0d1h0m0s' } }], nodes: [{ name: 'Reminder', node_type: 'send_email', template: 'welcome-mail' }] },
            ],
          },
        ],
      },
    });
    // The definitions are in once the last announcement is.
    await expectEventually(async () => expect(await sql(`SELECT count(*)::int AS n FROM engine.definitions WHERE workspace_id = $1`, [workspace])).toEqual([{ n: 15 }]));
    await expectEventually(async () => expect((await call('GET', 'v1/message/', undefined, otherApiKey)).status).toBe(200));
  });

  afterAll(async () => {
    await app?.close();
    await bus?.close();
    hookServer?.close();
    await dispose?.();
  });

  async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  async function call(method: string, path: string, body?: unknown, key = apiKey): Promise<{ status: number; body: unknown }> {
    const response = await fetchJson(`${app.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const problems = openApiProblems(method, `${app.url}${path}`, response.status, response.body);
    if (problems.length > 0) throw new Error(`response does not match the OpenAPI description:\n${problems.join('\n')}`);
    return response;
  }

  async function announce(kind: DefinitionChanged['kind'], id: string, document: unknown): Promise<void> {
    version += 1;
    const change: DefinitionChanged = { kind, change: 'committed', workspace_id: workspace, workspace_slug: 'staging', id, version, document };
    await bus.publish(TOPICS.definitionChanged.name, [{ key: workspace, value: JSON.stringify(envelopeOf(DEFINITION_CHANGED_TYPE, 1, randomUUID(), workspace, new Date(), change)) }]);
  }

  const announceWorkflow = (slug: string, definition: unknown): Promise<void> => announce('workflow', slug, { slug, version_no: 1, is_enabled: true, hash: 'h', definition });

  async function trigger(workflow: string, distinctId: string, data: Record<string, unknown>): Promise<string> {
    const recipient = { kind: 'user' as const, distinct_id: distinctId, is_transient: false, inline: true, channels: { email: [`${distinctId}@example.com`] }, properties: { name: distinctId } };
    const { runId, message } = acceptedTrigger(workspace, workflow, recipient, data);
    await bus.publish(TOPICS.triggerAccepted.name, [message]);
    return runId;
  }

  async function publishEvent(distinctId: string, name: string, properties: Record<string, unknown>): Promise<string> {
    const messageId = randomUUID();
    const event: EventAccepted = { message_id: messageId, workspace_slug: 'staging', distinct_id: distinctId, event: name, properties, attachments: [], accepted_via: 'api', accepted_at: new Date().toISOString() };
    await bus.publish(TOPICS.eventAccepted.name, [{ key: `${workspace}:${distinctId}`, value: JSON.stringify(envelopeOf(EVENT_ACCEPTED_TYPE, 1, messageId, workspace, new Date(), event)) }]);
    return messageId;
  }

  /**
   * Proves nothing more is coming for a recipient without waiting on the clock: a marker
   * run of the same recipient (same key, so same partition of the inputs and of the
   * delivery commands, and the outbox relays in order) is triggered after the awaited
   * ones, and once its delivery is in, every delivery requested before it is in too.
   */
  async function markerDelivered(distinctId: string, workflow = 'marker', data: Record<string, unknown> = {}): Promise<string> {
    const runId = await trigger(workflow, distinctId, data);
    await expectEventually(() => expect(deliveries.filter((d) => d.run_id === runId)).toHaveLength(1), { timeoutMs: 30_000 });
    return runId;
  }

  /**
   * Closes now the windows (batch, digest, maximum wait) these runs own, by making their
   * timers due by the database clock the poller reads: tests use windows of an hour, so
   * none closes early on a loaded machine, and none depends on how long a window really is.
   */
  async function fireTimersNow(runIds: readonly string[]): Promise<number> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const streams = runIds.map((runId) => `run:${workspace}:${runId}`);
      return (await client.query(`UPDATE engine.timers SET due_at = now() WHERE stream_id = ANY($1::text[])`, [streams])).rowCount ?? 0;
    } finally {
      await client.end();
    }
  }

  const timersOf = (runIds: readonly string[]): Promise<Array<{ stream_id: string; due_in_s: number }>> =>
    sql(`SELECT stream_id, extract(epoch FROM due_at - now())::float8 AS due_in_s FROM engine.timers WHERE stream_id = ANY($1::text[])`, [runIds.map((runId) => `run:${workspace}:${runId}`)]);

  const eventTypes = async (runId: string): Promise<string[]> =>
    (await sql<{ type: string }>(`SELECT type FROM engine.stream_events WHERE stream_id = $1 ORDER BY position`, [`run:${workspace}:${runId}`])).map((r) => r.type);

  it('runs trigger → delay 2 s → branch → webhook → send: the webhook no earlier than the delay, exactly once, and its answer reaches the send', async () => {
    const sentAt = Date.now();
    const runId = await trigger('onboarding', 'ada', { plan: 'pro' });
    await expectEventually(() => expect(deliveries.filter((d) => d.run_id === runId)).toHaveLength(1), { timeoutMs: 30_000 });
    const hooksOf = (run: string): Hook[] => hooks.filter((h) => h.idempotencyKey?.startsWith(`${run}:http:`));
    const mine = hooksOf(runId);
    expect(mine).toHaveLength(1);
    expect(mine[0].at - sentAt).toBeGreaterThanOrEqual(2_000);
    expect(mine[0].body).toEqual({ user: 'ada', plan: 'pro' });
    // The request id rides along, so a receiver can drop the repeat a crash would cause.
    expect(mine[0].idempotencyKey).toMatch(new RegExp(`^${runId}:http:`));
    const [delivery] = deliveries.filter((d) => d.run_id === runId);
    expect(delivery).toMatchObject({
      channel: 'email',
      workflow: { slug: 'onboarding', version: 1 },
      destination: { identities: ['ada@example.com'] },
      template: { slug: 'welcome-mail', variant_id: 'default', content: { subject: 'Welcome {{name}}' } },
      render_data: { plan: 'pro', crm: { tier: 'gold' } },
    });
    expect(await eventTypes(runId)).toEqual(
      expect.arrayContaining(['run.started.v1', 'run.admitted.v1', 'timer.scheduled.v1', 'timer.fired.v1', 'branch.taken.v1', 'http.requested.v1', 'http.responded.v1', 'delivery.requested.v1', 'run.completed.v1']),
    );
    // Nothing more arrives later: a second run of ada through the same webhook and send
    // is consumed, called and sent after the first (same key everywhere).
    const marker = await markerDelivered('ada', 'onboarding', { plan: 'pro' });
    expect(hooksOf(marker)).toHaveLength(1);
    expect(hooksOf(runId)).toHaveLength(1);
    expect(deliveries.filter((d) => d.run_id === runId)).toHaveLength(1);
  });

  it('starts one run per recipient of a trigger chunk, once, however often the chunk and its recipients\' own messages arrive', async () => {
    const recipients = ['cy-1', 'cy-2', 'cy-3'].map((id) => ({ kind: 'user' as const, distinct_id: id, is_transient: false, inline: true, channels: { email: [`${id}@example.com`] }, properties: {} }));
    const chunk = acceptedTriggerChunk(workspace, 'marker', recipients, { n: 1 });
    const messageId = (JSON.parse(chunk.message.value) as { payload: { message_id: string } }).payload.message_id;
    // A redelivered chunk, and the first recipient's message as an older ingest would have published it.
    await bus.publish(TOPICS.triggerChunkAccepted.name, [chunk.message, chunk.message]);
    await bus.publish(TOPICS.triggerAccepted.name, [acceptedTrigger(workspace, 'marker', recipients[0], { n: 1 }, { messageId }).message]);
    for (const runId of chunk.runIds) await expectEventually(() => expect(deliveries.filter((d) => d.run_id === runId)).toHaveLength(1), { timeoutMs: 30_000 });
    expect(deliveries.find((d) => d.run_id === chunk.runIds[2])).toMatchObject({ message_id: messageId, destination: { identities: ['cy-3@example.com'] } });

    // A chunk behind them on their partition (same key): once its runs delivered, the duplicates were all decided.
    const after = acceptedTriggerChunk(workspace, 'marker', recipients, {});
    await bus.publish(TOPICS.triggerChunkAccepted.name, [chunk.message, after.message]);
    await markerDelivered('cy-1');
    for (const runId of after.runIds) await expectEventually(() => expect(deliveries.filter((d) => d.run_id === runId)).toHaveLength(1), { timeoutMs: 30_000 });
    for (const runId of chunk.runIds) expect(deliveries.filter((d) => d.run_id === runId)).toHaveLength(1);
    const started = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM engine.stream_events WHERE type = 'run.started.v1' AND stream_id = ANY($1::text[])`, [
      chunk.runIds.map((runId) => `run:${workspace}:${runId}`),
    ]);
    expect(started).toEqual([{ n: 3 }]);
  });

  it('dead-letters a poison trigger chunk alone, and the chunk behind it on its partition starts its runs', async () => {
    const letters: DeadLetterPayload[] = [];
    const reader = await bus.subscribe({
      groupId: `dlt-reader-${randomUUID()}`,
      topics: [TOPICS.deadLetter.name],
      handler: async (message) => {
        letters.push(JSON.parse(message.value.toString('utf8')) as DeadLetterPayload);
      },
    });
    try {
      const user = (id: string) => ({ kind: 'user' as const, distinct_id: id, is_transient: false, inline: true, channels: { email: [`${id}@example.com`] }, properties: {} });
      const invalid = acceptedTriggerChunk(workspace, 'marker', [user('dot-1'), user('dot-2')], {});
      const broken = JSON.parse(invalid.message.value) as { payload: { recipients: Array<{ recipient: { kind: string } }> } };
      broken.payload.recipients[1].recipient.kind = 'robot';
      // Valid JSON that Postgres cannot store (a NUL in jsonb): fails the batch, then alone.
      const unstorable = acceptedTriggerChunk(workspace, 'marker', [user('dot-1'), user('dot-3')], { note: 'a\u0000b' });
      const healthy = acceptedTriggerChunk(workspace, 'marker', [user('dot-1'), user('dot-4')], {});
      await bus.publish(TOPICS.triggerChunkAccepted.name, [{ key: invalid.message.key, value: JSON.stringify(broken) }, unstorable.message, healthy.message]);

      for (const runId of healthy.runIds) await expectEventually(() => expect(deliveries.filter((d) => d.run_id === runId)).toHaveLength(1), { timeoutMs: 30_000 });
      const mine = (): DeadLetterPayload[] => letters.filter((l) => l.source_topic.endsWith(TOPICS.triggerChunkAccepted.name) && l.key === invalid.message.key);
      await expectEventually(() => expect(mine()).toHaveLength(2), { timeoutMs: 30_000 });
      expect(mine().map((l) => l.reason_code).sort()).toEqual(['invalid_payload', 'unprocessable']);
      expect(mine().find((l) => l.reason_code === 'invalid_payload')?.errors).toEqual([{ path: 'payload.recipients[1].recipient.kind', message: 'must be user or object' }]);
      const started = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM engine.stream_events WHERE type = 'run.started.v1' AND stream_id = ANY($1::text[])`, [
        [...invalid.runIds, ...unstorable.runIds].map((runId) => `run:${workspace}:${runId}`),
      ]);
      expect(started).toEqual([{ n: 0 }]);
    } finally {
      await reader.stop();
    }
  });

  it('takes the default branch when no condition holds, without calling the webhook', async () => {
    const runId = await trigger('onboarding', 'bob', { plan: 'free' });
    await expectEventually(() => expect(deliveries.filter((d) => d.run_id === runId)).toHaveLength(1), { timeoutMs: 30_000 });
    expect(hooks.filter((h) => (h.body as { user?: string }).user === 'bob')).toEqual([]);
  });

  it('stops a run whose dynamic delay is invalid, with the reason in its log, and goes on with other runs', async () => {
    const runId = await trigger('bad-delay', 'cleo', { wait: 'soon' });
    await expectEventually(async () => expect(await eventTypes(runId)).toContain('run.failed.v1'));
    const [failed] = await sql<{ data: { reason: string } }>(`SELECT data FROM engine.stream_events WHERE stream_id = $1 AND type = 'run.failed.v1'`, [`run:${workspace}:${runId}`]);
    expect(failed.data.reason).toMatch(/soon|duration/i);
    expect(deliveries.filter((d) => d.run_id === runId)).toEqual([]);
  });

  it('fails a run whose dynamic delay ends after year 9999 (no timer can be stored for it), with the reason through the API, instead of losing it', async () => {
    const runId = await trigger('bad-delay', 'cleo', { wait: 400_000_000_000 });
    await expectEventually(async () => expect(await eventTypes(runId)).toContain('run.failed.v1'), { timeoutMs: 30_000 });
    const detail = await call('GET', `v1/workflow_run/${runId}/`);
    expect(detail).toMatchObject({ status: 200, body: { execution_id: runId, status: 'failed' } });
    expect(JSON.stringify(detail.body)).toMatch(/Wait for it \(nodes\[0\]\): the due time \+\d{6}-[^"]* is out of range: a timer can be due at 9999-12-31T23:59:59\.999Z at the latest/);
    expect((detail.body as { steps: Array<{ type: string }> }).steps.map((s) => s.type)).toEqual(expect.arrayContaining(['run.started.v1', 'run.failed.v1']));
    expect(await timersOf([runId])).toEqual([]);
    expect(deliveries.filter((d) => d.run_id === runId)).toEqual([]);
  });

  it.each([
    ['a NUL in a value', 'nul', 'note contains a NUL character (\\u0000), which cannot be stored'],
    ['a lone surrogate in a key', 'surrogate-key', '["\\ud800"] key contains a lone UTF-16 surrogate (invalid Unicode), which cannot be stored'],
  ])('fails a fetch whose answer holds %s, with the reason through the API, instead of leaving the run running', async (_label, answer, problem) => {
    const runId = await trigger('tainted-answer', 'tia', { answer });
    await expectEventually(async () => expect((await call('GET', `v1/workflow_run/${runId}/`)).body).toMatchObject({ status: 'failed' }), { timeoutMs: 30_000 });
    const detail = await call('GET', `v1/workflow_run/${runId}/`);
    const text = JSON.stringify(detail.body);
    expect(text).toContain(`Look up (nodes[0]): GET ${hookUrl.replace('/hook', `/tainted/${answer}`)} answered a body that cannot be taken: `);
    expect(text).toContain(JSON.stringify(problem).slice(1, -1));
    expect(await eventTypes(runId)).toEqual(expect.arrayContaining(['http.requested.v1', 'http.responded.v1', 'run.failed.v1']));
    expect(await eventTypes(runId)).not.toContain('output.merged.v1');
    expect(deliveries.filter((d) => d.run_id === runId)).toEqual([]);
  });

  it('starts the workflows an event triggers', async () => {
    const messageId = randomUUID();
    const event: EventAccepted = {
      message_id: messageId,
      workspace_slug: 'staging',
      distinct_id: 'dan',
      event: 'signed_up',
      properties: {},
      attachments: [],
      accepted_via: 'api',
      accepted_at: new Date().toISOString(),
    };
    await bus.publish(TOPICS.eventAccepted.name, [{ key: `${workspace}:dan`, value: JSON.stringify(envelopeOf(EVENT_ACCEPTED_TYPE, 1, messageId, workspace, new Date(), event)) }]);
    const runId = deterministicUuid(messageId, 'on-signup');
    await expectEventually(async () => expect(await eventTypes(runId)).toContain('run.completed.v1'));
    // No stored profile and no inline identity: the email is skipped, and the log says why.
    expect(await eventTypes(runId)).toContain('delivery.skipped.v1');
  });

  it('lists the messages newest first, follows their outcomes, pages with cursors and filters, and keeps workspaces apart', async () => {
    const runs = [await trigger('onboarding', 'm1', { plan: 'free' }), await trigger('onboarding', 'm2', { plan: 'free' }), await trigger('onboarding', 'm3', { plan: 'free' })];
    await expectEventually(async () => expect((await call('GET', 'v1/message/?workflow_slug=onboarding&recipient_id[]=m1&recipient_id[]=m2&recipient_id[]=m3')).body).toMatchObject({ meta: { count: 3 } }), { timeoutMs: 30_000 });
    const first = await call('GET', 'v1/message/?limit=2&workflow_slug=onboarding&recipient_id[]=m1&recipient_id[]=m2&recipient_id[]=m3');
    const page1 = first.body as { meta: { after: string; has_next: boolean }; results: Array<{ message_id: string; execution_id: string; status: string; created_at: string }> };
    expect(page1.meta).toMatchObject({ count: 3, limit: 2, has_next: true, has_prev: false });
    const second = (await call('GET', `v1/message/?limit=2&workflow_slug=onboarding&recipient_id[]=m1&recipient_id[]=m2&recipient_id[]=m3&after=${page1.meta.after}`)).body as typeof page1;
    const all = [...page1.results, ...second.results];
    expect(new Set(all.map((m) => m.execution_id))).toEqual(new Set(runs));
    expect(all.map((m) => m.created_at)).toEqual([...all.map((m) => m.created_at)].sort().reverse());
    expect(all[0]).toMatchObject({ status: 'triggered', channel: 'email', recipient: { $type: 'user' }, channel_identity: { email: [expect.stringContaining('@example.com')] } });

    const target = all[0];
    const outcome = { delivery_id: target.message_id, run_id: target.execution_id, message_id: 'x', workspace_slug: 'staging', channel: 'email', status: 'sent_by_vendor', vendor: 'email/smtp', at: new Date().toISOString() };
    await bus.publish(TOPICS.deliveryOutcome.name, [{ key: `${workspace}:x`, value: JSON.stringify(envelopeOf(DELIVERY_OUTCOME_TYPE, 1, randomUUID(), workspace, new Date(), outcome)) }]);
    await expectEventually(async () =>
      expect(((await call('GET', `v1/message/?message_id=${target.message_id}`)).body as { results: unknown[] }).results).toEqual([
        expect.objectContaining({ status: 'sent_by_vendor', triggered_at: expect.any(String), vendor: { name: 'smtp', nickname: 'email/smtp' } }),
      ]),
    );
    expect(((await call('GET', 'v1/message/?status[]=triggered&workflow_slug=onboarding', undefined, otherApiKey)).body as { results: unknown[] }).results).toEqual([]);
    expect(await call('GET', 'v1/message/?limit=0&channel=fax')).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/limit: .*channel: /) } });
    expect(await call('GET', 'v1/message/?after=not-a-cursor')).toMatchObject({ status: 400 });
    // A stored status, as rows show it, filters too; an unknown one is refused with the valid ones listed.
    expect(await call('GET', 'v1/message/?status[]=delivery_failure&workflow_slug=onboarding')).toMatchObject({ status: 200, body: { meta: { count: 0 } } });
    expect(await call('GET', 'v1/message/?status[]=failed')).toMatchObject({ status: 400, body: { detail: expect.stringContaining('must be one of triggered, delivery_failed') } });
  });

  it('counts the message log over a window (GET /v1/message/stats/): sent, delivered, failed and skipped by reason, per channel, vendor and hour', async () => {
    const since = new Date().toISOString();
    const window = `workflow_slug=alert&created_at_gte=${encodeURIComponent(since)}`;
    // Each recipient has an email address and no phone: the email is sent, the SMS skipped.
    const runs = [await trigger('alert', 'st1', {}), await trigger('alert', 'st2', {}), await trigger('alert', 'st3', {})];
    type Row = { message_id: string; execution_id: string; channel: string };
    const rows = async () => ((await call('GET', `v1/message/?limit=20&${window}`)).body as { results: Row[] }).results;
    await expectEventually(async () => expect(await rows()).toHaveLength(6), { timeoutMs: 30_000 });
    const emailOf = async (runId: string) => (await rows()).find((row) => row.execution_id === runId && row.channel === 'email')!;
    const outcome = async (runId: string, status: string, error?: string) => {
      const value = { delivery_id: (await emailOf(runId)).message_id, run_id: runId, message_id: 'x', workspace_slug: 'staging', channel: 'email', status, vendor: 'email/smtp', at: new Date().toISOString(), ...(error ? { error: { message: error, retryable: false } } : {}) };
      return { key: `${workspace}:stats`, value: JSON.stringify(envelopeOf(DELIVERY_OUTCOME_TYPE, 1, randomUUID(), workspace, new Date(), value)) };
    };
    await bus.publish(TOPICS.deliveryOutcome.name, [await outcome(runs[0], 'sent_by_vendor'), await outcome(runs[0], 'delivered'), await outcome(runs[1], 'delivery_failure', 'smtp: 550 mailbox unavailable')]);
    const counts = (values: Partial<Record<string, number>>) => ({ total: 0, sent: 0, delivered: 0, seen: 0, clicked: 0, failed: 0, skipped: 0, in_flight: 0, retrying: 0, ...values });
    await expectEventually(async () => {
      const { status, body } = await call('GET', `v1/message/stats/?${window}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        meta: { bucket: 'hour', from: since, workflow_slug: 'alert', channel: null },
        totals: counts({ total: 6, sent: 1, delivered: 1, failed: 1, skipped: 3, in_flight: 1 }),
        failed_by_reason: [{ reason: 'smtp: 550 mailbox unavailable', count: 1 }],
        skipped_by_reason: [{ reason: expect.any(String), count: 3 }],
        by_channel: expect.arrayContaining([
          { channel: 'email', ...counts({ total: 3, sent: 1, delivered: 1, failed: 1, in_flight: 1 }) },
          { channel: 'sms', ...counts({ total: 3, skipped: 3 }) },
        ]),
        by_vendor: [
          { vendor: null, ...counts({ total: 4, skipped: 3, in_flight: 1 }) },
          { vendor: 'email/smtp', ...counts({ total: 2, sent: 1, delivered: 1, failed: 1 }) },
        ],
        by_workflow: [{ workflow_slug: 'alert', ...counts({ total: 6, sent: 1, delivered: 1, failed: 1, skipped: 3, in_flight: 1 }) }],
      });
      // Every hour of the window, zeros included, adds up to the totals.
      const series = (body as { series: Array<{ start: string; total: number; skipped: number }> }).series;
      expect(series[0].start <= since && series.every((bucket) => /^\d{4}-\d\d-\d\dT\d\d:00:00Z$/.test(bucket.start))).toBe(true);
      expect([series.reduce((sum, bucket) => sum + bucket.total, 0), series.reduce((sum, bucket) => sum + bucket.skipped, 0)]).toEqual([6, 3]);
    });
    // By the day, for the SMS channel alone; by default the last 30 days.
    const daily = (await call('GET', `v1/message/stats/?bucket=day&channel=sms&workflow_slug=alert`)).body as { meta: { from: string; to: string }; totals: { skipped: number }; series: unknown[] };
    expect(daily.totals.skipped).toBeGreaterThanOrEqual(3);
    expect([daily.series.length, (Date.parse(daily.meta.to) - Date.parse(daily.meta.from)) / 86_400_000]).toEqual([31, 30]);
    // Another workspace counts its own messages only.
    expect(((await call('GET', `v1/message/stats/?${window}`, undefined, otherApiKey)).body as { totals: { total: number } }).totals.total).toBe(0);
    // Each wrong parameter by its path; a window of more than 744 buckets is refused before any count.
    expect(await call('GET', 'v1/message/stats/?bucket=week&channel=fax&created_at_lte=yesterday')).toMatchObject({
      status: 400,
      body: { detail: expect.stringMatching(/bucket: must be hour or day.*created_at_lte: .*channel: must be one of/) },
    });
    expect(await call('GET', 'v1/message/stats/?created_at_gte=2020-01-01T00:00:00Z')).toMatchObject({ status: 400, body: { detail: expect.stringContaining('more than 744 hours') } });
    // The console (another origin) reads it with its API key, as it reads the message log.
    const preflight = await fetch(`${app.url}v1/message/stats/`, { method: 'OPTIONS', headers: { origin: 'https://console.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, '*']);
  });

  it('records outcomes that arrive together (one batch), each on its own run, passing over one of an unknown run', async () => {
    const runs = [await trigger('onboarding', 'o1', { plan: 'free' }), await trigger('onboarding', 'o2', { plan: 'free' })];
    await expectEventually(async () => expect((await call('GET', 'v1/message/?workflow_slug=onboarding&recipient_id[]=o1&recipient_id[]=o2')).body).toMatchObject({ meta: { count: 2 } }), { timeoutMs: 30_000 });
    const messages = ((await call('GET', 'v1/message/?workflow_slug=onboarding&recipient_id[]=o1&recipient_id[]=o2')).body as { results: Array<{ message_id: string; execution_id: string }> }).results;
    const of = (runId: string) => messages.find((m) => m.execution_id === runId)!;
    const outcome = (runId: string, deliveryId: string, status: string) => {
      const value = { delivery_id: deliveryId, run_id: runId, message_id: 'x', workspace_slug: 'staging', channel: 'email', status, vendor: 'email/smtp', at: new Date().toISOString() };
      // One key: one partition, so the bus hands the outcomes over as one batch.
      return { key: `${workspace}:outcomes`, value: JSON.stringify(envelopeOf(DELIVERY_OUTCOME_TYPE, 1, randomUUID(), workspace, new Date(), value)) };
    };
    await bus.publish(TOPICS.deliveryOutcome.name, [
      outcome(runs[0], of(runs[0]).message_id, 'sent_by_vendor'),
      outcome(randomUUID(), randomUUID(), 'sent_by_vendor'),
      outcome(runs[1], of(runs[1]).message_id, 'sent_by_vendor'),
      outcome(runs[0], of(runs[0]).message_id, 'delivered'),
    ]);
    await expectEventually(async () => {
      const statuses = ((await call('GET', 'v1/message/?workflow_slug=onboarding&recipient_id[]=o1&recipient_id[]=o2')).body as { results: Array<{ execution_id: string; status: string }> }).results;
      expect(Object.fromEntries(statuses.map((m) => [m.execution_id, m.status]))).toEqual({ [runs[0]]: 'delivered', [runs[1]]: 'sent_by_vendor' });
    });
  });

  it('cancels a waiting run by execution_id, deletes its timer, and shows it in the run log', async () => {
    const runId = await trigger('slow', 'sam', {});
    await expectEventually(async () => expect(await eventTypes(runId)).toContain('timer.scheduled.v1'));
    expect(await call('POST', 'v1/workflow_run/cancel/', {})).toEqual({
      status: 400,
      body: { code: 400, message: 'at least one filter is required: execution_id, recipients, idempotency_key' },
    });
    expect(await call('POST', 'v1/workflow_run/cancel/', { execution_id: runId }, otherApiKey)).toEqual({ status: 200, body: { execution_ids: [] } });
    expect(await call('POST', 'v1/workflow_run/cancel/', { execution_id: runId, recipients: ['sam'] })).toEqual({ status: 200, body: { execution_ids: [runId] } });
    expect(await sql(`SELECT count(*)::int AS n FROM engine.timers WHERE stream_id = $1`, [`run:${workspace}:${runId}`])).toEqual([{ n: 0 }]);
    const detail = await call('GET', `v1/workflow_run/${runId}/`);
    expect(detail).toMatchObject({ status: 200, body: { execution_id: runId, status: 'cancelled', workflow: { slug: 'slow', version: 1 }, recipient: { $type: 'user', distinct_id: 'sam' } } });
    expect((detail.body as { steps: Array<{ type: string }> }).steps.map((s) => s.type)).toEqual(expect.arrayContaining(['run.started.v1', 'timer.scheduled.v1', 'run.cancelled.v1']));
    expect(await call('GET', `v1/workflow_run/${runId}/`, undefined, otherApiKey)).toMatchObject({ status: 404 });
    expect(await call('POST', 'v1/workflow_run/cancel/', { execution_id: runId })).toEqual({ status: 200, body: { execution_ids: [] } });
  });

  it('sends on the stored channels the recipient did not opt out of: an email opt-out gets the SMS and no email', async () => {
    const audience = (change: Record<string, unknown>): Promise<void> =>
      bus.publish(TOPICS.audienceChanged.name, [{ key: `${workspace}:pat`, value: JSON.stringify(envelopeOf(AUDIENCE_CHANGED_TYPE, 1, randomUUID(), workspace, new Date(), change)) }]);
    const pat = { type: 'user', distinct_id: 'pat' };
    await audience({ kind: 'profile', change: 'upserted', workspace_slug: 'staging', subject: pat, profile: { properties: { name: 'Pat' }, channels: { email: ['pat@example.com'], sms: ['+14155550100'] } } });
    await audience({ kind: 'preferences', workspace_slug: 'staging', subject: pat, preferences: { categories: { account: { opt_out_channels: ['email'] } }, restricted_channels: [] } });
    await expectEventually(async () => expect(await sql(`SELECT count(*)::int AS n FROM engine.audience_preferences WHERE workspace_id = $1`, [workspace])).toEqual([{ n: 1 }]));

    // A bare distinct_id: the channels come from the stored profile.
    const { runId, message } = acceptedTrigger(workspace, 'alert', { kind: 'user', distinct_id: 'pat', is_transient: false, inline: false, channels: {}, properties: {} }, {});
    await bus.publish(TOPICS.triggerAccepted.name, [message]);

    await expectEventually(() => expect(smsDeliveries.filter((d) => d.run_id === runId)).toHaveLength(1), { timeoutMs: 30_000 });
    expect(smsDeliveries.find((d) => d.run_id === runId)).toMatchObject({ destination: { identities: ['+14155550100'] }, render_data: expect.objectContaining({ $recipient: expect.objectContaining({ name: 'Pat' }) }) });
    await expectEventually(async () => expect(await eventTypes(runId)).toContain('run.completed.v1'));
    expect(deliveries.filter((d) => d.run_id === runId)).toEqual([]);
    const [skipped] = await sql<{ data: { channel: string; reason: string } }>(`SELECT data FROM engine.stream_events WHERE stream_id = $1 AND type = 'delivery.skipped.v1'`, [`run:${workspace}:${runId}`]);
    expect(skipped.data).toMatchObject({ channel: 'email', reason: 'preference' });
  });

  it.each(CHANNELS)('skips %s, and only it, for a recipient who opted out of it in the category: every other channel sends', async (channel) => {
    const who = `opted-out-of-${channel}`;
    const change = { kind: 'preferences', workspace_slug: 'staging', subject: { type: 'user', distinct_id: who }, preferences: { categories: { account: { opt_out_channels: [channel] } }, restricted_channels: [] } };
    await bus.publish(TOPICS.audienceChanged.name, [{ key: `${workspace}:${who}`, value: JSON.stringify(envelopeOf(AUDIENCE_CHANGED_TYPE, 1, randomUUID(), workspace, new Date(), change)) }]);
    await expectEventually(async () => expect(await sql(`SELECT 1 FROM engine.audience_preferences WHERE workspace_id = $1 AND subject_key = $2`, [workspace, `user:${who}`])).toHaveLength(1));

    const recipient = { kind: 'user' as const, distinct_id: who, is_transient: false, inline: true, channels: Object.fromEntries(CHANNELS.map((c) => [c, [`${who}-${c}-identity`]])), properties: {} };
    const { runId, message } = acceptedTrigger(workspace, 'everywhere', recipient, {});
    await bus.publish(TOPICS.triggerAccepted.name, [message]);
    await expectEventually(async () => expect(await eventTypes(runId)).toContain('run.completed.v1'));

    const log = await sql<{ type: string; data: { channel?: string; reason?: string; delivery?: { channel: string } } }>(
      `SELECT type, data FROM engine.stream_events WHERE stream_id = $1 AND type IN ('delivery.requested.v1', 'delivery.skipped.v1') ORDER BY position`,
      [`run:${workspace}:${runId}`],
    );
    expect(log.filter((e) => e.type === 'delivery.skipped.v1').map((e) => e.data)).toEqual([expect.objectContaining({ channel, reason: 'preference' })]);
    expect(log.filter((e) => e.type === 'delivery.requested.v1').map((e) => e.data.delivery?.channel)).toEqual(CHANNELS.filter((c) => c !== channel));
  });

  it('notifies an object on its own channels and each of its subscribers once', async () => {
    const publishAudience = (key: string, change: Record<string, unknown>): Promise<void> =>
      bus.publish(TOPICS.audienceChanged.name, [{ key: `${workspace}:${key}`, value: JSON.stringify(envelopeOf(AUDIENCE_CHANGED_TYPE, 1, randomUUID(), workspace, new Date(), change)) }]);
    const team = { type: 'object', object_type: 'teams', id: 'eng' };
    await publishAudience('teams:eng', { kind: 'profile', change: 'upserted', workspace_slug: 'staging', subject: team, profile: { properties: {}, channels: { email: ['eng@example.com'] } } });
    for (const member of ['una', 'vic']) {
      await publishAudience(member, { kind: 'profile', change: 'upserted', workspace_slug: 'staging', subject: { type: 'user', distinct_id: member }, profile: { properties: {}, channels: { email: [`${member}@example.com`] } } });
    }
    await publishAudience('teams:eng', {
      kind: 'object_subscriptions',
      workspace_slug: 'staging',
      object: { object_type: 'teams', id: 'eng' },
      added: [{ type: 'user', distinct_id: 'una' }, { type: 'user', distinct_id: 'vic' }],
      removed: [],
      properties: { role: 'member' },
    });
    await expectEventually(async () => expect(await sql(`SELECT count(*)::int AS n FROM engine.object_subscriptions WHERE workspace_id = $1`, [workspace])).toEqual([{ n: 2 }]));

    const messageId = randomUUID();
    const recipient = { kind: 'object' as const, object_type: 'teams', id: 'eng', inline: false, channels: {}, properties: {} };
    const runId = deterministicUuid(messageId, '0');
    const payload: TriggerAccepted = { message_id: messageId, recipient_index: 0, recipient_count: 1, workspace_slug: 'staging', workflow: 'onboarding', recipient, data: { plan: 'free' }, attachments: [], accepted_via: 'api', accepted_at: new Date().toISOString() };
    await bus.publish(TOPICS.triggerAccepted.name, [{ key: `${workspace}:teams:eng`, value: JSON.stringify(envelopeOf(TRIGGER_ACCEPTED_TYPE, 1, runId, workspace, new Date(), payload)) }]);

    const mine = (): DeliveryRequested[] => deliveries.filter((d) => d.message_id === messageId);
    await expectEventually(() => expect(mine()).toHaveLength(3), { timeoutMs: 30_000 });
    expect(mine().map((d) => d.destination.identities[0]).sort()).toEqual(['eng@example.com', 'una@example.com', 'vic@example.com']);
    // Nothing more for any of the three keys: the parent's, and each child's.
    const markerOfEng = acceptedTrigger(workspace, 'marker', { ...recipient, channels: { email: ['eng@example.com'] } }, {});
    await bus.publish(TOPICS.triggerAccepted.name, [markerOfEng.message]);
    await expectEventually(() => expect(deliveries.filter((d) => d.run_id === markerOfEng.runId)).toHaveLength(1), { timeoutMs: 30_000 });
    for (const member of ['una', 'vic']) await markerDelivered(member);
    expect(mine()).toHaveLength(3);
  });

  it('batches 50 triggers of one recipient and batch key in one send holding all 50, and 3 batch keys in 3 sends', async () => {
    const many = await Promise.all(Array.from({ length: 50 }, (_, n) => trigger('batched', 'bea', { project: 'apollo', n })));
    const projects: string[] = [];
    for (const project of ['apollo', 'gemini', 'mercury']) projects.push(await trigger('batched', 'ben', { project }));
    const mine = (who: string): DeliveryRequested[] => deliveries.filter((d) => d.workflow.slug === 'batched' && d.recipient.distinct_id === who);
    const roles = async (runIds: readonly string[]): Promise<Array<{ type: string; n: number }>> =>
      sql(
        `SELECT type, count(*)::int AS n FROM engine.stream_events WHERE type IN ('accumulation.owned.v1', 'accumulation.merged.v1') AND stream_id = ANY($1::text[]) GROUP BY type ORDER BY type`,
        [runIds.map((runId) => `run:${workspace}:${runId}`)],
      );
    // Every trigger is in its window before any window closes, however slow the machine.
    await expectEventually(async () => expect(await roles(many)).toEqual([{ type: 'accumulation.merged.v1', n: 49 }, { type: 'accumulation.owned.v1', n: 1 }]), { timeoutMs: 30_000 });
    await expectEventually(async () => expect(await roles(projects)).toEqual([{ type: 'accumulation.owned.v1', n: 3 }]), { timeoutMs: 30_000 });
    expect([...mine('bea'), ...mine('ben')]).toEqual([]);
    // The windows are open for an hour; the test closes them.
    const open = await timersOf([...many, ...projects]);
    expect(open).toHaveLength(4);
    for (const timer of open) expect(timer.due_in_s).toBeGreaterThan(3_000);
    expect(await fireTimersNow([...many, ...projects])).toBe(4);
    await expectEventually(() => expect(mine('bea')).toHaveLength(1), { timeoutMs: 30_000 });
    const [send] = mine('bea');
    expect(send.render_data.$batched_events_count).toBe(50);
    expect((send.render_data.$batched_events as Array<{ n: number }>).map((event) => event.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    await expectEventually(() => expect(mine('ben')).toHaveLength(3), { timeoutMs: 30_000 });
    expect(mine('ben').map((d) => (d.render_data.$batched_events as Array<{ project: string }>)[0].project).sort()).toEqual(['apollo', 'gemini', 'mercury']);
    // The 49 others end merged into the owner's batch, and say so in their log.
    const merged = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM engine.stream_events WHERE type = 'accumulation.merged.v1' AND stream_id = ANY($1::text[])`,
      [many.map((runId) => `run:${workspace}:${runId}`)],
    );
    expect(merged).toEqual([{ n: 49 }]);
    await markerDelivered('bea');
    await markerDelivered('ben');
    expect(mine('bea')).toHaveLength(1);
    expect(mine('ben')).toHaveLength(3);
  });

  it('cancels the owner of an open batch: its log says it left the batch, and the batch goes out once with the 2 other events', async () => {
    const mine = (): DeliveryRequested[] => deliveries.filter((d) => d.workflow.slug === 'batch-cancel' && d.recipient.distinct_id === 'cal');
    const owner = await trigger('batch-cancel', 'cal', { n: 1 });
    await expectEventually(async () => expect(await eventTypes(owner)).toContain('accumulation.owned.v1'));
    const others = [await trigger('batch-cancel', 'cal', { n: 2 }), await trigger('batch-cancel', 'cal', { n: 3 })];
    for (const runId of others) await expectEventually(async () => expect(await eventTypes(runId)).toContain('accumulation.merged.v1'));
    expect(await call('POST', 'v1/workflow_run/cancel/', { execution_id: owner })).toEqual({ status: 200, body: { execution_ids: [owner] } });
    const detail = await call('GET', `v1/workflow_run/${owner}/`);
    expect((detail.body as { steps: Array<{ type: string }> }).steps.map((step) => step.type).slice(-2)).toEqual(['accumulation.left.v1', 'run.cancelled.v1']);
    // The window's timer went with the cancel; the leave timer (due at once) goes when the poller fires it.
    await expectEventually(async () => expect(await sql(`SELECT timer_id FROM engine.timers WHERE stream_id = $1`, [`run:${workspace}:${owner}`])).toEqual([]));
    // The successor owns the window until its original end, an hour away; the test closes it.
    await expectEventually(async () => expect(await timersOf(others)).toEqual([expect.objectContaining({ due_in_s: expect.any(Number) })]));
    expect((await timersOf(others))[0].due_in_s).toBeGreaterThan(3_000);
    expect(mine()).toEqual([]);
    expect(await fireTimersNow(others)).toBe(1);
    await expectEventually(() => expect(mine()).toHaveLength(1), { timeoutMs: 30_000 });
    const [send] = mine();
    expect(others).toContain(send.run_id);
    expect(send.render_data.$batched_events_count).toBe(2);
    expect((send.render_data.$batched_events as Array<{ n: number }>).map((event) => event.n).sort()).toEqual([2, 3]);
    expect(await eventTypes(send.run_id)).toEqual(expect.arrayContaining(['accumulation.merged.v1', 'accumulation.handed_over.v1', 'accumulation.released.v1', 'run.completed.v1']));
    await markerDelivered('cal');
    expect(mine()).toHaveLength(1);
  });

  it('finishes the hand-over of a cancelled owner whose host died right after recording the cancel: the batch still goes out once', async () => {
    const mine = (): DeliveryRequested[] => deliveries.filter((d) => d.workflow.slug === 'batch-cancel' && d.recipient.distinct_id === 'cid');
    const owner = await trigger('batch-cancel', 'cid', { n: 1 });
    await expectEventually(async () => expect(await eventTypes(owner)).toContain('accumulation.owned.v1'));
    const merged = await trigger('batch-cancel', 'cid', { n: 2 });
    await expectEventually(async () => expect(await eventTypes(merged)).toContain('accumulation.merged.v1'));
    // Only the cancel's append, as if the host died before leaving the accumulator: no client repeats the cancel.
    const host = app.get(RunHost);
    const ownerStream = `run:${workspace}:${owner}`;
    const context = await host['contextOfStream'](ownerStream);
    if (!context) throw new Error('the owner has no log');
    await host['processor'].process(ownerStream, { type: 'cancel', reason: 'test: host died after this append', context }, new Date());
    expect((await eventTypes(owner)).slice(-2)).toEqual(['accumulation.left.v1', 'run.cancelled.v1']);
    // The poller's leave timer hands the window over; the test then closes it, an hour early.
    await expectEventually(async () => expect(await timersOf([merged])).toHaveLength(1), { timeoutMs: 30_000 });
    expect(await fireTimersNow([merged])).toBe(1);
    await expectEventually(() => expect(mine()).toHaveLength(1), { timeoutMs: 30_000 });
    const [send] = mine();
    expect(send.run_id).toBe(merged);
    expect(send.render_data.$batched_events).toEqual([{ n: 2 }]);
    expect(await eventTypes(merged)).toEqual(expect.arrayContaining(['accumulation.handed_over.v1', 'run.completed.v1']));
    await markerDelivered('cid');
    expect(mine()).toHaveLength(1);
  });

  it('closes a static digest on its schedule with one send holding its triggers, and skips one below trigger_min_count', async () => {
    // A minutely schedule counts from dtstart (to the second) and fires no earlier: the first close is an hour
    // from now, so every trigger is in before it on any machine; the test then closes it.
    const schedule = { frequency: 'minutely', dtstart: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z') };
    const digest = (slug: string, extra: Record<string, unknown>) =>
      announceWorkflow(slug, {
        name: slug,
        category: 'account',
        trigger_type: 'api',
        tree: { nodes: [{ name: 'Digest', node_type: 'digest', schedule_type: 'static', schedule, ...extra }, { name: 'Mail', node_type: 'send_email', template: 'welcome-mail' }] },
      });
    await digest('digest-soon', {});
    await digest('digest-few', { trigger_min_count: 5 });
    await expectEventually(async () =>
      expect(await sql(`SELECT id FROM engine.definitions WHERE workspace_id = $1 AND kind = 'workflow' AND id LIKE 'digest-%' ORDER BY id`, [workspace])).toEqual([{ id: 'digest-few' }, { id: 'digest-soon' }]),
    );
    const soon: string[] = [];
    for (const n of [1, 2, 3]) soon.push(await trigger('digest-soon', 'dora', { n }));
    const few = [await trigger('digest-few', 'dora', { n: 1 }), await trigger('digest-few', 'dora', { n: 2 })];
    const mine = (slug: string): DeliveryRequested[] => deliveries.filter((d) => d.workflow.slug === slug && d.recipient.distinct_id === 'dora');
    for (const runId of [...soon.slice(1), few[1]]) await expectEventually(async () => expect(await eventTypes(runId)).toContain('accumulation.merged.v1'), { timeoutMs: 30_000 });
    const open = await timersOf([...soon, ...few]);
    expect(open).toHaveLength(2);
    for (const timer of open) expect(timer.due_in_s).toBeGreaterThan(3_000);
    expect(mine('digest-soon')).toEqual([]);
    expect(await fireTimersNow([...soon, ...few])).toBe(2);
    await expectEventually(() => expect(mine('digest-soon')).toHaveLength(1), { timeoutMs: 30_000 });
    const [send] = mine('digest-soon');
    expect(send.run_id).toBe(soon[0]);
    expect(send.render_data.$batched_events_count).toBe(3);
    expect((send.render_data.$batched_events as Array<{ n: number }>).map((event) => event.n).sort()).toEqual([1, 2, 3]);
    await expectEventually(async () => expect((await eventTypes(few[0])).slice(-2)).toEqual(['digest.skipped.v1', 'run.completed.v1']), { timeoutMs: 20_000 });
    await markerDelivered('dora');
    expect(mine('digest-soon')).toHaveLength(1);
    expect(mine('digest-few')).toEqual([]);
  });

  it('resumes a wait-until on a matching event, ignoring one that does not match, and times out without one', async () => {
    const paid = await trigger('wait-paid', 'wen', {});
    const unpaid = await trigger('wait-paid', 'wes', {});
    await expectEventually(async () => expect(await sql(`SELECT run_id FROM engine.waits WHERE run_id = ANY($1::text[]) ORDER BY run_id`, [[paid, unpaid]])).toHaveLength(2));
    await publishEvent('wen', 'order_paid', { order_id: 'o-2' });
    await publishEvent('wen', 'order_paid', { order_id: 'o-1' });
    const sent = (runId: string): string[] => deliveries.filter((d) => d.run_id === runId).map((d) => d.node_name);
    await expectEventually(() => expect(sent(paid)).toEqual(['Thanks']), { timeoutMs: 30_000 });
    // The maximum wait is an hour, so the events beat it however slow the machine; the test ends wes's wait now.
    expect(sent(unpaid)).toEqual([]);
    expect(await fireTimersNow([unpaid])).toBe(1);
    await expectEventually(() => expect(sent(unpaid)).toEqual(['Reminder']), { timeoutMs: 30_000 });
    expect(await sql(`SELECT run_id FROM engine.waits WHERE run_id = ANY($1::text[])`, [[paid, unpaid]])).toEqual([]);
    expect(await sql(`SELECT count(*)::int AS n FROM engine.timers WHERE stream_id = $1`, [`run:${workspace}:${paid}`])).toEqual([{ n: 0 }]);
    expect(await eventTypes(paid)).toEqual(expect.arrayContaining(['wait.started.v1', 'wait.ended.v1', 'run.completed.v1']));
  });

  it('cancels a run waiting at a wait-until: its wait and timer go, its log says so, and a later event does nothing', async () => {
    const runId = await trigger('wait-paid', 'wil', {});
    await expectEventually(async () => expect(await sql(`SELECT run_id FROM engine.waits WHERE run_id = $1`, [runId])).toHaveLength(1));
    expect(await call('POST', 'v1/workflow_run/cancel/', { execution_id: runId })).toEqual({ status: 200, body: { execution_ids: [runId] } });
    expect(await sql(`SELECT run_id FROM engine.waits WHERE run_id = $1`, [runId])).toEqual([]);
    expect(await sql(`SELECT count(*)::int AS n FROM engine.timers WHERE stream_id = $1`, [`run:${workspace}:${runId}`])).toEqual([{ n: 0 }]);
    expect((await eventTypes(runId)).slice(-2)).toEqual(['wait.cancelled.v1', 'run.cancelled.v1']);
    await publishEvent('wil', 'order_paid', { order_id: 'o-1' });
    // A later event of wil (same key, same consumer) starts a run; once it completed, the order_paid was handled.
    const marker = deterministicUuid(await publishEvent('wil', 'signed_up', {}), 'on-signup');
    await expectEventually(async () => expect(await eventTypes(marker)).toContain('run.completed.v1'));
    expect(deliveries.filter((d) => d.run_id === runId)).toEqual([]);
    expect((await eventTypes(runId)).slice(-1)).toEqual(['run.cancelled.v1']);
  });
});
