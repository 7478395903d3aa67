import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { CREDENTIALS_CHANGED_TYPE, CredentialsChanged, TOPICS, envelopeOf } from '@herald/contracts';
import { hashToken, mintUserToken, runModeTargets } from '@herald/runtime';
import { expectEventually, openApiResponseChecker } from '@herald/testing';
import { audienceOpenApi } from '../openapi/audience-openapi';
import { AudienceTestApp, TestWorkspace, startAudienceTestApp } from '../testing/audience-test-app';
import { SAMPLE_CATEGORIES } from '../testing/sample-categories';

const PAGE_ORIGIN = 'https://app.example.com';
const openApiProblems = openApiResponseChecker(audienceOpenApi);

/** `/v2/subscriber/{distinct_id}/…`, called exactly as `@suprsend/web-sdk` 4.1.2 builds its URLs and bodies. */
describe.each(runModeTargets())("a user's preferences as SuprSend's web SDK calls them ($name)", ({ database, bus }) => {
  let t: AudienceTestApp;
  const keys = new Map<string, { publicKey: string; signing: ReturnType<typeof generateKeyPairSync> }>();
  const now = (): number => Math.floor(Date.now() / 1000);

  const announce = (change: CredentialsChanged): Promise<void> =>
    t.bus.publish(TOPICS.credentialsChanged.name, [
      { key: change.workspace_id, value: JSON.stringify(envelopeOf(CREDENTIALS_CHANGED_TYPE, 1, randomUUID(), change.workspace_id, new Date(), change)) },
    ]);

  async function registerBrowserKeys(workspace: TestWorkspace): Promise<void> {
    const publicKey = `SS.PUBK.${randomBytes(32).toString('base64url')}`;
    const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    keys.set(workspace.id, { publicKey, signing });
    const base = { workspace_id: workspace.id, workspace_slug: workspace.slug };
    await announce({ kind: 'public_key', change: 'created', public_key_id: `pubk_${randomUUID()}`, ...base, key_hash: hashToken(publicKey).toString('hex'), allowed_origins: [PAGE_ORIGIN] });
    await announce({ kind: 'signing_key', change: 'created', signing_key_uid: `sk_${randomUUID()}`, ...base, public_key_pem: signing.publicKey.export({ type: 'spki', format: 'pem' }).toString() });
  }

  /** The SDK's URL: `{host}/v2/subscriber/{id}/{path}`, and `/?{query}` when it has parameters. */
  async function sdkCall(method: string, user: string, path: string, query: Record<string, string>, options: { body?: unknown; tokenUser?: string; workspace?: TestWorkspace; tokenOf?: TestWorkspace; origin?: string } = {}) {
    const { publicKey } = keys.get((options.workspace ?? t.workspace).id) as { publicKey: string };
    const { signing } = keys.get((options.tokenOf ?? options.workspace ?? t.workspace).id) as { signing: ReturnType<typeof generateKeyPairSync> };
    const search = new URLSearchParams(query).toString();
    const url = `${t.app.url}v2/subscriber/${user}/${path}${search ? `/?${search}` : ''}`;
    const response = await fetch(url, {
      method,
      headers: {
        'content-type': 'application/json',
        authorization: publicKey,
        'x-ss-signature': mintUserToken(signing.privateKey, { distinct_id: options.tokenUser ?? user, iat: now(), exp: now() + 300 }),
        origin: options.origin ?? PAGE_ORIGIN,
      },
      body: method === 'GET' ? undefined : JSON.stringify(options.body ?? {}),
    });
    const body = (await response.json()) as Record<string, unknown>;
    // Every answer is the one the OpenAPI fragment documents.
    expect(openApiProblems(method, url, response.status, body)).toEqual([]);
    return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin'), body };
  }
  const display = { show_opt_out_channels: 'true' };

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus);
    await t.announceCategories(t.workspace, SAMPLE_CATEGORIES);
    await registerBrowserKeys(t.workspace);
    await registerBrowserKeys(t.other);
    for (const user of ['alice', 'bob']) expect((await t.call('POST', `v1/user/${user}/`, { name: user })).status).toBe(201);
    await expectEventually(async () => expect((await sdkCall('GET', 'alice', 'full_preference', display)).status).toBe(200));
  });
  afterAll(() => t?.close());

  it('reads the full preference, the categories, one category and the channels, as the backend sees them', async () => {
    const full = await sdkCall('GET', 'alice', 'full_preference', display);
    expect(full).toMatchObject({ status: 200, allowOrigin: PAGE_ORIGIN });
    expect(full.body).toEqual((await t.call('GET', 'v1/user/alice/preference/')).body);
    const subcategories = (full.body.sections as Array<{ subcategories?: Array<{ category: string; preference: string; is_editable: boolean; channels?: unknown[] }> }>).flatMap(
      (section) => section.subcategories ?? [],
    );
    expect(subcategories).toContainEqual(expect.objectContaining({ category: 'status-updates', preference: 'opt_in', is_editable: true }));
    expect(full.body.channel_preferences).toEqual(expect.arrayContaining([expect.objectContaining({ channel: expect.any(String), is_restricted: expect.any(Boolean) })]));
    expect((await sdkCall('GET', 'alice', 'category', { ...display, limit: '10', offset: '0' })).status).toBe(200);
    expect((await sdkCall('GET', 'alice', 'category/status-updates', display)).body).toMatchObject({ category: 'status-updates', preference: 'opt_in' });
    expect((await sdkCall('GET', 'alice', 'channel_preference', {})).status).toBe(200);
  });

  it('updates a category and the channels with the bodies the SDK sends, stored for the backend', async () => {
    const optOut = await sdkCall('PATCH', 'alice', 'category/status-updates', display, { body: { preference: 'opt_out', opt_out_channels: [] } });
    expect(optOut).toMatchObject({ status: 200, allowOrigin: PAGE_ORIGIN, body: { category: 'status-updates', preference: 'opt_out' } });
    expect((await t.call('GET', 'v1/user/alice/preference/category/status-updates/')).body).toMatchObject({ preference: 'opt_out' });
    const optIn = await sdkCall('PATCH', 'alice', 'category/status-updates', display, { body: { preference: 'opt_in', opt_out_channels: null } });
    expect(optIn).toMatchObject({ status: 200, body: { preference: 'opt_in' } });
    const channels = await sdkCall('PATCH', 'alice', 'channel_preference', {}, { body: { channel_preferences: [{ channel: 'sms', is_restricted: true }] } });
    expect(channels.status).toBe(200);
    expect((await t.call('GET', 'v1/user/alice/preference/channel_preference/')).body).toMatchObject({ channel_preferences: expect.arrayContaining([{ channel: 'sms', is_restricted: true }]) });
    expect((await t.call('GET', 'v1/user/bob/preference/channel_preference/')).body).not.toMatchObject({ channel_preferences: expect.arrayContaining([{ channel: 'sms', is_restricted: true }]) });
  });

  it('names the failing field in a 400 the page can read, in the SDK error shape', async () => {
    const bad = await sdkCall('PATCH', 'alice', 'category/status-updates', display, { body: { preference: 'maybe' } });
    expect(bad).toMatchObject({ status: 400, allowOrigin: PAGE_ORIGIN, body: { error: { type: 'VALIDATION_ERROR', message: expect.stringContaining('preference') } } });
    const missing = await sdkCall('GET', 'alice', 'category/no-such-category', display);
    expect(missing).toMatchObject({ status: 404, body: { error: { type: 'NOT_FOUND' } } });
  });

  it("refuses another user's preferences, another workspace's key and a disallowed origin", async () => {
    expect(await sdkCall('GET', 'bob', 'full_preference', display, { tokenUser: 'alice' })).toMatchObject({ status: 403, allowOrigin: PAGE_ORIGIN, body: { error: { type: 'PERMISSION_DENIED' } } });
    expect((await sdkCall('PATCH', 'bob', 'category/status-updates', display, { tokenUser: 'alice', body: { preference: 'opt_out' } })).status).toBe(403);
    expect((await sdkCall('GET', 'alice', 'full_preference', display, { workspace: t.other, tokenOf: t.workspace })).status).toBe(401);
    expect(await sdkCall('GET', 'alice', 'full_preference', display, { origin: 'https://evil.example.net' })).toMatchObject({ status: 403, allowOrigin: null });
    expect((await t.call('GET', 'v1/user/bob/preference/category/status-updates/')).body).toMatchObject({ preference: 'opt_in' });
  });

  it('answers CORS preflights of every subscriber route for the origins public keys allow', async () => {
    for (const path of ['full_preference/', 'category/', 'category/status-updates/', 'channel_preference/', 'full_preference']) {
      const preflight = (origin: string) =>
        fetch(`${t.app.url}v2/subscriber/alice/${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,x-ss-signature' } });
      const allowed = await preflight(PAGE_ORIGIN);
      expect({ path, status: allowed.status, origin: allowed.headers.get('access-control-allow-origin') }).toEqual({ path, status: 204, origin: PAGE_ORIGIN });
      expect((await preflight('https://evil.example.net')).headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});
