import { Envelope, TOPICS, TriggerChunkAccepted } from '@herald/contracts';
import { expectEventually } from '@herald/testing';
import { Subscription } from '@herald/bus';
import { runModeTargets } from '@herald/runtime';
import { IngestTestApp, startIngestTestApp } from '../testing/ingest-test-app';

/** A bound small enough for a few triggers to pass it. */
const MAX_BACKLOG = 20;
const RECIPIENTS = ['a', 'b', 'c', 'd'];

// Embedded mode only: the in-process bus holds its backlog in memory, so it is bounded there.
const [embedded] = runModeTargets();

describe(`embedded push-back (${embedded.name})`, () => {
  let t: IngestTestApp;
  let release: () => void = () => undefined;
  let stalled: Subscription | undefined;
  /** trigger message_id -> recipients the stalled consumer (the engine's stand-in) handled. */
  const handled = new Map<string, number>();

  beforeAll(async () => {
    t = await startIngestTestApp(embedded.database, embedded.bus, { env: { HERALD_INGEST_MAX_BACKLOG: String(MAX_BACKLOG) } });
    await t.announceWorkflow(t.workspace, 'welcome');
    const gate = new Promise<void>((resolve) => (release = resolve));
    // A consumer that falls behind: it handles nothing until released.
    stalled = await t.bus.subscribe({
      groupId: 'push-back-stalled-engine',
      topics: [TOPICS.triggerChunkAccepted.name],
      startFrom: 'latest',
      handler: async (message) => {
        await gate;
        const triggerId = message.headers['trigger-message-id'];
        const recipients = (JSON.parse(message.value.toString('utf8')) as Envelope<TriggerChunkAccepted>).payload.recipients.length;
        handled.set(triggerId, (handled.get(triggerId) ?? 0) + recipients);
      },
    });
  });
  afterAll(async () => {
    release();
    await stalled?.stop();
    await t?.close();
  });

  it('answers 429 with Retry-After once the backlog passes its bound, and delivers everything accepted before', async () => {
    const accepted: string[] = [];
    let refused: { status: number; body: unknown; retryAfter: string | null } | undefined;
    for (let attempt = 0; attempt < 50 && refused === undefined; attempt++) {
      const response = await fetch(`${t.app.url}trigger/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.workspace.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workflow: 'welcome', recipients: RECIPIENTS }),
      });
      const body = (await response.json()) as { message_id?: string };
      if (response.status === 202) accepted.push(body.message_id as string);
      else refused = { status: response.status, body, retryAfter: response.headers.get('retry-after') };
    }

    // Refused once about MAX_BACKLOG / 4 triggers were waiting, not sooner.
    expect(accepted.length).toBeGreaterThanOrEqual(MAX_BACKLOG / RECIPIENTS.length);
    expect(refused).toEqual({
      status: 429,
      retryAfter: '1',
      body: { code: 429, error_code: 'rate_limited', type: 'Throttled', message: expect.stringContaining('retry after 1 s'), detail: expect.any(String) },
    });
    // Every door of the HTTP API pushes back (the response is still checked against the OpenAPI description).
    expect(await t.call('POST', 'event/', { distinct_id: 'a', event: 'signed-up' })).toMatchObject({ status: 429 });

    release();
    await expectEventually(() => expect(accepted.filter((id) => handled.get(id) !== RECIPIENTS.length)).toEqual([]));
    // Caught up: accepted again.
    await expectEventually(async () => expect((await t.call('POST', 'trigger/', { workflow: 'welcome', recipients: ['e'] })).status).toBe(202));
    await t.drain();
    expect([...handled.values()].every((count) => count <= RECIPIENTS.length)).toBe(true);
  });
});

describe(`embedded push-back by the backlog's bytes (${embedded.name})`, () => {
  /** About three chunks of 100 recipients with these ids. */
  const MAX_BACKLOG_BYTES = 16 * 1024;
  const recipients = Array.from({ length: 100 }, (_, i) => `recipient-with-a-long-distinct-id-${String(i).padStart(4, '0')}`);
  let t: IngestTestApp;
  let release: () => void = () => undefined;
  let stalled: Subscription | undefined;
  let handledRecipients = 0;

  beforeAll(async () => {
    // A message bound far away: only the bytes can push back.
    t = await startIngestTestApp(embedded.database, embedded.bus, {
      env: { HERALD_INGEST_MAX_BACKLOG: '1000000', HERALD_INGEST_MAX_BACKLOG_BYTES: String(MAX_BACKLOG_BYTES) },
    });
    await t.announceWorkflow(t.workspace, 'welcome');
    const gate = new Promise<void>((resolve) => (release = resolve));
    stalled = await t.bus.subscribe({
      groupId: 'push-back-bytes-stalled-engine',
      topics: [TOPICS.triggerChunkAccepted.name],
      startFrom: 'latest',
      handler: async (message) => {
        await gate;
        handledRecipients += (JSON.parse(message.value.toString('utf8')) as Envelope<TriggerChunkAccepted>).payload.recipients.length;
      },
    });
  });
  afterAll(async () => {
    release();
    await stalled?.stop();
    await t?.close();
  });

  it('answers 429 once the unconsumed chunks weigh more than the bound, though they are few messages', async () => {
    let accepted = 0;
    let refused: { status: number; retryAfter: string | null; message?: string } | undefined;
    for (let attempt = 0; attempt < 50 && refused === undefined; attempt++) {
      const response = await fetch(`${t.app.url}trigger/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.workspace.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workflow: 'welcome', recipients }),
      });
      const body = (await response.json()) as { message?: string };
      if (response.status === 202) accepted++;
      else refused = { status: response.status, retryAfter: response.headers.get('retry-after'), message: body.message };
    }

    // One chunk (100 recipients) per trigger: refused after a handful of messages, by their bytes.
    expect(accepted).toBeGreaterThanOrEqual(1);
    expect(accepted).toBeLessThan(10);
    expect(refused).toEqual({ status: 429, retryAfter: '1', message: expect.stringContaining(`bounds 1000000 messages, ${MAX_BACKLOG_BYTES} bytes`) });

    release();
    await expectEventually(() => expect(handledRecipients).toBe(accepted * recipients.length));
    await expectEventually(async () => expect((await t.call('POST', 'trigger/', { workflow: 'welcome', recipients: ['e'] })).status).toBe(202));
  });
});
