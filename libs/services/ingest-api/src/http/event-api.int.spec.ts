import { EventAccepted } from '@herald/contracts';
import { expectEventually } from '@herald/testing';
import { IngestTestApp, startIngestTestApp } from '../testing/ingest-test-app';
import { runModeTargets } from '@herald/runtime';

describe.each(runModeTargets())('POST /event/ ($name)', ({ database, bus }) => {
  let t: IngestTestApp;

  beforeAll(async () => {
    t = await startIngestTestApp(database, bus);
  });
  afterAll(() => t?.close());

  const eventsNamed = (name: string): Array<{ key: string; payload: EventAccepted }> =>
    t.events.filter((c) => (c.envelope.payload as EventAccepted).event === name).map((c) => ({ key: c.key, payload: c.envelope.payload as EventAccepted }));

  it('accepts an event with 202 {"message": "OK"}, keyed workspace:distinct_id, with the fields the SDK adds ignored', async () => {
    const response = await t.call('POST', 'event/', {
      distinct_id: 'user-7',
      event: 'Order Placed',
      properties: { amount: 12 },
      tenant_id: 'acme',
      $insert_id: '6f2d0c3e-3c4e-4b53-9a51-0c3c8c1b2a11',
      $time: 1_700_000_000_000,
      env: t.workspace.workspaceKey,
    });
    expect(response).toEqual({ status: 202, body: { message: 'OK' } });
    await expectEventually(() => expect(eventsNamed('Order Placed')).toHaveLength(1));
    expect(eventsNamed('Order Placed')[0]).toMatchObject({
      key: `${t.workspace.id}:user-7`,
      payload: { distinct_id: 'user-7', properties: { amount: 12 }, tenant_id: 'acme', workspace_slug: 'staging', accepted_via: 'api' },
    });
  });

  it('answers a bulk array with 207, one result per event', async () => {
    const response = await t.call('POST', 'event/', [
      { distinct_id: 'u1', event: 'bulk-event' },
      { event: 'bulk-event' },
      { distinct_id: 'u3', event: 'bulk-event', $idempotency_key: 'bulk-ev-1' },
    ]);
    expect(response.status).toBe(207);
    expect((response.body as { records: unknown[] }).records).toEqual([
      { status: 'success', status_code: 202, message_id: expect.any(String) },
      { status: 'error', status_code: 400, error: { message: expect.stringContaining('distinct_id'), type: 'ValidationError' } },
      { status: 'success', status_code: 202, message_id: expect.any(String) },
    ]);
    await expectEventually(() => expect(eventsNamed('bulk-event')).toHaveLength(2));
  });

  it('refuses an invalid event with every field named, and publishes nothing', async () => {
    const response = await t.call('POST', 'event/', { distinct_id: '', event: 'x'.repeat(256), properties: 'no' });
    expect(response.status).toBe(400);
    const detail = (response.body as { detail: string }).detail;
    for (const path of ['distinct_id', 'event', 'properties']) expect(detail).toContain(path);
    await t.drain();
    expect(eventsNamed('x'.repeat(256))).toHaveLength(0);
  });

  it('accepts an event signed the way the SDK signs it', async () => {
    const body = JSON.stringify({ distinct_id: 'signed', event: 'signed-event', properties: {} });
    expect(await t.signedCall('POST', 'event/', body)).toEqual({ status: 202, body: { message: 'OK' } });
    await expectEventually(() => expect(eventsNamed('signed-event')).toHaveLength(1));
  });
});
