import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { CREDENTIALS_CHANGED_TYPE, CredentialsChanged, TOPICS, envelopeOf } from '@herald/contracts';
import { hashToken, mintUserToken, runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { AudienceTestApp, startAudienceTestApp } from '../testing/audience-test-app';
import { SAMPLE_CATEGORIES } from '../testing/sample-categories';

const PAGE_ORIGIN = 'https://app.example.com';

describe.each(runModeTargets())("a user's preferences from a browser: public key and user token ($name)", ({ database, bus }) => {
  let t: AudienceTestApp;
  const publicKey = `SS.PUBK.${randomBytes(32).toString('base64url')}`;
  const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = (): number => Math.floor(Date.now() / 1000);
  const tokenFor = (distinctId: string, claims: Record<string, unknown> = {}): string =>
    mintUserToken(signing.privateKey, { distinct_id: distinctId, iat: now(), exp: now() + 300, ...claims });

  const announce = (change: CredentialsChanged): Promise<void> =>
    t.bus.publish(TOPICS.credentialsChanged.name, [
      { key: change.workspace_id, value: JSON.stringify(envelopeOf(CREDENTIALS_CHANGED_TYPE, 1, randomUUID(), change.workspace_id, new Date(), change)) },
    ]);

  async function browserCall(method: string, path: string, token: string, options: { origin?: string; body?: unknown } = {}) {
    const response = await fetch(`${t.app.url}${path}`, {
      method,
      headers: {
        authorization: publicKey,
        'x-ss-signature': token,
        ...(options.origin === undefined ? {} : { origin: options.origin }),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin'), body: (await response.json()) as Record<string, unknown> };
  }

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus);
    await t.announceCategories(t.workspace, SAMPLE_CATEGORIES);
    const workspace = { workspace_id: t.workspace.id, workspace_slug: t.workspace.slug };
    await announce({ kind: 'public_key', change: 'created', public_key_id: 'ws_pubk_prefs', ...workspace, key_hash: hashToken(publicKey).toString('hex'), allowed_origins: [PAGE_ORIGIN] });
    const pem = signing.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await announce({ kind: 'signing_key', change: 'created', signing_key_uid: `signing_key_${randomUUID()}`, ...workspace, public_key_pem: pem });
    for (const user of ['alice', 'bob']) expect((await t.call('POST', `v1/user/${user}/`, { name: user })).status).toBe(201);
    await expectEventually(async () => expect((await browserCall('GET', 'v1/user/alice/preference/', tokenFor('alice'))).status).toBe(200));
  });
  afterAll(() => t?.close());

  it("reads and updates the token's user's category and channel preferences, readable by an allowed origin and visible to the backend", async () => {
    const alice = tokenFor('alice');
    const full = await browserCall('GET', 'v1/user/alice/preference/', alice, { origin: PAGE_ORIGIN });
    expect(full).toMatchObject({ status: 200, allowOrigin: PAGE_ORIGIN });
    expect(full.body).toEqual((await t.call('GET', 'v1/user/alice/preference/')).body);
    expect((await browserCall('GET', 'v1/user/alice/preference/category/status-updates/', alice)).body).toMatchObject({ preference: 'opt_in' });

    const optedOut = await browserCall('PATCH', 'v1/user/alice/preference/category/status-updates/', alice, { origin: PAGE_ORIGIN, body: { preference: 'opt_out' } });
    expect(optedOut).toMatchObject({ status: 202, allowOrigin: PAGE_ORIGIN, body: { category: 'status-updates', preference: 'opt_out' } });
    const restricted = await browserCall('PATCH', 'v1/user/alice/preference/channel_preference/', alice, { body: { channel_preferences: [{ channel: 'sms', is_restricted: true }] } });
    expect(restricted.status).toBe(202);

    expect((await t.call('GET', 'v1/user/alice/preference/category/status-updates/')).body).toMatchObject({ preference: 'opt_out' });
    expect((await t.call('GET', 'v1/user/alice/preference/channel_preference/')).body).toMatchObject({ channel_preferences: expect.arrayContaining([{ channel: 'sms', is_restricted: true }]) });
    expect((await t.call('GET', 'v1/user/bob/preference/category/status-updates/')).body).toMatchObject({ preference: 'opt_in' });
  });

  it("keeps a token that names a tenant in that tenant's scope: the tenant_id query defaults to it and another tenant is refused", async () => {
    expect((await t.call('POST', 'v1/tenant/acme/', { tenant_name: 'Acme' })).status).toBeLessThan(300);
    const acme = tokenFor('bob', { tenant_id: 'acme' });
    const path = 'v1/user/bob/preference/category/status-updates/';
    expect((await browserCall('PATCH', path, acme, { body: { preference: 'opt_out' } })).status).toBe(202);
    expect((await t.call('GET', `${path}?tenant_id=acme`)).body).toMatchObject({ preference: 'opt_out' });
    expect((await t.call('GET', path)).body).toMatchObject({ preference: 'opt_in' });
    expect((await browserCall('GET', path, acme)).body).toMatchObject({ preference: 'opt_out' });
    expect((await browserCall('GET', `${path}?tenant_id=acme`, acme)).body).toMatchObject({ preference: 'opt_out' });
    const elsewhere = await browserCall('PATCH', `${path}?tenant_id=globex`, acme, { body: { preference: 'opt_in' } });
    expect(elsewhere).toMatchObject({ status: 403, body: { error_code: 'permission_denied' } });
  });

  it("refuses another user's preferences (403), a bad token (401) and an origin the key does not allow (403)", async () => {
    const alice = tokenFor('alice');
    expect(await browserCall('GET', 'v1/user/bob/preference/', alice, { origin: PAGE_ORIGIN })).toMatchObject({
      status: 403,
      allowOrigin: PAGE_ORIGIN,
      body: { code: 403, error_code: 'permission_denied' },
    });
    expect((await browserCall('PATCH', 'v1/user/bob/preference/category/status-updates/', alice, { body: { preference: 'opt_out' } })).status).toBe(403);
    expect((await t.call('GET', 'v1/user/bob/preference/category/status-updates/')).body).toMatchObject({ preference: 'opt_in' });

    const expired = await browserCall('GET', 'v1/user/alice/preference/', tokenFor('alice', { iat: now() - 600, exp: now() - 1 }), { origin: PAGE_ORIGIN });
    expect(expired).toMatchObject({ status: 401, allowOrigin: PAGE_ORIGIN, body: { error_code: 'authentication_failed', message: 'user token expired' } });
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const forged = mintUserToken(stranger.privateKey, { distinct_id: 'alice', iat: now(), exp: now() + 60 });
    expect((await browserCall('PATCH', 'v1/user/alice/preference/category/status-updates/', forged, { body: { preference: 'opt_in' } })).status).toBe(401);

    expect(await browserCall('GET', 'v1/user/alice/preference/', alice, { origin: 'https://evil.example.net' })).toMatchObject({ status: 403, allowOrigin: null });
  });

  it('opens nothing else to the browser credential: the user profile, object preferences and bulk preferences refuse it with 401', async () => {
    const alice = tokenFor('alice');
    expect((await browserCall('GET', 'v1/user/alice/', alice)).body).toMatchObject({ error_code: 'authentication_failed' });
    expect((await browserCall('GET', 'v1/user/alice/', alice)).status).toBe(401);
    expect((await browserCall('PATCH', 'v1/object/teams/x/preference/category/status-updates/', alice, { body: { preference: 'opt_out' } })).status).toBe(401);
    expect((await browserCall('PATCH', 'v1/bulk/user/preference/', alice, { body: { distinct_ids: ['alice'], channel_preferences: [] } })).status).toBe(401);
  });

  it('answers CORS preflights of the preference routes for the origins public keys allow, and for no other', async () => {
    const preflight = (origin: string) =>
      fetch(`${t.app.url}v1/user/alice/preference/category/status-updates/`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,x-ss-signature,content-type' },
      });
    const allowed = await preflight(PAGE_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    expect(allowed.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect((await preflight('https://evil.example.net')).headers.get('access-control-allow-origin')).toBeNull();
  });
});
