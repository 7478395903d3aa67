import { randomBytes } from 'node:crypto';
import { MessageStatusEvent, TOPICS, parseEnvelope, parseMessageStatus } from '@herald/contracts';
import { WebhookReceiver } from '@herald/management-api';
import { expectEventually, fetchJson, heraldEnv, uniqueName } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { HeraldMode, heraldModes } from './testing/herald-modes';

/**
 * Triggers per mode (issue 42: a consumer of the status topic sees every status change of
 * 1,000 triggers once, on Kafka); the embedded mode runs the same code on fewer. Sent
 * this many at a time.
 */
const triggersOn = (mode: HeraldMode): number => (mode.name.includes('Kafka') ? 1_000 : 250);
const IN_FLIGHT = 50;
/** Every this-many-th trigger runs the workflow the webhook endpoint is filtered to. */
const HOOKED_EVERY = 10;

/**
 * Every status change of a trigger's messages, told the same way by the status topic
 * (`notify.status.v1`, once each) and by a status webhook (verified with the
 * `standardwebhooks` package): an inbox message delivered and an email that fails (no
 * email vendor is configured). The topic carries every trigger's changes; the endpoint is
 * filtered to one of two workflows, so it gets exactly that workflow's.
 */
describe.each(heraldModes('status'))('status changes on notify.status.v1 and webhooks ($name)', (mode) => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let receiver: WebhookReceiver;
  const topic: MessageStatusEvent[] = [];
  const TRIGGERS = triggersOn(mode);
  let endpointId: string;

  const management = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect({ path, status: response.status < 300 ? 'ok' : response.status }).toEqual({ path, status: 'ok' });
    return response.body;
  };
  const trigger = async (workflow: string, distinctId: string): Promise<string> => {
    const response = await fetchJson(`${herald.baseUrl}trigger/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workflow, recipients: [{ distinct_id: distinctId, $email: [`${distinctId}@example.com`] }], data: { name: 'Ada' } }),
    });
    expect(response.status).toBe(202);
    return (response.body as { message_id: string }).message_id;
  };

  /** Runs `wait`; when it fails, adds what the endpoint's delivery log says (how many per state, the last errors). */
  const withDeliveryLog = async (wait: () => Promise<void>): Promise<void> => {
    try {
      await wait();
    } catch (error) {
      const counts: Record<string, unknown> = {};
      for (const state of ['pending', 'sending', 'delivered', 'dead']) {
        const page = (await management('GET', `v1/staging/webhook_endpoint/${endpointId}/delivery/?state=${state}&limit=3`)) as { meta: { count: number }; results: { last_error: string | null; attempts: number }[] };
        counts[state] = { count: page.meta.count, newest: page.results.map((d) => ({ attempts: d.attempts, last_error: d.last_error })) };
      }
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n\nThe endpoint's delivery log: ${JSON.stringify(counts, null, 1)}`);
    }
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
        HERALD_OUTBOUND_ALLOW: '127.0.0.1/32',
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    await herald.bus.subscribe({
      groupId: uniqueName('status-reader'),
      topics: [TOPICS.messageStatus.name],
      handler: async (message) => {
        const envelope = parseEnvelope(message.value);
        const event = envelope.ok ? parseMessageStatus(envelope.value.payload) : undefined;
        if (!event?.ok) throw new Error(`invalid message on notify.status.v1: ${message.value.toString()}`);
        topic.push(event.value);
      },
    });
    receiver = await WebhookReceiver.start();
    const endpoint = (await management('POST', 'v1/staging/webhook_endpoint/', { url: receiver.url, event_types: ['delivered', 'delivery_failure'], workflows: ['status-hooked'] })) as { id: string; secret: string };
    endpointId = endpoint.id;
    receiver.verifyWith(endpoint.secret);
    await management('POST', 'v2/staging/template/status-note/', { name: 'Note', enabled_channels: ['email', 'inbox'] });
    await management('POST', 'v2/staging/template/status-note/channel/email/variant/default/', { locale: 'en', content: { subject: 'Hi {{name}}', text: 'Hi {{name}}.' } });
    await management('POST', 'v2/staging/template/status-note/channel/inbox/variant/default/', { locale: 'en', content: { title: 'Hi {{name}}', body: 'Hello.' } });
    await management('PATCH', 'v2/staging/template/status-note/commit/?commit_message=t');
    for (const workflow of ['status-note', 'status-hooked']) {
      await management('POST', `v1/staging/workflow/${workflow}/?commit=true&commit_message=first`, {
        name: 'Note',
        category: 'transactional',
        trigger_type: 'api',
        tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'status-note' }, { name: 'Mail', node_type: 'send_email', template: 'status-note' }] },
      });
    }
  }, 120_000);

  afterAll(async () => {
    await herald?.stop();
    await receiver?.close();
    await dispose?.();
  });

  it(`tells every status change of ${TRIGGERS} triggers once, on the topic and to the webhook alike`, async () => {
    const triggered: { workflow: string; messageId: string }[] = [];
    for (let i = 0; i < TRIGGERS; i += IN_FLIGHT) {
      const round = Array.from({ length: Math.min(IN_FLIGHT, TRIGGERS - i) }, async (_, j) => {
        const workflow = (i + j) % HOOKED_EVERY === 0 ? 'status-hooked' : 'status-note';
        return { workflow, messageId: await trigger(workflow, `status-user-${i + j}`) };
      });
      triggered.push(...(await Promise.all(round)));
    }
    const storyOf = (messageIds: readonly string[]): string[] => messageIds.flatMap((id) => [`${id} inbox delivered`, `${id} email delivery_failure`]).sort();
    // Kafka and webhooks deliver at least once: a copy (a relay or a consumer that restarted
    // before committing) carries the same event id and the same content, and a consumer
    // dedupes by it. Once means one event id per status change, never two ids for one.
    const byEventId = (events: readonly MessageStatusEvent[]): Map<string, MessageStatusEvent> => {
      const unique = new Map<string, MessageStatusEvent>();
      for (const event of events) {
        const seen = unique.get(event.event_id);
        if (seen) expect(event).toEqual(seen);
        else unique.set(event.event_id, event);
      }
      return unique;
    };
    const story = (events: readonly MessageStatusEvent[]): string[] => [...byEventId(events).values()].map((e) => `${e.message_id} ${e.channel} ${e.status}`).sort();
    await expectEventually(() => expect(story(topic)).toEqual(storyOf(triggered.map((t) => t.messageId))), { timeoutMs: 180_000, intervalMs: 500 });
    const hooked = triggered.filter((t) => t.workflow === 'status-hooked').map((t) => t.messageId);
    await withDeliveryLog(() => expectEventually(() => expect(story(receiver.received.map((w) => w.event))).toEqual(storyOf(hooked)), { timeoutMs: 120_000, intervalMs: 500 }));
    // The webhook's event ids are the topic's, for the hooked workflow's events only.
    const hookedEventIds = [...byEventId(topic).values()].filter((e) => e.workflow_name === 'status-hooked').map((e) => e.event_id);
    expect(new Set(receiver.distinctIds())).toEqual(new Set(hookedEventIds));
    expect(receiver.forgeries).toEqual([]);
    expect(topic.every((e) => ['status-note', 'status-hooked'].includes(e.workflow_name ?? '') && e.category === 'transactional' && e.distinct_id?.startsWith('status-user-'))).toBe(true);
  }, 400_000);
});
