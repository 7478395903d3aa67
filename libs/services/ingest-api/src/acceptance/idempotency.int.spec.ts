import { EventAccepted, TriggerAccepted } from '@herald/contracts';
import { expectEventually } from '@herald/testing';
import { IngestTestApp, startIngestTestApp } from '../testing/ingest-test-app';
import { runModeTargets } from '@herald/runtime';

describe.each(runModeTargets())('$idempotency_key ($name)', ({ database, bus }) => {
  let t: IngestTestApp;

  beforeAll(async () => {
    t = await startIngestTestApp(database, bus);
    await t.announceWorkflow(t.workspace, 'welcome');
    await t.announceWorkflow(t.other, 'welcome');
  });
  afterAll(() => t?.close());

  const triggersWith = (key: string): TriggerAccepted[] =>
    t.triggers.map((c) => c.envelope.payload as TriggerAccepted).filter((p) => p.idempotency_key === key);

  it('answers a repeat with the first message_id and starts nothing more', async () => {
    const body = { workflow: 'welcome', recipients: ['a', 'b'], $idempotency_key: 'signup-1' };
    const first = await t.call('POST', 'trigger/', body);
    const second = await t.call('POST', 'trigger/', { ...body, $idempotency_key: '  signup-1  ' });
    expect(first.status).toBe(202);
    expect(second).toEqual(first);
    await expectEventually(() => expect(triggersWith('signup-1')).toHaveLength(2));
    await t.drain();
    expect(triggersWith('signup-1')).toHaveLength(2);
  });

  it('lets exactly one of many concurrent identical requests start runs; all answer its message_id', async () => {
    const body = { workflow: 'welcome', recipients: ['c'], $idempotency_key: 'race-1' };
    const responses = await Promise.all(Array.from({ length: 12 }, () => t.call('POST', 'trigger/', body)));
    expect(responses.map((r) => r.status)).toEqual(Array(12).fill(202));
    const ids = new Set(responses.map((r) => (r.body as { message_id: string }).message_id));
    expect(ids.size).toBe(1);
    await expectEventually(() => expect(triggersWith('race-1')).toHaveLength(1));
    await t.drain();
    expect(triggersWith('race-1')).toHaveLength(1);
    expect(triggersWith('race-1')[0].message_id).toBe([...ids][0]);
  });

  it('claims many concurrent keys together (batched), each key once, a repeat in the same batch answered with its first id', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `batch-${i}`);
    const responses = await Promise.all(
      [...keys, ...keys].map((key) => t.call('POST', 'trigger/', { workflow: 'welcome', recipients: ['h'], $idempotency_key: key })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(60).fill(202));
    const ids = responses.map((r) => (r.body as { message_id: string }).message_id);
    expect(ids.slice(30)).toEqual(ids.slice(0, 30));
    expect(new Set(ids).size).toBe(30);
    await expectEventually(() => expect(keys.filter((key) => triggersWith(key).length !== 1)).toEqual([]));
    await t.drain();
    expect(keys.map((key) => triggersWith(key).map((p) => p.message_id))).toEqual(ids.slice(0, 30).map((id) => [id]));
  });

  it('dedupes across REST and bulk, and inside one bulk call', async () => {
    const single = await t.call('POST', 'trigger/', { workflow: 'welcome', recipients: ['d'], $idempotency_key: 'mixed-1' });
    const bulk = await t.call('POST', 'trigger/', [
      { workflow: 'welcome', recipients: ['d'], $idempotency_key: 'mixed-1' },
      { workflow: 'welcome', recipients: ['e'], $idempotency_key: 'mixed-2' },
      { workflow: 'welcome', recipients: ['e'], $idempotency_key: 'mixed-2' },
    ]);
    const records = (bulk.body as { records: Array<{ message_id: string }> }).records;
    expect(records[0].message_id).toBe((single.body as { message_id: string }).message_id);
    expect(records[1].message_id).toBe(records[2].message_id);
    await expectEventually(() => expect(triggersWith('mixed-2')).toHaveLength(1));
    await t.drain();
    expect(triggersWith('mixed-1')).toHaveLength(1);
    expect(triggersWith('mixed-2')).toHaveLength(1);
  });

  it('keeps workspaces apart: the same key in another workspace is a new trigger', async () => {
    const mine = await t.call('POST', 'trigger/', { workflow: 'welcome', recipients: ['f'], $idempotency_key: 'shared-key' });
    const theirs = await t.call('POST', 'trigger/', { workflow: 'welcome', recipients: ['f'], $idempotency_key: 'shared-key' }, { authorization: `Bearer ${t.other.apiKey}` });
    expect(theirs.status).toBe(202);
    expect((theirs.body as { message_id: string }).message_id).not.toBe((mine.body as { message_id: string }).message_id);
    await expectEventually(() => expect(triggersWith('shared-key')).toHaveLength(2));
  });

  it('dedupes events by their own keys, apart from triggers', async () => {
    const event = { distinct_id: 'g', event: 'idem-event', $idempotency_key: 'signup-1' };
    expect(await t.call('POST', 'event/', event)).toEqual({ status: 202, body: { message: 'OK' } });
    expect(await t.call('POST', 'event/', event)).toEqual({ status: 202, body: { message: 'OK' } });
    const published = (): EventAccepted[] => t.events.map((c) => c.envelope.payload as EventAccepted).filter((p) => p.event === 'idem-event');
    await expectEventually(() => expect(published()).toHaveLength(1));
    await t.drain();
    expect(published()).toHaveLength(1);
  });

  it('takes over a claim whose request died before publishing, and publishes it with the first message_id', async () => {
    const abandoned = '2b0c8f4e-1a35-4d7e-9d8f-5b3c2a1e0f11';
    await t.sql(
      `INSERT INTO ingest.idempotency_keys (workspace_id, request_kind, idempotency_key, message_id, state, claimed_at, expires_at)
       VALUES ($1, 'trigger', 'died-1', $2, 'pending', now() - interval '5 minutes', now() + interval '1 day')`,
      [t.workspace.id, abandoned],
    );
    const retry = await t.call('POST', 'trigger/', { workflow: 'welcome', recipients: ['h'], $idempotency_key: 'died-1' });
    expect(retry).toEqual({ status: 202, body: { message_id: abandoned, status: 'success' } });
    await expectEventually(() => expect(triggersWith('died-1').map((p) => p.message_id)).toEqual([abandoned]));
    expect(await t.sql(`SELECT state FROM ingest.idempotency_keys WHERE idempotency_key = 'died-1'`)).toEqual([{ state: 'accepted' }]);
  });

  it('starts anew once the 24 hours of a key are over', async () => {
    const first = await t.call('POST', 'trigger/', { workflow: 'welcome', recipients: ['i'], $idempotency_key: 'old-1' });
    await t.sql(`UPDATE ingest.idempotency_keys SET expires_at = now() - interval '1 second' WHERE idempotency_key = 'old-1'`);
    const later = await t.call('POST', 'trigger/', { workflow: 'welcome', recipients: ['i'], $idempotency_key: 'old-1' });
    expect(later.status).toBe(202);
    expect((later.body as { message_id: string }).message_id).not.toBe((first.body as { message_id: string }).message_id);
    await expectEventually(() => expect(triggersWith('old-1')).toHaveLength(2));
  });
});
