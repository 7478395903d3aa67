import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { Socket, io } from 'socket.io-client';
import { CREDENTIALS_CHANGED_TYPE, CredentialsChanged, TOPICS, envelopeOf } from '@herald/contracts';
import { TestHttpApp, hashToken, mintUserToken, runModeTargets, startTestHttpApp } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { ChannelDispatchersModule, channelDispatchers } from '../channel-dispatchers.module';
import { DispatchTestApp, deliveryCommand, startDispatchTestApp } from '../testing/dispatch-test-app';

const PAGE_ORIGIN = 'https://app.example.com';

interface Heard {
  readonly event: string;
  readonly payload: unknown;
}

/** A socket as `@suprsend/web-sdk` 4.1.2 opens it (`feed.initializeSocketConnection()`), and every event it hears. */
interface FeedSocket {
  readonly socket: Socket;
  readonly heard: Heard[];
}

/** The feed's realtime half: socket.io v4 at /socket.io/ on the dispatcher, fed by notify.inbox.updated.v1. */
describe.each(runModeTargets())("SuprSend's feed socket ($name)", ({ database, bus }) => {
  let dispatch: DispatchTestApp;
  const sockets: Socket[] = [];
  const keys = {
    own: { publicKey: `SS.PUBK.${randomBytes(32).toString('base64url')}`, signing: generateKeyPairSync('ec', { namedCurve: 'P-256' }) },
    other: { publicKey: `SS.PUBK.${randomBytes(32).toString('base64url')}`, signing: generateKeyPairSync('ec', { namedCurve: 'P-256' }) },
  };
  const now = (): number => Math.floor(Date.now() / 1000);
  const tokenFor = (distinctId: string, of: keyof typeof keys = 'own', claims: Record<string, unknown> = {}): string =>
    mintUserToken(keys[of].signing.privateKey, { distinct_id: distinctId, iat: now(), exp: now() + 300, ...claims });
  const announce = (workspaceId: string, change: CredentialsChanged): Promise<void> =>
    dispatch.bus.publish(TOPICS.credentialsChanged.name, [{ key: workspaceId, value: JSON.stringify(envelopeOf(CREDENTIALS_CHANGED_TYPE, 1, randomUUID(), workspaceId, new Date(), change)) }]);

  /** The SDK's connect payload, with `auth` overriding its fields; resolves once connected, rejects with the connect_error. */
  function connect(url: string, auth: Record<string, unknown> = {}, origin = PAGE_ORIGIN): Promise<FeedSocket> {
    const socket = io(url, {
      transports: ['websocket'],
      auth: { authorization: keys.own.publicKey, 'x-ss-signature': tokenFor('alice'), distinct_id: 'alice', tenant_id: 'default', schema: '1', ...auth },
      reconnection: false,
      extraHeaders: { origin },
    });
    sockets.push(socket);
    const heard: Heard[] = [];
    socket.onAny((event: string, payload: unknown) => heard.push({ event, payload }));
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve({ socket, heard }));
      socket.once('connect_error', (error: Error & { data?: unknown }) => reject(Object.assign(new Error(error.message), { data: error.data })));
    });
  }
  const refusalOf = async (attempt: Promise<FeedSocket>): Promise<{ message: string; data?: unknown }> => {
    try {
      await attempt;
    } catch (error) {
      return { message: (error as Error).message, data: (error as { data?: unknown }).data };
    }
    throw new Error('the socket was accepted');
  };
  async function feedCall(method: string, path: string, body?: unknown, baseUrl = dispatch.app.url): Promise<unknown> {
    const response = await fetch(`${baseUrl}v1/feed/${path}?distinct_id=alice&tenant_id=default`, {
      method,
      headers: { authorization: keys.own.publicKey, 'x-ss-signature': tokenFor('alice'), 'content-type': 'application/json', origin: PAGE_ORIGIN },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return response.json();
  }
  const forAlice = (body: string, tenant?: string) =>
    deliveryCommand('inbox', { body }, ['x'], { recipient: { kind: 'user', distinct_id: 'alice' }, ...(tenant === undefined ? {} : { tenant_id: tenant }) });
  const idOf = async (body: string): Promise<string> => {
    let id: string | undefined;
    await expectEventually(async () => {
      const inbox = (await dispatch.call('GET', 'v1/user/alice/inbox/?limit=100')).body as { results: Array<{ id: string; body: string }> };
      id = inbox.results.find((item) => item.body === body)?.id;
      expect(id).toBeDefined();
    });
    return id as string;
  };
  const waitFor = async (socket: FeedSocket, event: string, payload: unknown): Promise<void> =>
    expectEventually(async () => expect(socket.heard).toContainEqual({ event, payload }));

  beforeAll(async () => {
    dispatch = await startDispatchTestApp(database, bus);
    for (const [workspaceId, key] of [
      [dispatch.workspaceId, keys.own],
      [randomUUID(), keys.other],
    ] as const) {
      const base = { workspace_id: workspaceId, workspace_slug: 'staging' };
      await announce(workspaceId, { kind: 'public_key', change: 'created', public_key_id: `pubk_${randomUUID()}`, ...base, key_hash: hashToken(key.publicKey).toString('hex'), allowed_origins: [PAGE_ORIGIN] });
      await announce(workspaceId, { kind: 'signing_key', change: 'created', signing_key_uid: `sk_${randomUUID()}`, ...base, public_key_pem: key.signing.publicKey.export({ type: 'spki', format: 'pem' }).toString() });
    }
    await expectEventually(async () => (await connect(dispatch.app.url)).socket.disconnect());
  });
  afterAll(async () => {
    for (const socket of sockets) socket.disconnect();
    await dispatch?.close();
  });

  it('tells a connected page of a new message, each mark, bulk seen, all read and the badge reset; a tenant hears only its own', async () => {
    const page = await connect(dispatch.app.url);
    const acme = await connect(dispatch.app.url, { tenant_id: 'acme' });
    const bob = await connect(dispatch.app.url, { 'x-ss-signature': tokenFor('bob'), distinct_id: 'bob' });

    await dispatch.publishCommand(forAlice('hello'));
    const hello = await idOf('hello');
    await waitFor(page, 'new_notification', { n_id: hello });
    await feedCall('PATCH', `notifications/${hello}/read`);
    await waitFor(page, 'notification_update', { n_id: hello });

    await dispatch.publishCommand(forAlice('for acme', 'acme'));
    const forAcme = await idOf('for acme');
    await waitFor(acme, 'new_notification', { n_id: forAcme });

    // A bulk change is one event, after the messages' own updates (one partition, in order): none of those reached the page.
    const before = page.heard.length;
    await dispatch.publishCommand(forAlice('second'));
    const second = await idOf('second');
    await waitFor(page, 'new_notification', { n_id: second });
    expect(await feedCall('POST', 'bulk/notifications/seen', { notification_ids: [second] })).toEqual({ notification_ids: [second] });
    await waitFor(page, 'bulk_notification_update', { action: 'seen', notification_ids: [second] });
    await feedCall('PATCH', 'mark_all_read');
    await waitFor(page, 'bulk_notification_update', { action: 'read', notification_ids: 'all' });
    await feedCall('PATCH', 'reset_bell_count');
    await waitFor(page, 'reset_badge', {});
    expect(page.heard.slice(before)).toEqual([
      { event: 'new_notification', payload: { n_id: second } },
      { event: 'bulk_notification_update', payload: { action: 'seen', notification_ids: [second] } },
      { event: 'bulk_notification_update', payload: { action: 'read', notification_ids: 'all' } },
      { event: 'reset_badge', payload: {} },
    ]);
    // Every event of alice's went through the same partition before the last: the other tenant and the other user heard none of the default tenant's.
    expect(page.heard.map((heard) => heard.payload)).not.toContainEqual({ n_id: forAcme });
    expect(acme.heard).toEqual([{ event: 'new_notification', payload: { n_id: forAcme } }]);
    expect(bob.heard).toEqual([]);
  });

  it("refuses another workspace's key, a foreign or expired token, another user, another tenant and a disallowed origin, as the SDK reads it", async () => {
    const url = dispatch.app.url;
    // The SDK refreshes its token on exactly this message.
    expect(await refusalOf(connect(url, { 'x-ss-signature': tokenFor('alice', 'other') }))).toMatchObject({
      message: 'Authentication Error: wrong auth token',
      data: { error_code: 'authentication_failed' },
    });
    expect((await refusalOf(connect(url, { authorization: keys.other.publicKey }))).message).toBe('Authentication Error: wrong auth token');
    expect((await refusalOf(connect(url, { 'x-ss-signature': tokenFor('alice', 'own', { iat: now() - 600, exp: now() - 60 }) }))).message).toBe('Authentication Error: wrong auth token');
    expect((await refusalOf(connect(url, { 'x-ss-signature': undefined }))).message).toBe('Authentication Error: wrong auth token');
    expect((await refusalOf(connect(url, { authorization: `SS.PUBK.${randomBytes(32).toString('base64url')}` }))).message).toBe('Authentication Error: invalid public key');
    expect(await refusalOf(connect(url, { distinct_id: 'bob' }))).toMatchObject({
      message: "Authentication Error: the user token does not grant this user's feed",
      data: { error_code: 'permission_denied' },
    });
    expect((await refusalOf(connect(url, { 'x-ss-signature': tokenFor('alice', 'own', { tenant_id: 'acme' }) }))).message).toBe("Authentication Error: the user token is for tenant 'acme'");
    expect((await refusalOf(connect(url, {}, 'https://evil.example.net'))).message).toBe('Authentication Error: origin https://evil.example.net is not allowed for this public key');
    expect(await refusalOf(connect(url, { distinct_id: undefined, tenant_id: 7 }))).toMatchObject({
      message: expect.stringMatching(/^Bad Request: auth.distinct_id .*; auth.tenant_id /),
      data: { error_code: 'validation_error' },
    });
    // Long-polling is not served (the SDK uses WebSocket alone), so no page can reach the socket without its Origin checked.
    const polling = await fetch(`${url}socket.io/?EIO=4&transport=polling`, { headers: { origin: 'https://evil.example.net' } });
    expect(polling.status).toBe(400);
    expect(polling.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('holds a user to five connections (with the event streams), and closes the connection when the token expires', async () => {
    const carol = { 'x-ss-signature': tokenFor('carol'), distinct_id: 'carol' };
    const open = await Promise.all([1, 2, 3, 4, 5].map(() => connect(dispatch.app.url, carol)));
    expect((await refusalOf(connect(dispatch.app.url, carol))).message).toBe('Too Many Requests: too many open feed connections for this user or key');
    open[0].socket.disconnect();
    await expectEventually(async () => (await connect(dispatch.app.url, carol)).socket.disconnect());

    // A transport close, after which the SDK reconnects, is refused, and refreshes its token.
    const shortLived = await connect(dispatch.app.url, { 'x-ss-signature': tokenFor('dave', 'own', { exp: now() + 2 }), distinct_id: 'dave' });
    const reason = await new Promise<string>((resolve) => shortLived.socket.once('disconnect', resolve));
    expect(reason).toBe('transport close');
  });

  it('hears on one replica what another stores and marks, and is closed (to reconnect elsewhere) when its replica shuts down', async () => {
    const service = { ...channelDispatchers, module: () => ChannelDispatchersModule.register({ pollIntervalMs: 50 }) };
    let second: TestHttpApp | undefined = await startTestHttpApp(service, dispatch.databaseUrl, { bus: dispatch.bus });
    try {
      const secondUrl = second.url;
      await dispatch.publishCommand(forAlice('warm-up'));
      const warmUp = await idOf('warm-up');
      await expectEventually(async () => (await connect(secondUrl)).socket.disconnect());
      const page = await connect(secondUrl);
      // The second replica reads the fan-out from its latest offset once it has joined: marked until it hears.
      await expectEventually(
        async () => {
          await feedCall('PATCH', `notifications/${warmUp}/seen`);
          expect(page.heard).toContainEqual({ event: 'notification_update', payload: { n_id: warmUp } });
        },
        { timeoutMs: 30_000, intervalMs: 500 },
      );
      await dispatch.publishCommand(forAlice('across replicas'));
      const id = await idOf('across replicas');
      await waitFor(page, 'new_notification', { n_id: id });
      // Marked through the first replica's API, heard on the second's socket.
      await feedCall('PATCH', `notifications/${id}/archive`);
      await waitFor(page, 'notification_update', { n_id: id });

      const closed = new Promise<string>((resolve) => page.socket.once('disconnect', resolve));
      await second.close();
      second = undefined;
      expect(await closed).toBe('transport close');
    } finally {
      await second?.close();
    }
  });
});
