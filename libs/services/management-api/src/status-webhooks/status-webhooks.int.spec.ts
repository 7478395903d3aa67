import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import {
  DELIVERY_OUTCOME_TYPE,
  DeliveryOutcome,
  DeliveryStatus,
  MessageStatusEvent,
  TOPICS,
  deliveryOutcomeVersion,
  envelopeOf,
  parseEnvelope,
  parseMessageStatus,
} from '@herald/contracts';
import { databaseTargets, describeTarget, expectEventually, uniqueName } from '@herald/testing';
import { ManagementApiModule, managementApi } from '../management-api.module';
import { ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';
import { WebhookReceiver } from './testing/webhook-receiver';

const MAX_ATTEMPTS = 5;

/** The README's section on status webhooks: its examples run here. */
function readmeSection(): { createBody: Record<string, unknown>; verifyExample: string } {
  const readme = readFileSync(join(__dirname, '..', '..', '..', '..', '..', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Status webhooks and topic'), readme.indexOf('## In-app inbox from a browser'));
  const sh = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const js = /```js\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return { createBody: JSON.parse(/-d '([^']*)'/.exec(sh)?.[1] ?? 'null') as Record<string, unknown>, verifyExample: js };
}

interface EndpointCreated {
  id: string;
  secret: string;
  masked_secret: string;
  enabled: boolean;
}

interface DeliveryLog {
  meta: { count: number };
  results: Array<{ id: string; state: string; attempts: number; event_type: string; attempt_log: Array<{ status_code: number | null; latency_ms: number; error: string | null }> }>;
}

describe.each(databaseTargets())('status webhooks and notify.status.v1 ($kind)', (target) => {
  let t: ManagementTestApp;
  let workspaceId: string;
  const topic: Array<{ messageId: string; event: MessageStatusEvent }> = [];

  beforeAll(async () => {
    t = await startManagementTestApp(target, {
      service: {
        ...managementApi,
        module: () =>
          ManagementApiModule.register({ statusWebhooks: { initialRetryDelayMs: 200, maxRetryDelayMs: 800, maxAttempts: MAX_ATTEMPTS, pollIntervalMs: 500, requestTimeoutMs: 2_000 } }),
      },
      env: { HERALD_OUTBOUND_ALLOW: '127.0.0.1/32' },
    });
    [{ id: workspaceId }] = await t.sql<{ id: string }>(
      `SELECT w.id FROM management.workspaces w JOIN management.service_tokens s ON s.account_id = w.account_id WHERE w.slug = 'staging' AND s.name <> 'other' LIMIT 1`,
    );
    await t.app.bus.subscribe({
      groupId: 'test-status-reader',
      topics: [TOPICS.messageStatus.name],
      handler: async (message) => {
        const envelope = parseEnvelope(message.value);
        const event = envelope.ok ? parseMessageStatus(envelope.value.payload) : undefined;
        if (!event?.ok) throw new Error(`invalid message on notify.status.v1: ${message.value.toString()}`);
        topic.push({ messageId: String(message.headers['message-id']), event: event.value });
      },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  /** Publishes outcomes of one delivery as the dispatchers do (message id per fact). */
  async function publishOutcomes(workflow: string, statuses: readonly DeliveryStatus[], deliveryId = randomUUID(), messageIds?: string[]): Promise<string[]> {
    const ids = messageIds ?? statuses.map(() => randomUUID());
    await t.app.bus.publish(
      TOPICS.deliveryOutcome.name,
      statuses.map((status, i) => {
        const outcome: DeliveryOutcome = {
          delivery_id: deliveryId,
          run_id: `run-${deliveryId}`,
          message_id: `msg-${deliveryId}`,
          workspace_slug: 'staging',
          channel: 'email',
          status,
          vendor: 'email/sendgrid',
          vendor_message_id: `sg-${deliveryId}`,
          workflow_slug: workflow,
          template_slug: 'welcome-email',
          category: 'transactional',
          recipient: { kind: 'user', distinct_id: 'user-1' },
          at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        };
        const envelope = envelopeOf(DELIVERY_OUTCOME_TYPE, deliveryOutcomeVersion(status), ids[i], workspaceId, new Date(), outcome);
        return { key: `${workspaceId}:user-1`, value: JSON.stringify(envelope), headers: { 'message-id': ids[i] } };
      }),
    );
    return ids;
  }

  async function createEndpoint(receiver: WebhookReceiver, body: Record<string, unknown>): Promise<EndpointCreated> {
    const created = await t.call('POST', 'v1/staging/webhook_endpoint/', { url: receiver.url, ...body });
    expect(created.status).toBe(201);
    const endpoint = created.body as EndpointCreated;
    receiver.verifyWith(endpoint.secret);
    return endpoint;
  }

  const log = async (endpointId: string, query = ''): Promise<DeliveryLog> => (await t.call('GET', `v1/staging/webhook_endpoint/${endpointId}/delivery/${query}`)).body as DeliveryLog;

  it(`manages endpoints: the secret once, field paths on bad input, nothing across accounts (${describeTarget(target)})`, async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const endpoint = await createEndpoint(receiver, { event_types: ['delivered'], channels: ['email'] });
      expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(endpoint.masked_secret).toBe(`${endpoint.secret.slice(0, 10)}************`);
      const listed = await t.call('GET', 'v1/staging/webhook_endpoint/');
      expect(JSON.stringify(listed.body)).not.toContain(endpoint.secret);
      const [row] = await t.sql<{ sealed: Buffer }>(`SELECT secret_sealed AS sealed FROM management.webhook_endpoints WHERE id = $1`, [endpoint.id]);
      expect(row.sealed.toString('latin1')).not.toContain(endpoint.secret.slice(6, 20));

      const bad = await t.call('POST', 'v1/staging/webhook_endpoint/', { url: 'ftp://x', event_types: ['opened'], channels: ['fax'] });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toMatch(/url/);
      expect(JSON.stringify(bad.body)).toMatch(/event_types/);
      expect(JSON.stringify(bad.body)).toMatch(/channels/);
      expect((await t.call('PATCH', `v1/staging/webhook_endpoint/${endpoint.id}/`, {})).status).toBe(400);
      // A patch's fields follow the create's rules.
      const badPatch = await t.call('PATCH', `v1/staging/webhook_endpoint/${endpoint.id}/`, { url: 'ftp://x', event_types: [], workflows: [''], enabled: 'yes' });
      expect(badPatch.status).toBe(400);
      for (const field of ['url', 'event_types', 'workflows', 'enabled']) expect(JSON.stringify(badPatch.body)).toContain(field);

      const patched = await t.call('PATCH', `v1/staging/webhook_endpoint/${endpoint.id}/`, { event_types: ['delivered', 'seen'], enabled: false });
      expect(patched.body).toMatchObject({ event_types: ['delivered', 'seen'], enabled: false });
      expect((await t.call('GET', `v1/staging/webhook_endpoint/${endpoint.id}/`, undefined, t.otherToken)).status).toBe(404);
      expect((await t.call('DELETE', `v1/staging/webhook_endpoint/${endpoint.id}/`)).status).toBe(204);
      expect((await t.call('GET', `v1/staging/webhook_endpoint/${endpoint.id}/`)).status).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it('signs every webhook so standardwebhooks verifies it, sends only the subscribed and filtered statuses, and announces every status change once on notify.status.v1', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const workflow = uniqueName('wf');
      const endpoint = await createEndpoint(receiver, { event_types: ['sent_by_vendor', 'delivered', 'seen'], workflows: [workflow], categories: ['transactional'] });
      const deliveryId = randomUUID();
      const ids = await publishOutcomes(workflow, ['retrying', 'sent_by_vendor', 'delivered', 'seen'], deliveryId);
      await publishOutcomes(uniqueName('other-wf'), ['delivered']);
      // The same outcome again (a redelivery, a relay's republish): no second event.
      await publishOutcomes(workflow, ['delivered'], deliveryId, [ids[2]]);

      await expectEventually(() => expect(receiver.received.map((w) => w.event.status)).toEqual(['sent_by_vendor', 'delivered', 'seen']));
      expect(receiver.forgeries).toEqual([]);
      const [first] = receiver.received;
      expect(first.webhookId).toBe(ids[1]);
      expect(first.event).toMatchObject({
        type: 'message.sent_by_vendor',
        event_type: 'status',
        version: '1.0',
        channel: 'email',
        distinct_id: 'user-1',
        template: 'welcome-email',
        workflow_name: workflow,
        vendor_name: 'sendgrid',
        suprsend_status: { status: 'sent_by_vendor', timestamp: Date.UTC(2026, 0, 1, 0, 0, 1) },
        reference: { workspace_name: 'staging', workspace_uid: workspaceId, supr_nid: deliveryId, vendor_ack_id: `sg-${deliveryId}` },
      });
      // A receiver with another secret refuses them.
      expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(JSON.stringify(first.event), { 'webhook-id': 'x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' })).toThrow();

      await expectEventually(() => expect(topic.filter((m) => m.event.delivery_id === deliveryId).map((m) => m.event.status)).toEqual(['retrying', 'sent_by_vendor', 'delivered', 'seen']));
      expect(topic.filter((m) => m.event.delivery_id === deliveryId).map((m) => m.messageId)).toEqual(ids);

      const delivered = await log(endpoint.id, '?state=delivered');
      expect(delivered.meta.count).toBe(3);
      expect(delivered.results[0].attempt_log).toEqual([expect.objectContaining({ status_code: 204, error: null })]);
    } finally {
      await receiver.close();
    }
  });

  it("runs the README's examples: its endpoint, and its verify function on a webhook as received and on a forgery", async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const { createBody, verifyExample } = readmeSection();
      const workflow = (createBody.workflows as string[])[0];
      const endpoint = await createEndpoint(receiver, { ...createBody, url: receiver.url });
      const [eventId] = await publishOutcomes(workflow, ['delivered']);
      await expectEventually(() => expect(receiver.received).toHaveLength(1));
      const heraldStatus = new Function('require', 'HERALD_WEBHOOK_SECRET', `${verifyExample}\nreturn heraldStatus;`)(require, endpoint.secret) as (
        body: string,
        headers: Record<string, string>,
      ) => Record<string, string>;
      const { body, headers } = receiver.received[0].raw;
      expect(heraldStatus(body, headers)).toEqual({ id: eventId, message: receiver.received[0].event.message_id, channel: 'email', status: 'delivered' });
      expect(() => heraldStatus(body.replace('delivered', 'seen'), headers)).toThrow();
    } finally {
      await receiver.close();
    }
  });

  it('keeps what a receiver that is down missed and sends it once it is up, in order per message; logs each failed attempt', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const workflow = uniqueName('wf');
      receiver.answer = () => 503;
      const endpoint = await createEndpoint(receiver, { event_types: ['sent_by_vendor', 'delivered', 'clicked'], workflows: [workflow] });
      const deliveries = [randomUUID(), randomUUID(), randomUUID()];
      for (const deliveryId of deliveries) await publishOutcomes(workflow, ['sent_by_vendor', 'delivered', 'clicked'], deliveryId);
      // Down: each message's first event is tried and refused; the events behind it wait.
      await expectEventually(() => expect(receiver.refused).toBeGreaterThanOrEqual(3));
      receiver.answer = () => 200;

      await expectEventually(() => expect(receiver.distinctIds()).toHaveLength(9));
      for (const deliveryId of deliveries) {
        const statuses = receiver.received.filter((w) => w.event.delivery_id === deliveryId).map((w) => w.event.status);
        expect([...new Set(statuses)]).toEqual(['sent_by_vendor', 'delivered', 'clicked']);
      }
      const entries = (await log(endpoint.id, '?limit=100')).results;
      const retried = entries.filter((d) => d.event_type === 'message.sent_by_vendor');
      for (const entry of retried) {
        expect(entry.state).toBe('delivered');
        expect(entry.attempt_log[0]).toMatchObject({ status_code: 503, error: 'answered 503' });
        expect(entry.attempt_log.at(-1)).toMatchObject({ status_code: 200, error: null });
      }
    } finally {
      await receiver.close();
    }
  });

  it('dead-letters a delivery after its last attempt, lets the message go on, and replays one delivery or a time range', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const workflow = uniqueName('wf');
      receiver.answer = (webhook) => (webhook.event.status === 'sent_by_vendor' ? 500 : 204);
      const endpoint = await createEndpoint(receiver, { event_types: ['sent_by_vendor', 'delivered'], workflows: [workflow] });
      const since = new Date(Date.now() - 1_000).toISOString();
      await publishOutcomes(workflow, ['sent_by_vendor', 'delivered']);
      await expectEventually(() => expect(receiver.received.map((w) => w.event.status)).toEqual(['delivered']));
      const [dead] = (await log(endpoint.id, '?state=dead')).results;
      expect(dead).toMatchObject({ state: 'dead', attempts: MAX_ATTEMPTS });
      expect(dead.attempt_log).toHaveLength(MAX_ATTEMPTS);
      expect(dead.attempt_log.every((a) => a.status_code === 500 && a.latency_ms >= 0)).toBe(true);

      receiver.answer = () => 204;
      const replayed = await t.call('POST', `v1/staging/webhook_endpoint/${endpoint.id}/delivery/${dead.id}/replay/`);
      expect(replayed.status).toBe(202);
      await expectEventually(() => expect(receiver.received.map((w) => w.event.status)).toEqual(['delivered', 'sent_by_vendor']));
      expect((await t.call('POST', `v1/staging/webhook_endpoint/${endpoint.id}/delivery/999999999/replay/`)).status).toBe(404);

      const range = await t.call('POST', `v1/staging/webhook_endpoint/${endpoint.id}/replay/`, { since, until: new Date(Date.now() + 1_000).toISOString() });
      expect(range.body).toEqual({ replayed: 2 });
      // The range's events again, in their order, with their ids.
      await expectEventually(() => expect(receiver.received.map((w) => w.event.status)).toEqual(['delivered', 'sent_by_vendor', 'sent_by_vendor', 'delivered']));
      expect(receiver.distinctIds()).toHaveLength(2);
      const badRange = await t.call('POST', `v1/staging/webhook_endpoint/${endpoint.id}/replay/`, { since: 'yesterday', until: since });
      expect(badRange.status).toBe(400);
      expect(JSON.stringify(badRange.body)).toContain('since');
    } finally {
      await receiver.close();
    }
  });

  it('queues nothing for a disabled endpoint and sends again once it is enabled', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const workflow = uniqueName('wf');
      const endpoint = await createEndpoint(receiver, { event_types: ['delivered'], workflows: [workflow], enabled: false });
      const [skipped] = await publishOutcomes(workflow, ['delivered']);
      await expectEventually(() => expect(topic.some((m) => m.messageId === skipped)).toBe(true));
      expect((await log(endpoint.id)).meta.count).toBe(0);

      await t.call('PATCH', `v1/staging/webhook_endpoint/${endpoint.id}/`, { enabled: true });
      const [sent] = await publishOutcomes(workflow, ['delivered']);
      await expectEventually(() => expect(receiver.distinctIds()).toEqual([sent]));
    } finally {
      await receiver.close();
    }
  });
});
