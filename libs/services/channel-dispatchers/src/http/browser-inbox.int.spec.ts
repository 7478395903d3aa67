import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { CREDENTIALS_CHANGED_TYPE, CredentialsChanged, TOPICS, envelopeOf } from '@herald/contracts';
import { hashToken, mintUserToken, runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { DispatchTestApp, deliveryCommand, startDispatchTestApp } from '../testing/dispatch-test-app';

const PAGE_ORIGIN = 'https://app.example.com';

describe.each(runModeTargets())('the inbox from a browser: public key and user token ($name)', ({ database, bus }) => {
  let dispatch: DispatchTestApp;
  const publicKey = `SS.PUBK.${randomBytes(32).toString('base64url')}`;
  const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signingUid = `signing_key_${randomUUID()}`;
  const now = (): number => Math.floor(Date.now() / 1000);
  const tokenFor = (distinctId: string, claims: Record<string, unknown> = {}): string =>
    mintUserToken(signing.privateKey, { distinct_id: distinctId, iat: now(), exp: now() + 300, ...claims });

  const announce = (change: CredentialsChanged): Promise<void> =>
    dispatch.bus.publish(TOPICS.credentialsChanged.name, [
      { key: dispatch.workspaceId, value: JSON.stringify(envelopeOf(CREDENTIALS_CHANGED_TYPE, 1, randomUUID(), dispatch.workspaceId, new Date(), change)) },
    ]);

  async function browserCall(method: string, path: string, token: string, options: { origin?: string; body?: unknown; key?: string } = {}) {
    const response = await fetch(`${dispatch.app.url}${path}`, {
      method,
      headers: {
        authorization: options.key ?? publicKey,
        'x-ss-signature': token,
        ...(options.origin === undefined ? {} : { origin: options.origin }),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin'), body: (await response.json()) as Record<string, unknown> };
  }

  /** Reads an event stream; `until` resolves with all that arrived once it matches. The caller aborts the request. */
  function streamReader(response: Response): { until: (matches: (text: string) => boolean) => Promise<string> } {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    return {
      until: async (matches) => {
        while (!matches(text)) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
        }
        return text;
      },
    };
  }

  beforeAll(async () => {
    dispatch = await startDispatchTestApp(database, bus);
    await announce({
      kind: 'public_key',
      change: 'created',
      public_key_id: 'ws_pubk_test',
      workspace_id: dispatch.workspaceId,
      workspace_slug: 'staging',
      key_hash: hashToken(publicKey).toString('hex'),
      allowed_origins: [PAGE_ORIGIN],
    });
    await announce({
      kind: 'signing_key',
      change: 'created',
      signing_key_uid: signingUid,
      workspace_id: dispatch.workspaceId,
      workspace_slug: 'staging',
      public_key_pem: signing.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    await expectEventually(async () => expect((await browserCall('GET', 'v1/user/alice/inbox/', tokenFor('alice'))).status).toBe(200));
    for (const body of ['first', 'second']) {
      await dispatch.publishCommand(deliveryCommand('inbox', { body }, ['x'], { recipient: { kind: 'user', distinct_id: 'alice' } }));
    }
    await expectEventually(async () => expect((await dispatch.call('GET', 'v1/user/alice/inbox/')).body).toMatchObject({ meta: { count: 2 } }));
  });
  afterAll(() => dispatch?.close());

  it("lists the token's user's inbox with the unseen and unread counts, and marks a message read, readable by an allowed origin", async () => {
    const listed = await browserCall('GET', 'v1/user/alice/inbox/', tokenFor('alice'), { origin: PAGE_ORIGIN });
    expect(listed).toMatchObject({ status: 200, allowOrigin: PAGE_ORIGIN, body: { meta: { unseen_count: 2, unread_count: 2, count: 2 } } });
    const [newest] = listed.body.results as Array<{ id: string; body: string }>;
    expect(newest.body).toBe('second');
    const read = await browserCall('PATCH', `v1/user/alice/inbox/${newest.id}/`, tokenFor('alice'), { origin: PAGE_ORIGIN, body: { read: true } });
    expect(read).toMatchObject({ status: 200, allowOrigin: PAGE_ORIGIN, body: { id: newest.id } });
    expect((read.body as { read_at: string | null }).read_at).not.toBeNull();
    expect((await browserCall('GET', 'v1/user/alice/inbox/', tokenFor('alice'))).body).toMatchObject({ meta: { unseen_count: 1, unread_count: 1 } });
  });

  it("refuses another user's inbox (403), a bad token (401) and an origin the key does not allow (403)", async () => {
    const alice = tokenFor('alice');
    const bobs = await browserCall('GET', 'v1/user/bob/inbox/', alice, { origin: PAGE_ORIGIN });
    expect(bobs).toMatchObject({ status: 403, allowOrigin: PAGE_ORIGIN, body: { code: 403, error_code: 'permission_denied' } });
    expect((await browserCall('PATCH', `v1/user/bob/inbox/${randomUUID()}/`, alice, { body: { read: true } })).status).toBe(403);

    const expired = await browserCall('GET', 'v1/user/alice/inbox/', tokenFor('alice', { iat: now() - 600, exp: now() - 1 }), { origin: PAGE_ORIGIN });
    expect(expired).toMatchObject({ status: 401, allowOrigin: PAGE_ORIGIN, body: { error_code: 'authentication_failed', message: 'user token expired' } });
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const forged = await browserCall('GET', 'v1/user/alice/inbox/', mintUserToken(stranger.privateKey, { distinct_id: 'alice', iat: now(), exp: now() + 60 }));
    expect(forged).toMatchObject({ status: 401, body: { message: 'user token signature does not verify with the workspace signing key' } });
    expect((await browserCall('GET', 'v1/user/alice/inbox/', alice, { key: `SS.PUBK.${'x'.repeat(43)}` })).status).toBe(401);
    expect((await browserCall('GET', 'v1/user/alice/inbox/', 'x'.repeat(10_000))).status).toBe(401);

    const elsewhere = await browserCall('GET', 'v1/user/alice/inbox/', alice, { origin: 'https://evil.example.net' });
    expect(elsewhere).toMatchObject({ status: 403, allowOrigin: null });
  });

  it('answers CORS preflights for the origins public keys allow, and for no other', async () => {
    const preflight = async (origin: string) =>
      fetch(`${dispatch.app.url}v1/user/alice/inbox/${randomUUID()}/`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,x-ss-signature,content-type' },
      });
    const allowed = await preflight(PAGE_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    expect(allowed.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('x-ss-signature');
    expect((await preflight('https://evil.example.net')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it("pushes a new message to the user's open event stream, and bounds the streams per user", async () => {
    const query = `public_key=${encodeURIComponent(publicKey)}&token=${tokenFor('alice')}`;
    const abort = new AbortController();
    const stream = await fetch(`${dispatch.app.url}v1/user/alice/inbox/stream/?${query}`, { headers: { origin: PAGE_ORIGIN }, signal: abort.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    expect(stream.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    const extra = new AbortController();
    try {
      const events = streamReader(stream);
      expect(await events.until((text) => text.includes('event: ready'))).toContain('"unread_count"');
      await dispatch.publishCommand(deliveryCommand('inbox', { body: 'pushed while open' }, ['x'], { recipient: { kind: 'user', distinct_id: 'alice' } }));
      await dispatch.publishCommand(deliveryCommand('inbox', { body: 'not for alice' }, ['x'], { recipient: { kind: 'user', distinct_id: 'bob' } }));
      const pushed = await events.until((text) => text.includes('pushed while open'));
      expect(pushed).toMatch(/event: item\ndata: \{[^\n]*"body":"pushed while open"/);
      expect(pushed).not.toContain('not for alice');

      // Four more streams reach the per-user limit of five; the sixth is refused.
      const more = await Promise.all([1, 2, 3, 4].map(() => fetch(`${dispatch.app.url}v1/user/alice/inbox/stream/?${query}`, { signal: extra.signal })));
      expect(more.map((response) => response.status)).toEqual([200, 200, 200, 200]);
      const refused = await fetch(`${dispatch.app.url}v1/user/alice/inbox/stream/?${query}`);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error_code: string }).error_code).toBe('rate_limited');
    } finally {
      abort.abort();
      extra.abort();
    }
    const otherUser = await fetch(`${dispatch.app.url}v1/user/bob/inbox/stream/?${query}`);
    expect(otherUser.status).toBe(403);
    // A backend has webhooks: the stream is refused to an API key.
    const backend = await fetch(`${dispatch.app.url}v1/user/alice/inbox/stream/`, { headers: { authorization: `Bearer ${dispatch.apiKey}` } });
    expect(backend.status).toBe(403);
  });

  it("shows a token that names a tenant only that tenant's messages, in the list, the counts, updates and the stream", async () => {
    const forCarol = (body: string, tenant?: string) =>
      deliveryCommand('inbox', { body }, ['x'], { recipient: { kind: 'user', distinct_id: 'carol' }, ...(tenant === undefined ? {} : { tenant_id: tenant }) });
    await dispatch.publishCommand(forCarol('for acme', 'acme'));
    await dispatch.publishCommand(forCarol('for no tenant'));
    await expectEventually(async () => expect((await dispatch.call('GET', 'v1/user/carol/inbox/')).body).toMatchObject({ meta: { count: 2 } }));
    const bodies = async (claims: Record<string, unknown>) => {
      const listed = await browserCall('GET', 'v1/user/carol/inbox/', tokenFor('carol', claims));
      return { meta: listed.body.meta, bodies: (listed.body.results as Array<{ body: string }>).map((item) => item.body) };
    };
    expect(await bodies({ tenant_id: 'acme' })).toMatchObject({ meta: { unseen_count: 1, count: 1 }, bodies: ['for acme'] });
    // A trigger without a tenant is the default tenant's.
    expect(await bodies({ tenant_id: 'default' })).toMatchObject({ meta: { unseen_count: 1, count: 1 }, bodies: ['for no tenant'] });
    expect((await bodies({})).bodies.sort()).toEqual(['for acme', 'for no tenant']);
    expect(await bodies({ tenant_id: 'globex' })).toMatchObject({ meta: { unseen_count: 0, count: 0 }, bodies: [] });

    const all = (await browserCall('GET', 'v1/user/carol/inbox/', tokenFor('carol'))).body.results as Array<{ id: string; body: string }>;
    const untenanted = all.find((item) => item.body === 'for no tenant') as { id: string };
    const acmeToken = tokenFor('carol', { tenant_id: 'acme' });
    expect((await browserCall('PATCH', `v1/user/carol/inbox/${untenanted.id}/`, acmeToken, { body: { read: true } })).status).toBe(404);
    expect((await bodies({})).meta).toMatchObject({ unread_count: 2 });

    const abort = new AbortController();
    try {
      const stream = await fetch(`${dispatch.app.url}v1/user/carol/inbox/stream/?public_key=${encodeURIComponent(publicKey)}&token=${acmeToken}`, { signal: abort.signal });
      const events = streamReader(stream);
      expect(await events.until((text) => text.includes('event: ready'))).toContain('"unseen_count":1');
      await dispatch.publishCommand(forCarol('globex news', 'globex'));
      await dispatch.publishCommand(forCarol('acme news', 'acme'));
      const pushed = await events.until((text) => text.includes('acme news'));
      expect(pushed).not.toContain('globex news');
    } finally {
      abort.abort();
    }
  });

  it('refuses the tokens of a deleted signing key', async () => {
    await announce({
      kind: 'signing_key',
      change: 'deleted',
      signing_key_uid: signingUid,
      workspace_id: dispatch.workspaceId,
      workspace_slug: 'staging',
      public_key_pem: signing.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    await expectEventually(async () => expect((await browserCall('GET', 'v1/user/alice/inbox/', tokenFor('alice'))).status).toBe(401));
  });
});
