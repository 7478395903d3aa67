import { createPublicKey, createSign, createVerify } from 'node:crypto';
import { CredentialsChanged } from '@herald/contracts';
import { hashToken } from '@herald/runtime';
import { databaseTargets, expectEventually } from '@herald/testing';
import { ManagementTestApp, startManagementTestApp } from '../testing/management-test-app';

type Json = Record<string, unknown>;

describe.each(databaseTargets())('management API: the browser inbox keys ($kind)', (target) => {
  let t: ManagementTestApp;

  beforeAll(async () => {
    t = await startManagementTestApp(target);
  });
  afterAll(() => t?.close());

  const announced = <K extends CredentialsChanged['kind']>(kind: K): Array<Extract<CredentialsChanged, { kind: K }>> =>
    t.credentials.filter((change): change is Extract<CredentialsChanged, { kind: K }> => change.kind === kind);

  it('creates, updates, rotates and deletes a public key with its allowed origins, announcing each change', async () => {
    const created = await t.call('POST', 'v1/staging/ws_public_key/', {
      name: 'web-app',
      description: 'Browser integration',
      allowed_domains: ['https://App.Example.com', 'http://localhost:5173/'],
    });
    expect(created.status).toBe(201);
    const key = created.body as Json;
    expect(key).toMatchObject({ name: 'web-app', is_secure_mode_enabled: true, is_deleted: false, allowed_domains: ['https://app.example.com', 'http://localhost:5173'] });
    expect(key.api_key).toMatch(/^SS\.PUBK\.[A-Za-z0-9_-]{43}$/);
    await expectEventually(() =>
      expect(announced('public_key').at(-1)).toMatchObject({
        change: 'created',
        public_key_id: key.id,
        key_hash: hashToken(key.api_key as string).toString('hex'),
        allowed_origins: ['https://app.example.com', 'http://localhost:5173'],
      }),
    );

    const listed = await t.call('GET', 'v1/staging/ws_public_key/');
    expect(listed.body).toMatchObject({ meta: { count: 1, limit: 20, offset: 0 }, results: [{ id: key.id, api_key: key.api_key }] });
    expect((await t.call('GET', 'v1/staging/ws_public_key/', undefined, t.otherToken)).body).toMatchObject({ meta: { count: 0 } });

    const patched = await t.call('PATCH', `v1/staging/ws_public_key/${key.id as string}/`, { is_secure_mode_enabled: true, allowed_domains: ['https://admin.example.com:8443'] });
    expect(patched).toMatchObject({ status: 202, body: { api_key: key.api_key, allowed_domains: ['https://admin.example.com:8443'] } });
    await expectEventually(() => expect(announced('public_key').at(-1)).toMatchObject({ change: 'updated', allowed_origins: ['https://admin.example.com:8443'] }));

    const rotated = await t.call('PATCH', `v1/staging/ws_public_key/${key.id as string}/rotate/`);
    expect(rotated.status).toBe(202);
    expect((rotated.body as Json).api_key).not.toBe(key.api_key);
    expect((rotated.body as Json).rotated_at).not.toBeNull();
    await expectEventually(() =>
      expect(announced('public_key').at(-1)).toMatchObject({ change: 'rotated', key_hash: hashToken((rotated.body as Json).api_key as string).toString('hex') }),
    );

    expect((await t.call('DELETE', `v1/staging/ws_public_key/${key.id as string}/`, undefined, t.otherToken)).status).toBe(404);
    expect((await t.call('DELETE', `v1/staging/ws_public_key/${key.id as string}/`)).status).toBe(204);
    expect((await t.call('DELETE', `v1/staging/ws_public_key/${key.id as string}/`)).status).toBe(404);
    expect((await t.call('GET', 'v1/staging/ws_public_key/')).body).toMatchObject({ meta: { count: 0 }, results: [] });
    await expectEventually(() => expect(announced('public_key').at(-1)).toMatchObject({ change: 'deleted', public_key_id: key.id }));
  });

  it('refuses a bad public key body with the failing paths', async () => {
    const bad = await t.call('POST', 'v1/staging/ws_public_key/', { name: '', allowed_domains: ['https://ok.example.com', 'example.com', 'https://x.example.com/path'] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('name');
    expect(JSON.stringify(bad.body)).toContain('allowed_domains: [1] must be an origin');
    const created = (await t.call('POST', 'v1/staging/ws_public_key/', { name: 'second' })).body as Json;
    expect(created.allowed_domains).toBeNull();
    const insecure = await t.call('PATCH', `v1/staging/ws_public_key/${created.id as string}/`, { is_secure_mode_enabled: false });
    expect(insecure.status).toBe(400);
    expect(JSON.stringify(insecure.body)).toContain('is_secure_mode_enabled: can only be true');
    expect((await t.call('PATCH', `v1/staging/ws_public_key/${created.id as string}/`, {})).status).toBe(400);
    expect((await t.call('PATCH', 'v1/staging/ws_public_key/ws_pubk_unknown/', { is_secure_mode_enabled: true })).status).toBe(404);
  });

  it('hands out the private signing key once, keeps only the public half, allows one active key and rolls it', async () => {
    const created = await t.call('POST', 'v1/staging/ws_signing_key/');
    expect(created.status).toBe(201);
    const first = created.body as Json;
    expect(first).toMatchObject({ status: 'active', rolled_at: null, deleted_at: null });
    expect(Buffer.from(first.private_key_base64 as string, 'base64').toString()).toBe(first.private_key_pem);

    // The announced public half verifies what the handed-out private half signs (ES256).
    await expectEventually(() => expect(announced('signing_key').at(-1)).toMatchObject({ change: 'created', signing_key_uid: first.uid }));
    const publicPem = announced('signing_key').at(-1)?.public_key_pem as string;
    expect(createPublicKey(publicPem).asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    const signature = createSign('SHA256').update('payload').sign({ key: first.private_key_pem as string, dsaEncoding: 'ieee-p1363' });
    expect(createVerify('SHA256').update('payload').verify({ key: publicPem, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);

    // Nothing private is stored, nor listed.
    const stored = await t.sql<Json>(`SELECT * FROM management.signing_keys WHERE uid = $1`, [first.uid]);
    expect(JSON.stringify(stored)).not.toContain('PRIVATE');
    const listed = await t.call('GET', 'v1/staging/ws_signing_key/');
    expect(listed.body).toMatchObject({ meta: { count: 1 }, results: [{ uid: first.uid, status: 'active' }] });
    expect(JSON.stringify(listed.body)).not.toContain('private_key');

    const second = await t.call('POST', 'v1/staging/ws_signing_key/');
    expect(second.status).toBe(400);
    expect(JSON.stringify(second.body)).toContain('only 1 active signing key is allowed');

    const rolled = await t.call('POST', `v1/staging/ws_signing_key/${first.uid as string}/roll/`);
    expect(rolled.status).toBe(201);
    const next = rolled.body as Json;
    expect(next).toMatchObject({ status: 'active' });
    expect(next.private_key_pem).not.toBe(first.private_key_pem);
    expect((await t.call('POST', `v1/staging/ws_signing_key/${first.uid as string}/roll/`)).status).toBe(404);
    expect((await t.call('GET', 'v1/staging/ws_signing_key/')).body).toMatchObject({
      meta: { count: 2 },
      results: [
        { uid: next.uid, status: 'active' },
        { uid: first.uid, status: 'rolled' },
      ],
    });

    expect((await t.call('DELETE', `v1/staging/ws_signing_key/${first.uid as string}/`, undefined, t.otherToken)).status).toBe(404);
    expect((await t.call('DELETE', `v1/staging/ws_signing_key/${first.uid as string}/`)).status).toBe(204);
    await expectEventually(() => expect(announced('signing_key').at(-1)).toMatchObject({ change: 'deleted', signing_key_uid: first.uid }));
    expect((await t.call('GET', 'v1/staging/ws_signing_key/')).body).toMatchObject({ meta: { count: 1 }, results: [{ uid: next.uid }] });
  });
});
