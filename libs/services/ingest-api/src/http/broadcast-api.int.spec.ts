import { BroadcastAccepted } from '@herald/contracts';
import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { IngestTestApp, startIngestTestApp } from '../testing/ingest-test-app';

describe.each(runModeTargets())('POST /{workspace_key}/broadcast/ ($name)', ({ database, bus }) => {
  let t: IngestTestApp;
  const broadcasts = (): BroadcastAccepted[] => t.broadcasts.map((c) => c.envelope.payload as BroadcastAccepted);

  beforeAll(async () => {
    t = await startIngestTestApp(database, bus);
  });
  afterAll(() => t?.close());

  it('accepts a broadcast (202) and puts it on the broadcast topic, keyed by its list', async () => {
    const response = await t.call('POST', `${t.workspace.workspaceKey}/broadcast/`, {
      list_id: 'beta-testers',
      template: 'release-notes',
      notification_category: 'product',
      channels: ['email', 'inbox'],
      data: { version: '2.0' },
      delay: 90,
      $insert_id: 'ignored',
    });
    expect(response).toEqual({ status: 202, body: { message: 'Accepted - OK' } });
    await expectEventually(() => expect(broadcasts().filter((b) => b.list_id === 'beta-testers')).toHaveLength(1));
    expect(broadcasts().find((b) => b.list_id === 'beta-testers')).toMatchObject({ template: 'release-notes', channels: ['email', 'inbox'], data: { version: '2.0' }, delay: '0d0h0m90s' });
  });

  it('accepts the signed call the SDK makes', async () => {
    const body = JSON.stringify({ list_id: 'signed-list', template: 't', notification_category: 'c', data: {} });
    expect(await t.signedCall('POST', `${t.workspace.workspaceKey}/broadcast/`, body)).toEqual({ status: 202, body: { message: 'Accepted - OK' } });
  });

  it("refuses another workspace's key in the path (404) and names every invalid field (400)", async () => {
    expect(await t.call('POST', `${t.other.workspaceKey}/broadcast/`, { list_id: 'l', template: 't', notification_category: 'c' })).toMatchObject({ status: 404 });
    const invalid = await t.call('POST', `${t.workspace.workspaceKey}/broadcast/`, { template: '', channels: ['fax'], delay: 'soon', trigger_at: 'tomorrow' });
    expect(invalid.status).toBe(400);
    for (const path of ['list_id', 'template', 'notification_category', 'channels[0]', 'delay', 'trigger_at']) expect((invalid.body as { detail: string }).detail).toContain(path);
  });

  it('dedupes a repeated $idempotency_key', async () => {
    const body = { list_id: 'idem-list', template: 't', notification_category: 'c', $idempotency_key: 'b-1' };
    await t.call('POST', `${t.workspace.workspaceKey}/broadcast/`, body);
    await t.call('POST', `${t.workspace.workspaceKey}/broadcast/`, body);
    await expectEventually(() => expect(broadcasts().filter((b) => b.list_id === 'idem-list')).toHaveLength(1));
    await t.drain();
    expect(broadcasts().filter((b) => b.list_id === 'idem-list')).toHaveLength(1);
  });
});
