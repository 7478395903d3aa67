import { BroadcastAccepted, EventAccepted, TOPICS, TriggerAccepted, deterministicUuid } from '@herald/contracts';
import { runModeTargets, sdkSignatureReplayKey, sdkSignedRequest } from '@herald/runtime';
import { expectEventually, fetchJson } from '@herald/testing';
import { IngestTestApp, startIngestTestApp } from '../testing/ingest-test-app';

/**
 * An exact replay of an SDK-signed write (same bytes, same Date, same signature) inside
 * the 15-minute window is answered as the first was and publishes nothing. "Nothing" is
 * proven with a marker: a later request on the same key (so the same partition) whose
 * arrival means anything the replay had published would have arrived before it.
 */
describe.each(runModeTargets())('replays of signed requests ($name)', ({ database, bus }) => {
  let t: IngestTestApp;
  const broadcasts: BroadcastAccepted[] = [];

  beforeAll(async () => {
    t = await startIngestTestApp(database, bus);
    await t.announceWorkflow(t.workspace, 'welcome');
    await t.bus.subscribe({
      groupId: `replay-broadcast-reader-${Date.now()}`,
      topics: [TOPICS.broadcastAccepted.name],
      handler: async (message) => {
        broadcasts.push((JSON.parse(message.value.toString('utf8')) as { payload: BroadcastAccepted }).payload);
      },
    });
  });
  afterAll(() => t?.close());

  const credentials = (): { workspaceKey: string; secret: string } => ({ workspaceKey: t.workspace.workspaceKey, secret: t.workspace.workspaceSecret });
  /** One signed request, sent as often as the test likes. */
  const signed = (path: string, body: unknown, date?: string): (() => Promise<{ status: number; body: unknown }>) => {
    const init = sdkSignedRequest(`${t.app.url}${path}`, 'POST', credentials(), { body: JSON.stringify(body), date });
    return () => fetchJson(`${t.app.url}${path}`, init);
  };
  const triggersOf = (recipient: string): TriggerAccepted[] =>
    t.triggers.map((c) => c.envelope.payload as TriggerAccepted).filter((p) => p.recipient.kind === 'user' && p.recipient.distinct_id === recipient);
  const eventsOf = (distinctId: string): EventAccepted[] => t.events.map((c) => c.envelope.payload as EventAccepted).filter((p) => p.distinct_id === distinctId);
  /** A Bearer trigger to the same recipient; once it is on the topic, whatever came before it on that key is too. */
  const markTrigger = async (recipient: string): Promise<void> => {
    expect((await t.call('POST', 'trigger/', { workflow: 'welcome', recipients: [recipient], data: { marker: true } })).status).toBe(202);
    await expectEventually(() => expect(triggersOf(recipient).some((p) => p.data.marker === true)).toBe(true));
  };
  const unmarked = (payloads: TriggerAccepted[]): TriggerAccepted[] => payloads.filter((p) => p.data.marker !== true);

  it('answers a replayed trigger with the first answer and publishes no second run', async () => {
    const send = signed('trigger/', { workflow: 'welcome', recipients: ['replay-1', 'replay-2'], data: { n: 1 } });
    const first = await send();
    expect(first).toEqual({ status: 202, body: { message_id: expect.any(String), status: 'success' } });
    expect(await send()).toEqual(first);
    expect(await send()).toEqual(first);
    await markTrigger('replay-1');
    await markTrigger('replay-2');
    const messageId = (first.body as { message_id: string }).message_id;
    expect(unmarked(triggersOf('replay-1')).map((p) => p.message_id)).toEqual([messageId]);
    expect(unmarked(triggersOf('replay-2')).map((p) => p.message_id)).toEqual([messageId]);
  });

  it("answers a replayed legacy dynamic-workflow trigger (the SDKs' trigger_workflow) with the first answer and publishes no second run", async () => {
    const send = signed(`${t.workspace.workspaceKey}/trigger/`, {
      name: 'legacy-replay',
      template: 'welcome-email',
      notification_category: 'transactional',
      users: [{ distinct_id: 'legacy-replay-1' }],
      data: {},
    });
    const first = await send();
    expect(first).toEqual({ status: 202, body: { message: 'Accepted - OK', message_id: expect.any(String) } });
    expect(await send()).toEqual(first);
    await markTrigger('legacy-replay-1');
    expect(unmarked(triggersOf('legacy-replay-1')).map((p) => p.message_id)).toEqual([(first.body as { message_id: string }).message_id]);
  });

  it('answers concurrent replays with one answer and publishes once', async () => {
    const send = signed('trigger/', { workflow: 'welcome', recipients: ['replay-race'], data: {} });
    const answers = await Promise.all(Array.from({ length: 8 }, () => send()));
    expect(answers.map((a) => JSON.stringify(a))).toEqual(Array(8).fill(JSON.stringify(answers[0])));
    expect(answers[0].status).toBe(202);
    await markTrigger('replay-race');
    expect(unmarked(triggersOf('replay-race'))).toHaveLength(1);
  });

  it('answers a replayed bulk call with the same 207, record by record, and publishes each record once', async () => {
    const send = signed('trigger/', [
      { workflow: 'welcome', recipients: ['bulk-replay-1'] },
      { workflow: 'unknown-workflow', recipients: ['bulk-replay-2'] },
      { workflow: 'welcome', recipients: ['bulk-replay-3'], $idempotency_key: 'bulk-replay-key' },
    ]);
    const first = await send();
    expect(first.status).toBe(207);
    expect((first.body as { records: Array<{ status_code: number }> }).records.map((r) => r.status_code)).toEqual([202, 404, 202]);
    expect(await send()).toEqual(first);
    await markTrigger('bulk-replay-1');
    await markTrigger('bulk-replay-3');
    expect(unmarked(triggersOf('bulk-replay-1'))).toHaveLength(1);
    expect(unmarked(triggersOf('bulk-replay-3'))).toHaveLength(1);
  });

  it('answers a replayed event and a replayed broadcast as the first, publishing each once', async () => {
    const event = signed('event/', { distinct_id: 'replay-ev', event: 'replayed_event', properties: {} });
    expect(await event()).toEqual({ status: 202, body: { message: 'OK' } });
    expect(await event()).toEqual({ status: 202, body: { message: 'OK' } });
    expect((await t.call('POST', 'event/', { distinct_id: 'replay-ev', event: 'marker_event' })).status).toBe(202);
    await expectEventually(() => expect(eventsOf('replay-ev').map((e) => e.event)).toContain('marker_event'));
    expect(eventsOf('replay-ev').filter((e) => e.event === 'replayed_event')).toHaveLength(1);

    const path = `${t.workspace.workspaceKey}/broadcast/`;
    const broadcast = signed(path, { list_id: 'replay-list', template: 't', notification_category: 'c', data: { n: 1 } });
    expect(await broadcast()).toEqual({ status: 202, body: { message: 'Accepted - OK' } });
    expect(await broadcast()).toEqual({ status: 202, body: { message: 'Accepted - OK' } });
    expect((await t.call('POST', path, { list_id: 'replay-list', template: 'marker', notification_category: 'c' })).status).toBe(202);
    await expectEventually(() => expect(broadcasts.filter((b) => b.list_id === 'replay-list').map((b) => b.template)).toContain('marker'));
    expect(broadcasts.filter((b) => b.list_id === 'replay-list' && b.template === 't')).toHaveLength(1);
  });

  it('runs the same body signed again with a new Date (an SDK retry) as a new request, unless its $idempotency_key was seen', async () => {
    const second = new Date(Date.now() + 1_000).toUTCString();
    const body = { workflow: 'welcome', recipients: ['resigned'], data: {} };
    const first = await signed('trigger/', body)();
    const retried = await signed('trigger/', body, second)();
    expect(retried.status).toBe(202);
    expect((retried.body as { message_id: string }).message_id).not.toBe((first.body as { message_id: string }).message_id);

    const keyed = { ...body, recipients: ['resigned-keyed'], $idempotency_key: 'resign-key' };
    const keyedFirst = await signed('trigger/', keyed)();
    expect(await signed('trigger/', keyed, second)()).toEqual(keyedFirst);
    await markTrigger('resigned');
    await markTrigger('resigned-keyed');
    expect(unmarked(triggersOf('resigned'))).toHaveLength(2);
    expect(unmarked(triggersOf('resigned-keyed'))).toHaveLength(1);
  });

  it('judges a replay of a refused request afresh: nothing was started by the first', async () => {
    const send = signed('trigger/', { workflow: 'not-yet', recipients: ['refused-then-known'] });
    expect(await send()).toMatchObject({ status: 404 });
    await t.announceWorkflow(t.workspace, 'not-yet');
    const accepted = await send();
    expect(accepted).toMatchObject({ status: 202 });
    expect(await send()).toEqual(accepted);
  });

  it('takes over the claim of a signed request that died, and publishes it with the message id derived from the signature', async () => {
    const path = 'trigger/';
    const init = sdkSignedRequest(`${t.app.url}${path}`, 'POST', credentials(), { body: JSON.stringify({ workflow: 'welcome', recipients: ['died-mid-way'] }) });
    const headers = init.headers as Record<string, string>;
    const replayKey = sdkSignatureReplayKey(headers.authorization, headers.date) as string;
    // The first request claimed, then died before publishing: a pending claim past its 5 s lease.
    await t.sql(
      `INSERT INTO ingest.signed_requests (workspace_id, replay_key, state, claimed_at, expires_at)
       VALUES ($1, $2, 'pending', now() - interval '6 seconds', now() + interval '30 minutes')`,
      [t.workspace.id, replayKey],
    );
    const replay = await fetchJson(`${t.app.url}${path}`, init);
    const derived = deterministicUuid('signed-request', t.workspace.id, replayKey, '0');
    expect(replay).toEqual({ status: 202, body: { message_id: derived, status: 'success' } });
    expect(await fetchJson(`${t.app.url}${path}`, init)).toEqual(replay);
    await markTrigger('died-mid-way');
    expect(unmarked(triggersOf('died-mid-way')).map((p) => p.message_id)).toEqual([derived]);
  });

  it('keeps Bearer requests out of it: the same body twice is two triggers', async () => {
    const body = { workflow: 'welcome', recipients: ['bearer-twice'], data: {} };
    const [a, b] = [await t.call('POST', 'trigger/', body), await t.call('POST', 'trigger/', body)];
    expect((a.body as { message_id: string }).message_id).not.toBe((b.body as { message_id: string }).message_id);
  });
});
