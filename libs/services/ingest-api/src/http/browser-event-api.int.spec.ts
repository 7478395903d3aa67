import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { EventAccepted, UserOperationsUpdate } from '@herald/contracts';
import { hashToken, mintUserToken, runModeTargets } from '@herald/runtime';
import { expectEventually, openApiResponseChecker } from '@herald/testing';
import { ingestOpenApi } from '../openapi/ingest-openapi';
import { IngestTestApp, TestWorkspace, startIngestTestApp } from '../testing/ingest-test-app';

const PAGE_ORIGIN = 'https://app.example.com';
const openApiProblems = openApiResponseChecker(ingestOpenApi);

/** `POST /v2/event` as SuprSend's web SDK 4.1.2 sends it (docs/sdk-compatibility.md): a public key, a user token, from a page. */
describe.each(runModeTargets())('POST /v2/event from a browser ($name)', ({ database, bus }) => {
  let t: IngestTestApp;
  const keys = new Map<string, { publicKey: string; signing: ReturnType<typeof generateKeyPairSync> }>();
  const now = (): number => Math.floor(Date.now() / 1000);

  async function registerBrowserKeys(workspace: TestWorkspace): Promise<void> {
    const publicKey = `SS.PUBK.${randomBytes(32).toString('base64url')}`;
    const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    keys.set(workspace.id, { publicKey, signing });
    const base = { workspace_id: workspace.id, workspace_slug: workspace.slug };
    await t.announceCredentials({ kind: 'public_key', change: 'created', public_key_id: `pubk_${randomUUID()}`, ...base, key_hash: hashToken(publicKey).toString('hex'), allowed_origins: [PAGE_ORIGIN] });
    await t.announceCredentials({ kind: 'signing_key', change: 'created', signing_key_uid: `sk_${randomUUID()}`, ...base, public_key_pem: signing.publicKey.export({ type: 'spki', format: 'pem' }).toString() });
  }

  /** A call as the SDK makes it: `Authorization: <public key>`, `x-ss-signature: <user token>`. */
  async function sdkCall(body: unknown, options: { user?: string; workspace?: TestWorkspace; tokenOf?: TestWorkspace; origin?: string; method?: string } = {}) {
    const workspace = options.workspace ?? t.workspace;
    const { publicKey } = keys.get(workspace.id) as { publicKey: string };
    const { signing } = keys.get((options.tokenOf ?? workspace).id) as { signing: ReturnType<typeof generateKeyPairSync> };
    const token = mintUserToken(signing.privateKey, { distinct_id: options.user ?? 'alice', iat: now(), exp: now() + 300 });
    const response = await fetch(`${t.app.url}v2/event`, {
      method: options.method ?? 'POST',
      headers: { authorization: publicKey, 'x-ss-signature': token, 'content-type': 'application/json', origin: options.origin ?? PAGE_ORIGIN },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    // Every answer is the one the OpenAPI fragment documents.
    expect(openApiProblems(options.method ?? 'POST', `${t.app.url}v2/event`, response.status, answer)).toEqual([]);
    return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin'), body: answer };
  }

  const eventsNamed = (name: string): EventAccepted[] => t.events.map((c) => c.envelope.payload as EventAccepted).filter((e) => e.event === name);
  const updatesFor = (distinctId: string): UserOperationsUpdate[] =>
    t.audience.map((c) => c.envelope.payload as UserOperationsUpdate).filter((u) => u.kind === 'user_operations' && u.distinct_id === distinctId);

  beforeAll(async () => {
    t = await startIngestTestApp(database, bus);
    await registerBrowserKeys(t.workspace);
    await registerBrowserKeys(t.other);
    await expectEventually(async () => expect((await sdkCall({ event: 'warm-up', distinct_id: 'alice', $insert_id: randomUUID() })).status).toBe(202));
  });
  afterAll(() => t?.close());

  it('accepts identify (no top-level distinct_id) as an identity event of the token user, readable by the page', async () => {
    const answer = await sdkCall({ event: '$identify', $insert_id: randomUUID(), $time: Date.now(), properties: { $identified_id: 'alice' } });
    expect(answer).toEqual({ status: 202, allowOrigin: PAGE_ORIGIN, body: { message: 'OK' } });
    await expectEventually(() => expect(updatesFor('alice')).toContainEqual(expect.objectContaining({ operations: [] })));
  });

  it('accepts track and profile edits as /event/ does, once per $insert_id', async () => {
    const insertId = randomUUID();
    const track = { event: 'Viewed Plan', $insert_id: insertId, $time: Date.now(), distinct_id: 'alice', properties: { plan: 'pro' } };
    expect((await sdkCall(track)).status).toBe(202);
    expect((await sdkCall(track)).status).toBe(202);
    await t.drain();
    expect(eventsNamed('Viewed Plan')).toEqual([expect.objectContaining({ distinct_id: 'alice', properties: { plan: 'pro' }, accepted_via: 'api' })]);

    const edit = { distinct_id: 'alice', $insert_id: randomUUID(), $time: Date.now(), $set: { plan: 'pro', $preferred_language: 'fr' } };
    expect((await sdkCall(edit)).status).toBe(202);
    const subscription = { endpoint: 'https://push.example.com/abc', keys: { p256dh: 'p', auth: 'a' } };
    const webpush = { distinct_id: 'alice', $insert_id: randomUUID(), $time: Date.now(), $append: { $webpush: subscription, $id_provider: 'vapid', $device_id: 'dev-1' } };
    expect((await sdkCall(webpush)).status).toBe(202);
    expect((await sdkCall({ distinct_id: 'alice', $insert_id: randomUUID(), $unset: ['plan'] })).status).toBe(202);
    await expectEventually(() =>
      expect(updatesFor('alice').map((u) => u.operations)).toEqual(
        expect.arrayContaining([[{ $set: { plan: 'pro', $locale: 'fr' } }], [{ $append: { $webpush: [subscription] } }], [{ $unset: ['plan'] }]]),
      ),
    );
  });

  it('names the failing field in a 400 the page can read, and accepts nothing', async () => {
    const bad = await sdkCall({ distinct_id: 'alice', $insert_id: randomUUID(), $add: { visits: 'one' } });
    expect(bad).toMatchObject({ status: 400, allowOrigin: PAGE_ORIGIN, body: { error: { type: 'VALIDATION_ERROR', message: expect.stringContaining('$add.visits') } } });
    const noUser = await sdkCall({ event: '$identify', $insert_id: randomUUID(), properties: {} });
    expect(noUser).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('properties.$identified_id') } } });
    const longName = await sdkCall({ event: 'x'.repeat(256), distinct_id: 'alice', $insert_id: randomUUID() });
    expect(longName).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('event') } } });
    expect((await sdkCall({ event: 'e', distinct_id: 'alice', $insert_id: 7 })).body).toMatchObject({ error: { message: expect.stringContaining('$insert_id') } });
    await t.drain();
    expect(eventsNamed('x'.repeat(256))).toHaveLength(0);
  });

  it("refuses another user's events, another workspace's key and a disallowed origin", async () => {
    const bobs = await sdkCall({ event: 'Spoofed', distinct_id: 'bob', $insert_id: randomUUID() }, { user: 'alice' });
    expect(bobs).toMatchObject({ status: 403, allowOrigin: PAGE_ORIGIN, body: { error: { type: 'PERMISSION_DENIED' } } });
    const identifyBob = await sdkCall({ event: '$identify', $insert_id: randomUUID(), properties: { $identified_id: 'bob' } }, { user: 'alice' });
    expect(identifyBob.status).toBe(403);
    // The other workspace's key and token are good, for its own users: alice's events there never reach this workspace.
    expect((await sdkCall({ event: 'Elsewhere', distinct_id: 'alice', $insert_id: randomUUID() }, { workspace: t.other })).status).toBe(202);
    const crossed = await sdkCall({ event: 'Spoofed', distinct_id: 'alice', $insert_id: randomUUID() }, { workspace: t.other, tokenOf: t.workspace });
    expect(crossed).toMatchObject({ status: 401, body: { error: { type: 'AUTHENTICATION_FAILED' } } });
    const elsewhere = await sdkCall({ event: 'Spoofed', distinct_id: 'alice', $insert_id: randomUUID() }, { origin: 'https://evil.example.net' });
    expect(elsewhere).toMatchObject({ status: 403, allowOrigin: null });
    const noKey = await fetch(`${t.app.url}v2/event`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(noKey.status).toBe(401);
    await t.drain();
    expect(eventsNamed('Spoofed')).toHaveLength(0);
    expect(t.events.filter((c) => (c.envelope.payload as EventAccepted).event === 'Elsewhere').map((c) => c.envelope.workspace_id)).toEqual([t.other.id]);
  });

  it('answers the CORS preflight for an allowed origin only', async () => {
    const preflight = (origin: string) =>
      fetch(`${t.app.url}v2/event`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-ss-signature' } });
    const allowed = await preflight(PAGE_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    expect((await preflight('https://evil.example.net')).headers.get('access-control-allow-origin')).toBeNull();
  });
});
