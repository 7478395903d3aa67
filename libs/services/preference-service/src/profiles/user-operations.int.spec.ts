import { UserOperation, UserOperationsUpdate } from '@herald/contracts';
import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { AudienceTestApp, startAudienceTestApp } from '../testing/audience-test-app';

/** The identity events ingest-api accepts (`user_operations`), applied to profiles. */
describe.each(runModeTargets())('user_operations from identity events ($name)', ({ database, bus }) => {
  let t: AudienceTestApp;
  let sequence = 0;

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus);
  });
  afterAll(() => t?.close());

  const update = (distinctId: string, operations: UserOperation[], extra: Partial<UserOperationsUpdate> = {}): UserOperationsUpdate => ({
    kind: 'user_operations',
    workspace_slug: 'staging',
    distinct_id: distinctId,
    operations,
    source_message_id: `source-${(sequence += 1)}`,
    ...extra,
  });
  const publish = (change: UserOperationsUpdate): Promise<void> => t.publishAudience(t.workspace, `${t.workspace.id}:${change.distinct_id}`, change);

  it('creates the user and applies every operation in order, announcing the profile', async () => {
    await publish(
      update('ops-1', [
        { $set: { name: 'Ada', $locale: 'en', logins: 1 } },
        { $append: { $email: ['ada@example.com', 'ada@work.example'], $androidpush: [{ token: 'fcm-1', provider: 'fcm' }], tags: 'a' } },
        { $set_once: { name: 'Ignored', first_seen: '2024-01-01' }, $add: { logins: 2 }, $remove: { $email: ['ada@work.example'] }, $unset: ['legacy'] },
      ]),
    );
    await expectEventually(async () => {
      const user = await t.call('GET', 'v1/user/ops-1/');
      expect(user).toMatchObject({
        status: 200,
        body: {
          properties: { name: 'Ada', $locale: 'en', logins: 3, tags: ['a'], first_seen: '2024-01-01' },
          $email: [{ value: 'ada@example.com' }],
          $androidpush: [{ value: { token: 'fcm-1', provider: 'fcm' } }],
        },
      });
    });
    await expectEventually(async () =>
      expect(t.changes).toContainEqual({ key: `${t.workspace.id}:ops-1`, change: expect.objectContaining({ kind: 'profile', subject: { type: 'user', distinct_id: 'ops-1' } }) }),
    );
  });

  it('applies a redelivered message once', async () => {
    const once = update('ops-2', [{ $add: { logins: 1 } }]);
    await publish(once);
    await publish(once);
    await publish(update('ops-2', [{ $set: { marker: true } }]));
    await expectEventually(async () => expect((await t.call('GET', 'v1/user/ops-2/')).body).toMatchObject({ properties: { marker: true } }));
    expect((await t.call('GET', 'v1/user/ops-2/')).body).toMatchObject({ properties: { logins: 1 } });
  });

  it('names the request on the profile it announces, and again (the profile as stored) for a redelivery, so the request can be answered', async () => {
    const once = update('ops-ack', [{ $add: { logins: 1 } }]);
    const announcedFor = (source: string): unknown[] =>
      t.changes.filter(({ change }) => change.kind === 'profile' && (change.source_message_ids ?? []).includes(source)).map(({ change }) => change);
    await publish(once);
    await expectEventually(async () => expect(announcedFor(once.source_message_id)).toHaveLength(1));
    await publish(once);
    await expectEventually(async () => expect(announcedFor(once.source_message_id)).toHaveLength(2));
    // The redelivery changed nothing: both announce the one login.
    expect(announcedFor(once.source_message_id)).toEqual([
      expect.objectContaining({ change: 'upserted', profile: expect.objectContaining({ properties: { logins: 1 } }) }),
      expect.objectContaining({ change: 'upserted', profile: expect.objectContaining({ properties: { logins: 1 } }) }),
    ]);
  });

  it('writes a tenant_id into the per-tenant profile, over a global one', async () => {
    await publish(update('ops-3', [{ $set: { plan: 'team' } }, { $append: { $sms: ['+15555550100'] } }], { tenant_id: 'acme' }));
    await expectEventually(async () =>
      expect((await t.call('GET', 'v1/user/ops-3/?tenant_id=acme')).body).toMatchObject({ properties: { plan: 'team' }, $sms: [{ value: '+15555550100' }] }),
    );
    const global = (await t.call('GET', 'v1/user/ops-3/')).body as Record<string, unknown>;
    expect(global).toMatchObject({ properties: {} });
    expect(global.$sms).toBeUndefined();
  });

  it('skips an operation that cannot apply and keeps the others', async () => {
    await publish(update('ops-4', [{ $set: { name: 'text' } }, { $add: { name: 1 } }, { $set: { after: 'yes' } }]));
    await expectEventually(async () => expect((await t.call('GET', 'v1/user/ops-4/')).body).toMatchObject({ properties: { name: 'text', after: 'yes' } }));
  });
});
