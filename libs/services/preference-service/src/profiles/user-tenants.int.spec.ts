import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { AudienceTestApp, startAudienceTestApp } from '../testing/audience-test-app';

/**
 * A user's profile in a tenant, as suprsend-py-sdk 0.19.7 reads and writes it
 * (`users.upsert_for_tenant`, `get_for_tenant`, `edit(..., tenant_id=)`,
 * `list_associated_tenants`, `unlink_tenant`): stored per tenant, merged over the user's
 * profile for that tenant, announced so the engine's runs in the tenant read it.
 */
describe.each(runModeTargets())('a user in a tenant ($name)', ({ database, bus }) => {
  let t: AudienceTestApp;

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus);
    for (const tenant of ['acme', 'globex']) expect((await t.call('POST', `v1/tenant/${tenant}/`, { tenant_name: tenant })).status).toBe(201);
    expect((await t.call('POST', 'v1/tenant/acme/', { tenant_name: 'elsewhere' }, t.other)).status).toBe(201);
  });
  afterAll(() => t?.close());

  const announcementsOf = (distinctId: string): unknown[] =>
    t.changes.filter(({ change }) => change.kind === 'profile' && change.subject.type === 'user' && change.subject.distinct_id === distinctId).map(({ change }) => change);

  it('upserts the profile of a new user in a tenant, making the user, and reads it alone or merged', async () => {
    expect((await t.call('POST', 'v1/user/ut-1/', { name: 'Ada', role: 'member', $email: ['ada@example.com'] })).status).toBe(201);
    const upserted = await t.call('POST', 'v1/user/ut-1/tenant/acme/', { role: 'admin', $email: ['ada@acme.example'] });
    expect(upserted).toMatchObject({ status: 201, body: { distinct_id: 'ut-1', tenant_id: 'acme', properties: { role: 'admin' }, $email: [{ value: 'ada@acme.example' }] } });
    expect(await t.call('GET', 'v1/user/ut-1/tenant/acme/')).toMatchObject({ status: 200, body: { tenant_id: 'acme', properties: { role: 'admin' } } });
    expect((await t.call('GET', 'v1/user/ut-1/tenant/acme/')).body).not.toHaveProperty('properties.name');
    // The merge a run in the tenant reads: the tenant's keys win, the rest is the user's.
    expect(await t.call('GET', 'v1/user/ut-1/?tenant_id=acme')).toMatchObject({ status: 200, body: { properties: { name: 'Ada', role: 'admin' } } });
    expect(await t.call('GET', 'v1/user/ut-1/')).toMatchObject({ body: { properties: { name: 'Ada', role: 'member' } } });
    await expectEventually(() =>
      expect(announcementsOf('ut-1')).toContainEqual(expect.objectContaining({ change: 'upserted', tenant_id: 'acme', profile: { properties: { role: 'admin' }, channels: expect.any(Object) } })),
    );

    // A user that does not exist yet is made by its first tenant profile, as the upsert makes one.
    expect((await t.call('POST', 'v1/user/ut-new/tenant/globex/', { plan: 'pro' })).status).toBe(201);
    expect(await t.call('GET', 'v1/user/ut-new/')).toMatchObject({ status: 200, body: { properties: {} } });
  });

  it('edits the tenant profile with operations (making it when missing), and lists the tenants in link order', async () => {
    const edited = await t.call('PATCH', 'v1/user/ut-1/tenant/globex/', { operations: [{ $set: { seat: 3 } }, { $append: { $sms: '+15555550100' } }] });
    expect(edited).toMatchObject({ status: 202, body: { tenant_id: 'globex', properties: { seat: 3 }, $sms: [{ value: '+15555550100' }] } });
    expect(await t.call('PATCH', 'v1/user/ut-1/tenant/acme/', { operations: [{ $unset: ['role'] }] })).toMatchObject({ status: 202, body: { properties: {} } });
    const page = await t.call('GET', 'v1/user/ut-1/associated_tenant/?sort=id');
    expect(page).toMatchObject({ status: 200, body: { meta: { count: 2, has_next: false }, results: [{ tenant_id: 'acme' }, { tenant_id: 'globex', properties: { seat: 3 } }] } });
    const first = await t.call('GET', 'v1/user/ut-1/associated_tenant/?sort=id&limit=1');
    expect(first).toMatchObject({ body: { meta: { has_next: true }, results: [{ tenant_id: 'acme' }] } });
    const after = (first.body as { meta: { after: string } }).meta.after;
    expect(await t.call('GET', `v1/user/ut-1/associated_tenant/?sort=id&limit=1&after=${after}`)).toMatchObject({ body: { results: [{ tenant_id: 'globex' }] } });
  });

  it('unlinks a tenant: its profile is gone (announced), the user and its other tenants stay', async () => {
    expect((await t.call('DELETE', 'v1/user/ut-1/tenant/globex/')).status).toBe(204);
    expect(await t.call('GET', 'v1/user/ut-1/tenant/globex/')).toMatchObject({ status: 404, body: { message: "user 'ut-1' has no profile in tenant 'globex'" } });
    expect(await t.call('GET', 'v1/user/ut-1/associated_tenant/')).toMatchObject({ body: { results: [{ tenant_id: 'acme' }] } });
    expect((await t.call('GET', 'v1/user/ut-1/')).status).toBe(200);
    await expectEventually(() => expect(announcementsOf('ut-1')).toContainEqual(expect.objectContaining({ change: 'deleted', tenant_id: 'globex' })));
    expect((await t.call('DELETE', 'v1/user/ut-1/tenant/globex/')).status).toBe(404);
  });

  it('answers bad input with 4xx naming what is wrong, never a 5xx', async () => {
    expect(await t.call('POST', 'v1/user/ut-1/tenant/nowhere/', { a: 1 })).toMatchObject({ status: 404, body: { message: "tenant 'nowhere' not found" } });
    expect(await t.call('PATCH', 'v1/user/ut-missing/tenant/acme/', { operations: [{ $set: { a: 1 } }] })).toMatchObject({ status: 404, body: { message: "user 'ut-missing' not found" } });
    expect((await t.call('GET', 'v1/user/ut-missing/associated_tenant/')).status).toBe(404);
    const badOperation = await t.call('PATCH', 'v1/user/ut-1/tenant/acme/', { operations: [{ $increment: { seat: 'x' } }] });
    expect(badOperation.status).toBe(400);
    expect(JSON.stringify(badOperation.body)).toContain('operations[0]');
    expect(await t.call('POST', 'v1/user/ut-1/tenant/acme/', ['not', 'an', 'object'])).toMatchObject({ status: 400 });
    expect(await t.call('GET', 'v1/user/ut-1/associated_tenant/?limit=0')).toMatchObject({ status: 400, body: { detail: expect.stringContaining('limit') } });
  });

  it("refuses another workspace's key: its own tenant of the same id sees none of this workspace's users", async () => {
    for (const [method, path, body] of [
      ['GET', 'v1/user/ut-1/tenant/acme/', undefined],
      ['GET', 'v1/user/ut-1/associated_tenant/', undefined],
      ['PATCH', 'v1/user/ut-1/tenant/acme/', { operations: [{ $set: { role: 'intruder' } }] }],
      ['DELETE', 'v1/user/ut-1/tenant/acme/', undefined],
    ] as const) {
      expect({ method, path, status: (await t.call(method, path, body, t.other)).status }).toEqual({ method, path, status: 404 });
    }
    expect(await t.call('GET', 'v1/user/ut-1/tenant/acme/')).toMatchObject({ status: 200, body: { tenant_id: 'acme' } });
    expect(JSON.stringify((await t.call('GET', 'v1/user/ut-1/tenant/acme/')).body)).not.toContain('intruder');
  });
});
