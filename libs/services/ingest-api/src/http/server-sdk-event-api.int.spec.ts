import { randomUUID } from 'node:crypto';
import { EventAccepted } from '@herald/contracts';
import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { IngestTestApp, startIngestTestApp } from '../testing/ingest-test-app';

/**
 * `POST /v2/event/` and `/v2/bulk/event/` as suprsend-py-sdk 0.19.7 calls them
 * (docs/sdk-compatibility.md): signed with the workspace key and secret, one event with
 * `$insert_id`, `$time` and `env`, or an array of them.
 */
describe.each(runModeTargets())("a backend SDK's /v2/event/ and /v2/bulk/event/ ($name)", ({ database, bus }) => {
  let t: IngestTestApp;

  beforeAll(async () => {
    t = await startIngestTestApp(database, bus);
  });
  afterAll(() => t?.close());

  const sdkEvent = (distinctId: string, event: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    $insert_id: randomUUID(),
    $time: Date.now(),
    event,
    env: t.workspace.workspaceKey,
    distinct_id: distinctId,
    properties: { plan: 'pro', $ss_sdk_version: 'suprsend-py-sdk/0.19.7' },
    ...extra,
  });
  const eventsNamed = (name: string): Array<{ workspaceId: string; payload: EventAccepted }> =>
    t.events.filter((c) => (c.envelope.payload as EventAccepted).event === name).map((c) => ({ workspaceId: c.envelope.workspace_id, payload: c.envelope.payload as EventAccepted }));

  it('accepts a signed track_event at /v2/event/ (and /v2/event) with its message id, once per $insert_id', async () => {
    const first = sdkEvent('py-1', 'py_tracked', { tenant_id: 'acme' });
    const answer = await t.signedCall('POST', 'v2/event/', JSON.stringify(first));
    expect(answer).toEqual({ status: 202, body: { message: 'OK', message_id: expect.any(String) } });
    // The SDK retried the same event (a new $time, so a new signature): accepted, started once.
    const retried = await t.signedCall('POST', 'v2/event/', JSON.stringify({ ...first, $time: Date.now() + 1 }));
    expect(retried).toEqual({ status: 202, body: { message: 'OK', message_id: (answer.body as { message_id: string }).message_id } });
    expect((await t.call('POST', 'v2/event', sdkEvent('py-2', 'py_tracked'))).status).toBe(202);
    await t.drain();
    await expectEventually(() => expect(eventsNamed('py_tracked').map((e) => e.payload.distinct_id).sort()).toEqual(['py-1', 'py-2']));
    expect(eventsNamed('py_tracked').find((e) => e.payload.distinct_id === 'py-1')?.payload).toMatchObject({ tenant_id: 'acme', properties: { plan: 'pro' } });
  });

  it('accepts a signed bulk at /v2/bulk/event/ with a result per record, each $insert_id keying its own record', async () => {
    const repeated = sdkEvent('py-bulk-1', 'py_bulk');
    const answer = await t.signedCall('POST', 'v2/bulk/event/', JSON.stringify([repeated, sdkEvent('', 'py_bulk'), sdkEvent('py-bulk-3', 'py_bulk')]));
    expect(answer.status).toBe(207);
    expect((answer.body as { records: unknown[] }).records).toEqual([
      { status: 'success', status_code: 202, message_id: expect.any(String) },
      { status: 'error', status_code: 400, error: { message: expect.stringContaining('distinct_id'), type: 'ValidationError' } },
      { status: 'success', status_code: 202, message_id: expect.any(String) },
    ]);
    // A record already accepted through /v2/bulk/event/ is a repeat at /v2/event/ too.
    expect((await t.signedCall('POST', 'v2/event/', JSON.stringify({ ...repeated, $time: Date.now() + 1 }))).status).toBe(202);
    await t.drain();
    await expectEventually(() => expect(eventsNamed('py_bulk').map((e) => e.payload.distinct_id).sort()).toEqual(['py-bulk-1', 'py-bulk-3']));
  });

  it('answers bad input with 400 naming the field, in the error shape the SDK reads', async () => {
    const badInsertId = await t.signedCall('POST', 'v2/event/', JSON.stringify(sdkEvent('py-bad', 'py_bad', { $insert_id: 7, properties: 'no' })));
    expect(badInsertId).toMatchObject({ status: 400, body: { error: { type: 'VALIDATION_ERROR', message: expect.stringContaining('$insert_id') } } });
    expect((badInsertId.body as { error: { message: string } }).error.message).toContain('properties');
    const notArray = await t.signedCall('POST', 'v2/bulk/event/', JSON.stringify(sdkEvent('py-bad', 'py_bad')));
    expect(notArray).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('must be an array') } } });
    const tooMany = await t.signedCall('POST', 'v2/bulk/event/', JSON.stringify(Array.from({ length: 101 }, (_, i) => sdkEvent(`py-${i}`, 'py_bad'))));
    expect(tooMany).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('at most 100 track events') } } });
    expect((await t.signedCall('POST', 'v2/bulk/event/', '[]')).status).toBe(400);
    await t.drain();
    expect(eventsNamed('py_bad')).toHaveLength(0);
  });

  it("refuses a signature made with another workspace's secret, and keeps each workspace's events its own", async () => {
    const forged = { ...t.workspace, workspaceSecret: t.other.workspaceSecret };
    for (const path of ['v2/event/', 'v2/bulk/event/']) {
      const body = path === 'v2/event/' ? sdkEvent('py-x', 'py_forged') : [sdkEvent('py-x', 'py_forged')];
      expect(await t.signedCall('POST', path, JSON.stringify(body), forged)).toMatchObject({ status: 401, body: { error: { type: 'AUTHENTICATION_FAILED' } } });
    }
    expect((await t.signedCall('POST', 'v2/bulk/event/', JSON.stringify([sdkEvent('py-x', 'py_elsewhere')]), t.other)).status).toBe(207);
    await t.drain();
    expect(eventsNamed('py_forged')).toHaveLength(0);
    await expectEventually(() => expect(eventsNamed('py_elsewhere').map((e) => e.workspaceId)).toEqual([t.other.id]));
  });
});
