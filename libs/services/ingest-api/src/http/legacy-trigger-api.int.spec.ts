import { TriggerAccepted } from '@herald/contracts';
import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { IngestTestApp, startIngestTestApp } from '../testing/ingest-test-app';

describe.each(runModeTargets())('POST /{workspace_key}/trigger/, the legacy dynamic workflow ($name)', ({ database, bus }) => {
  let t: IngestTestApp;
  const path = (): string => `${t.workspace.workspaceKey}/trigger/`;
  const body = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    name,
    template: 'welcome-email',
    notification_category: 'transactional',
    users: [{ distinct_id: `${name}-u1`, $email: ['u1@example.com'], $channels: ['email'], $preferred_language: 'fr' }, { distinct_id: `${name}-u2` }],
    data: { plan: 'pro' },
    ...extra,
  });

  beforeAll(async () => {
    t = await startIngestTestApp(database, bus);
  });
  afterAll(() => t?.close());

  const named = (name: string): TriggerAccepted[] => t.triggers.map((c) => c.envelope.payload as TriggerAccepted).filter((trigger) => trigger.workflow === name);

  it('accepts a dynamic workflow (202) as one run per user, each carrying the single-step workflow it names', async () => {
    const response = await t.call('POST', path(), body('legacy-single', { delay: 30, brand_id: 'acme', delivery: { smart: true, success: 'interaction', time_to_live: '2h', mandatory_channels: ['inbox'] } }));
    expect(response).toMatchObject({ status: 202, body: { message: 'Accepted - OK', message_id: expect.any(String) } });
    await expectEventually(() => expect(named('legacy-single')).toHaveLength(2));
    const first = named('legacy-single').find((trigger) => trigger.recipient_index === 0);
    expect(first).toMatchObject({
      tenant_id: 'acme',
      data: { plan: 'pro' },
      recipient: { distinct_id: 'legacy-single-u1', only_channels: ['email'], locale: 'fr' },
      inline_workflow: {
        slug: 'legacy-single',
        version: 1,
        definition: {
          category: 'transactional',
          tree: {
            nodes: [
              { node_type: 'delay', duration: '30s' },
              { node_type: 'send_smart_channel_routing', template: 'welcome-email', success: 'interacted', ttl_value: '2h', mandatory_channels: ['inbox'] },
            ],
          },
        },
      },
    });
  });

  it('accepts the signed call the SDKs make, and a bulk array (207 per record)', async () => {
    const signed = await t.signedCall('POST', path(), JSON.stringify(body('legacy-signed')));
    expect(signed).toMatchObject({ status: 202 });
    const bulk = await t.call('POST', path(), [body('legacy-bulk'), { name: 'legacy-bulk-bad', users: [] }]);
    expect(bulk.status).toBe(207);
    const records = (bulk.body as { records: Array<{ status: string; status_code: number; error?: { message: string } }> }).records;
    expect(records[0]).toMatchObject({ status: 'success', status_code: 202 });
    expect(records[1]).toMatchObject({ status: 'error', status_code: 400 });
    for (const field of ['template', 'notification_category', 'users']) expect(records[1].error?.message).toContain(field);
    await expectEventually(() => expect(named('legacy-signed')).toHaveLength(2));
    await expectEventually(() => expect(named('legacy-bulk')).toHaveLength(2));
  });

  it("refuses another workspace's key in the path (404) and names every invalid field (400)", async () => {
    expect(await t.call('POST', `${t.other.workspaceKey}/trigger/`, body('legacy-other'))).toMatchObject({ status: 404 });
    const invalid = await t.call('POST', path(), {
      name: ' ',
      template: 3,
      users: [{ distinct_id: 'x', $channels: ['fax'], $email: 'not-an-email' }],
      delay: 'soon',
      trigger_at: 'tomorrow',
      delivery: { smart: 'yes', time_to_live: '1 hour', mandatory_channels: ['pager'] },
    });
    expect(invalid.status).toBe(400);
    const detail = (invalid.body as { detail: string }).detail;
    for (const field of ['name', 'template', 'notification_category', 'users[0].$channels[0]', 'users[0].$email', 'delay', 'trigger_at', 'delivery.smart', 'delivery.time_to_live', 'delivery.mandatory_channels[0]']) {
      expect(detail).toContain(field);
    }
    expect(await t.call('POST', path(), 'a string')).toMatchObject({ status: 400 });
    const junk: unknown[] = [null, 7, [], {}, { users: 'x' }, { users: [null, 5, []] }, { delivery: [] }, { delivery: { mandatory_channels: 'email' } }, { delay: -1 }, { data: [] }, { trigger_at: 5 }];
    for (const value of junk) expect({ value, status: (await t.call('POST', path(), value)).status }).toEqual({ value, status: 400 });
    // A bulk of junk records is a 207 whose every record is a 400.
    const bulk = await t.call('POST', path(), [null, 5, { users: [] }]);
    expect(bulk.status).toBe(207);
    expect((bulk.body as { records: Array<{ status_code: number }> }).records.map((r) => r.status_code)).toEqual([400, 400, 400]);
  });

  it('dedupes a repeated $idempotency_key: the repeat answers the first message_id', async () => {
    const first = await t.call('POST', path(), body('legacy-idem', { $idempotency_key: 'legacy-1' }));
    const repeat = await t.call('POST', path(), body('legacy-idem', { $idempotency_key: 'legacy-1' }));
    expect((repeat.body as { message_id: string }).message_id).toBe((first.body as { message_id: string }).message_id);
    // A marker for the same users (same keys) after the repeat: once it is through, a second run of the repeat would have been too.
    await t.call('POST', path(), { ...body('legacy-idem'), name: 'legacy-idem-marker' });
    await expectEventually(() => expect(named('legacy-idem-marker')).toHaveLength(2));
    expect(named('legacy-idem')).toHaveLength(2);
  });
});
