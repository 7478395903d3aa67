import { randomBytes } from 'node:crypto';
import { MessageStatusEvent, TOPICS, parseEnvelope, parseMessageStatus } from '@herald/contracts';
import { WebhookReceiver } from '@herald/management-api';
import { expectEventually, fetchJson, heraldEnv, uniqueName } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';

/** Triggers of the suite (issue 42: every status change of 1,000 triggers once), sent this many at a time. */
const TRIGGERS = 1_000;
const IN_FLIGHT = 50;

/**
 * Every status change of a trigger's messages, told the same way by the status topic
 * (`notify.status.v1`, once each) and by a status webhook (verified with the
 * `standardwebhooks` package): an inbox message delivered and an email that fails (no
 * email vendor is configured), for each of TRIGGERS triggers.
 */
describe.each(heraldModes('status'))('status changes on notify.status.v1 and webhooks ($name)', (mode) => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let receiver: WebhookReceiver;
  const topic: MessageStatusEvent[] = [];

  const management = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect({ path, status: response.status < 300 ? 'ok' : response.status }).toEqual({ path, status: 'ok' });
    return response.body;
  };
  const trigger = async (distinctId: string): Promise<string> => {
    const response = await fetchJson(`${herald.baseUrl}trigger/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workflow: 'status-note', recipients: [{ distinct_id: distinctId, $email: [`${distinctId}@example.com`] }], data: { name: 'Ada' } }),
    });
    expect(response.status).toBe(202);
    return (response.body as { message_id: string }).message_id;
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
    const endpoint = (await management('POST', 'v1/staging/webhook_endpoint/', { url: receiver.url, event_types: ['delivered', 'delivery_failure'], workflows: ['status-note'] })) as { secret: string };
    receiver.verifyWith(endpoint.secret);
    await management('POST', 'v2/staging/template/status-note/', { name: 'Note', enabled_channels: ['email', 'inbox'] });
    await management('POST', 'v2/staging/template/status-note/channel/email/variant/default/', { locale: 'en', content: { subject: 'Hi {{name}}', text: 'Hi {{name}}.' } });
    await management('POST', 'v2/staging/template/status-note/channel/inbox/variant/default/', { locale: 'en', content: { title: 'Hi {{name}}', body: 'Hello.' } });
    await management('PATCH', 'v2/staging/template/status-note/commit/?commit_message=t');
    await management('POST', 'v1/staging/workflow/status-note/?commit=true&commit_message=first', {
      name: 'Note',
      category: 'transactional',
      trigger_type: 'api',
      tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'status-note' }, { name: 'Mail', node_type: 'send_email', template: 'status-note' }] },
    });
  }, 120_000);

  afterAll(async () => {
    await herald?.stop();
    await receiver?.close();
    await dispose?.();
  });

  it(`tells every status change of ${TRIGGERS} triggers once, on the topic and to the webhook alike`, async () => {
    const messageIds: string[] = [];
    for (let i = 0; i < TRIGGERS; i += IN_FLIGHT) {
      messageIds.push(...(await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, TRIGGERS - i) }, (_, j) => trigger(`status-user-${i + j}`)))));
    }
    const expected = messageIds.flatMap((id) => [`${id} inbox delivered`, `${id} email delivery_failure`]).sort();
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
    await expectEventually(() => expect(story(topic)).toEqual(expected), { timeoutMs: 180_000, intervalMs: 500 });
    await expectEventually(() => expect(story(receiver.received.map((w) => w.event))).toEqual(expected), { timeoutMs: 180_000, intervalMs: 500 });
    // The webhook's event ids are the topic's.
    expect(new Set(receiver.distinctIds())).toEqual(new Set(byEventId(topic).keys()));
    expect(receiver.forgeries).toEqual([]);
    expect(topic.every((e) => e.workflow_name === 'status-note' && e.category === 'transactional' && e.distinct_id?.startsWith('status-user-'))).toBe(true);
  }, 400_000);
});
