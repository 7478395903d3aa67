import { UserOperationsUpdate } from '@herald/contracts';
import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { IngestTestApp, startIngestTestApp } from '../testing/ingest-test-app';

/** `POST /event/` with `$user_operations`, as the SDKs' `user.get_instance(id).save()` and `bulk_users` send it. */
describe.each(runModeTargets())('identity events on POST /event/ ($name)', ({ database, bus }) => {
  let t: IngestTestApp;

  beforeAll(async () => {
    t = await startIngestTestApp(database, bus);
  });
  afterAll(() => t?.close());

  const identity = (distinctId: string, operations: unknown[] = [{ $set: { plan: 'pro' } }]): Record<string, unknown> => ({
    $schema: '2',
    $insert_id: `insert-${distinctId}`,
    $time: 1_700_000_000_000,
    env: t.workspace.workspaceKey,
    distinct_id: distinctId,
    $user_operations: operations,
    properties: { $ss_sdk_version: 'node/1.15.1' },
  });
  const updatesFor = (distinctId: string): Array<{ key: string; payload: UserOperationsUpdate }> =>
    t.audience
      .map((c) => ({ key: c.key, payload: c.envelope.payload as UserOperationsUpdate }))
      .filter((c) => c.payload.kind === 'user_operations' && c.payload.distinct_id === distinctId);

  it('accepts a signed identity event with 202 and publishes it as user_operations keyed by the user, starting nothing', async () => {
    const body = JSON.stringify(identity('id-1', [{ $set: { name: 'Ada', $preferred_language: 'en' } }, { $append: { $email: 'ada@example.com' } }]));
    expect(await t.signedCall('POST', 'event/', body)).toEqual({ status: 202, body: { message: 'OK' } });
    await expectEventually(() => expect(updatesFor('id-1')).toHaveLength(1));
    expect(updatesFor('id-1')[0]).toEqual({
      key: `${t.workspace.id}:id-1`,
      payload: {
        kind: 'user_operations',
        workspace_slug: 'staging',
        distinct_id: 'id-1',
        operations: [{ $set: { name: 'Ada', $locale: 'en' } }, { $append: { $email: ['ada@example.com'] } }],
        source_message_id: expect.any(String),
      },
    });
    expect(t.events.filter((c) => (c.envelope.payload as { distinct_id?: string }).distinct_id === 'id-1')).toEqual([]);
  });

  it('refuses an invalid identity event with 400 naming each operation path', async () => {
    const response = await t.call('POST', 'event/', identity('id-bad', [{ $append: { $email: 'nope' } }, { $increment: { n: 1 } }]));
    expect(response.status).toBe(400);
    const detail = (response.body as { detail: string }).detail;
    expect(detail).toContain('$user_operations[0].$append.$email');
    expect(detail).toContain('$user_operations[1].$increment');
  });

  it('accepts a bulk of 400 identity events mixed with track events, one result per record in order', async () => {
    const records = [
      ...Array.from({ length: 398 }, (_, i) => identity(`bulk-id-${i}`)),
      { distinct_id: 'bulk-track', event: 'bulk-mixed' },
      identity('', []),
    ];
    const response = await t.call('POST', 'event/', records);
    expect(response.status).toBe(207);
    const results = (response.body as { records: Array<{ status: string; status_code: number }> }).records;
    expect(results).toHaveLength(400);
    expect(results.slice(0, 399).every((r) => r.status === 'success' && r.status_code === 202)).toBe(true);
    expect(results[399]).toMatchObject({ status: 'error', status_code: 400 });
    await expectEventually(() => expect(t.audience.filter((c) => (c.envelope.payload as UserOperationsUpdate).distinct_id?.startsWith('bulk-id-'))).toHaveLength(398));
    await expectEventually(() => expect(t.events.filter((c) => (c.envelope.payload as { event?: string }).event === 'bulk-mixed')).toHaveLength(1));
    expect((await t.call('POST', 'event/', Array.from({ length: 401 }, (_, i) => identity(`too-many-${i}`)))).status).toBe(400);
  });

  it('answers a repeated $idempotency_key as accepted and publishes once', async () => {
    const body = { ...identity('id-once', [{ $add: { logins: 1 } }]), $idempotency_key: 'identity-once' };
    expect((await t.call('POST', 'event/', body)).status).toBe(202);
    expect((await t.call('POST', 'event/', body)).status).toBe(202);
    await expectEventually(() => expect(updatesFor('id-once')).toHaveLength(1));
    await t.drain();
    expect(updatesFor('id-once')).toHaveLength(1);
  });
});
