import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Socket, io } from 'socket.io-client';
import { CREDENTIALS_CHANGED_TYPE, CredentialsChanged, TOPICS, envelopeOf } from '@herald/contracts';
import { hashToken, runModeTargets } from '@herald/runtime';
import { expectEventually, openApiResponseChecker } from '@herald/testing';
import { dispatchOpenApi } from '../openapi/dispatch-openapi';
import { DispatchTestApp, deliveryCommand, startDispatchTestApp } from '../testing/dispatch-test-app';

const PAGE_ORIGIN = 'https://app.example.com';
const openApiProblems = openApiResponseChecker(dispatchOpenApi);

interface Item {
  n_id: string;
  n_category: string | null;
  seen_on: number | null;
  interacted_on: number | null;
  archived: boolean;
  message: { text: string };
}

/** What the customer's backend computes (SuprSend's `hmac_rawurlsafe_base64_string`). */
const subscriberIdOf = (distinctId: string, secret: string): string => createHmac('sha256', secret).update(distinctId).digest('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/**
 * `@suprsend/js-inbox` 2.3.1's protocol (`/js-inbox/`), as the SDK calls it: the workspace key
 * in Authorization, the user and its subscriber id in the query or the body. The behaviour does
 * not differ between run modes (the socket's cross-replica fan-out is InboxStreams', tested by
 * the feed's socket), so the embedded mode alone.
 */
describe("SuprSend's js-inbox protocol (embedded)", () => {
  const [{ database, bus }] = runModeTargets();
  let dispatch: DispatchTestApp;
  const sockets: Socket[] = [];
  const own = { key: `wk_${randomBytes(12).toString('hex')}`, secret: randomBytes(24).toString('base64url') };
  const other = { key: `wk_${randomBytes(12).toString('hex')}`, secret: randomBytes(24).toString('base64url'), workspaceId: randomUUID() };
  const sid = (user: string, secret = own.secret): string => subscriberIdOf(user, secret);

  /** A call as the SDK makes it: GETs carry the user in the query, POSTs in the body. */
  async function call(method: 'GET' | 'POST', path: string, fields: Record<string, unknown> = {}, options: { key?: string; origin?: string; rawBody?: string } = {}) {
    const user = { distinct_id: 'alice', subscriber_id: sid('alice'), tenant_id: 'default', ...fields };
    const params = new URLSearchParams();
    if (method === 'GET') for (const [name, value] of Object.entries(user)) if (value !== undefined) params.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    const url = `${dispatch.app.url}js-inbox/${path}${params.size > 0 ? `?${params.toString()}` : ''}`;
    const response = await fetch(url, {
      method,
      headers: { authorization: `${options.key ?? own.key}:${randomUUID()}`, 'content-type': 'application/json', origin: options.origin ?? PAGE_ORIGIN },
      body: method === 'GET' ? undefined : (options.rawBody ?? JSON.stringify(user)),
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(openApiProblems(method, url, response.status, body)).toEqual([]);
    return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin'), body };
  }
  const list = async (fields: Record<string, unknown> = {}) => (await call('GET', 'notifications/', fields)).body as { results: Item[]; meta: Record<string, number> };
  const count = async (stores?: unknown) => (await call('GET', 'notification_count/', { stores })).body;
  const stored = async (user = 'alice') =>
    ((await dispatch.call('GET', `v1/user/${user}/inbox/?limit=100`)).body as { results: Array<{ id: string; body: string; seen_at: string | null; read_at: string | null; clicked_at: string | null; archived_at: string | null }> }).results;
  const unread = { store_id: 'unread', query: { read: false, tags: { or: [] }, categories: { or: [] } } };
  const billing = { store_id: 'billing', query: { tags: { or: [] }, categories: { or: ['billing'] } } };

  function connect(auth: Record<string, unknown> = {}, origin = PAGE_ORIGIN): Promise<{ socket: Socket; heard: Array<{ event: string; payload: unknown }> }> {
    const socket = io(`${dispatch.app.url}js-inbox`, {
      transports: ['websocket'],
      auth: { subscriber_id: sid('alice'), distinct_id: 'alice', authorization: `${own.key}:${randomUUID()}`, tenant_id: 'default', ...auth },
      reconnection: false,
      extraHeaders: { origin },
    });
    sockets.push(socket);
    const heard: Array<{ event: string; payload: unknown }> = [];
    socket.onAny((event: string, payload: unknown) => heard.push({ event, payload }));
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve({ socket, heard }));
      socket.once('connect_error', (error) => reject(error));
    });
  }

  beforeAll(async () => {
    dispatch = await startDispatchTestApp(database, bus);
    const announce = (workspaceId: string, change: CredentialsChanged) =>
      dispatch.bus.publish(TOPICS.credentialsChanged.name, [{ key: workspaceId, value: JSON.stringify(envelopeOf(CREDENTIALS_CHANGED_TYPE, 1, randomUUID(), workspaceId, new Date(), change)) }]);
    // A page's origins are its workspace's public keys'; the other workspace allows the page too.
    for (const workspaceId of [dispatch.workspaceId, other.workspaceId]) {
      const publicKey = `SS.PUBK.${randomBytes(32).toString('base64url')}`;
      await announce(workspaceId, { kind: 'public_key', change: 'created', public_key_id: `pubk_${randomUUID()}`, workspace_id: workspaceId, workspace_slug: 'staging', key_hash: hashToken(publicKey).toString('hex'), allowed_origins: [PAGE_ORIGIN] });
    }
    await dispatch.announceWorkspaceKey(own.key, own.secret);
    await dispatch.announceWorkspaceKey(other.key, other.secret, other.workspaceId);
    await expectEventually(async () => expect((await call('GET', 'notifications/')).status).toBe(200));
    await expectEventually(async () => expect((await call('GET', 'notifications/', { subscriber_id: sid('alice', other.secret) }, { key: other.key })).status).toBe(200));
    for (const [body, category] of [['one', 'news'], ['two', 'billing'], ['three', 'news']]) {
      await dispatch.publishCommand(deliveryCommand('inbox', { body }, ['x'], { recipient: { kind: 'user', distinct_id: 'alice' }, category }));
      await expectEventually(async () => expect((await list()).meta.total_count).toBe(['one', 'two', 'three'].indexOf(body) + 1));
    }
    await dispatch.publishCommand(deliveryCommand('inbox', { body: "bob's" }, ['x'], { recipient: { kind: 'user', distinct_id: 'bob' } }));
    await expectEventually(async () => expect(await stored('bob')).toHaveLength(1));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await dispatch?.close();
  });

  it('lists page by page (page_no, before) and by store, shows one message, and counts the bell and the stores', async () => {
    const before = Date.now() + 1000;
    const first = await list({ page_no: '1', page_size: '2', before: String(before) });
    expect(first.results.map((item) => item.message.text)).toEqual(['three', 'two']);
    expect(first.meta).toEqual({ current_page: 1, total_pages: 2, total_count: 3, page_size: 2 });
    expect(first.results[0]).toMatchObject({ n_category: 'news', seen_on: null, interacted_on: null, archived: false, is_pinned: false });
    const second = await list({ page_no: '2', page_size: '2', before: String(before) });
    expect(second.results.map((item) => item.message.text)).toEqual(['one']);
    expect((await list({ before: '1' })).results).toEqual([]);
    expect((await list({ store: JSON.stringify(billing) })).results.map((item) => item.message.text)).toEqual(['two']);

    const detail = await call('GET', `notification/${first.results[0].n_id}/`);
    expect(detail).toMatchObject({ status: 200, allowOrigin: PAGE_ORIGIN, body: { data: { n_id: first.results[0].n_id, message: { text: 'three' } } } });
    expect(await count(JSON.stringify([unread, billing]))).toEqual({ ss_bell_count: 3, unread: 3, billing: 1 });
  });

  it('marks read, unread and archived, clicks, opens the bell and marks all read, as the inbox stores them, and tells the socket', async () => {
    const { heard } = await connect();
    const [three, two, one] = (await list()).results;
    const act = (id: string, action: string) => call('POST', `notification/${id}/action`, { action, tenant_id: undefined });

    expect(await act(three.n_id, 'read')).toMatchObject({ status: 200, body: { data: { n_id: three.n_id, seen_on: expect.any(Number) } } });
    expect((await stored()).find((item) => item.id === three.n_id)).toMatchObject({ read_at: expect.any(String), seen_at: expect.any(String) });
    expect((await act(three.n_id, 'unread')).body).toMatchObject({ data: { seen_on: null } });
    await expectEventually(async () => expect(heard).toContainEqual({ event: 'notification_updated', payload: { n_id: three.n_id } }));
    expect((await act(one.n_id, 'archive')).body).toMatchObject({ data: { archived: true } });
    await expectEventually(async () => expect(heard).toContainEqual({ event: 'notification_updated', payload: { n_id: one.n_id, type: 'archive' } }));
    expect((await list()).results.map((item) => item.message.text)).toEqual(['three', 'two']);

    // The click names the message alone, with the workspace key.
    const click = (id: string, key = own.key) => call('POST', 'event/', {}, { key, rawBody: JSON.stringify({ event: '$notification_clicked', env: key, $insert_id: randomUUID(), $time: Date.now(), properties: { id } }) });
    expect(await click(two.n_id)).toMatchObject({ status: 202, body: { message: 'OK' } });
    expect((await stored()).find((item) => item.id === two.n_id)).toMatchObject({ clicked_at: expect.any(String), read_at: expect.any(String) });
    await expectEventually(async () => expect(dispatch.outcomes.some((outcome) => outcome.envelope.payload.status === 'clicked')).toBe(true));

    expect(await call('POST', 'bell-clicked/', { time: Date.now() })).toMatchObject({ status: 200, body: { ss_bell_count: 0 } });
    await expectEventually(async () => expect(heard).toContainEqual({ event: 'update_badge', payload: {} }));
    expect(await count(JSON.stringify([unread]))).toEqual({ ss_bell_count: 0, unread: 1 });

    await dispatch.publishCommand(deliveryCommand('inbox', { body: 'four' }, ['x'], { recipient: { kind: 'user', distinct_id: 'alice' }, category: 'news' }));
    await expectEventually(async () => expect(heard.some((h) => h.event === 'new_notification')).toBe(true));
    expect(await count(JSON.stringify([unread]))).toEqual({ ss_bell_count: 1, unread: 2 });
    // Archived messages are marked too (the archived `one`, unread).
    expect(await call('POST', 'mark-all-read/', { time: Date.now() })).toMatchObject({ status: 200, body: { updated: 3 } });
    await expectEventually(async () => expect(heard).toContainEqual({ event: 'mark_all_read', payload: {} }));
    expect((await stored()).every((item) => item.read_at !== null)).toBe(true);
    expect(await count(JSON.stringify([unread]))).toEqual({ ss_bell_count: 0, unread: 0 });
    // Bob's message is untouched.
    expect((await stored('bob'))[0]).toMatchObject({ read_at: null, seen_at: null });
  });

  it("refuses another user's subscriber id, another workspace's key or secret, an unknown key and a disallowed origin, on every route and the socket", async () => {
    const [item] = (await list()).results;
    const routes: Array<['GET' | 'POST', string]> = [
      ['GET', 'notifications/'],
      ['GET', 'notification_count/'],
      ['GET', `notification/${item.n_id}/`],
      ['POST', `notification/${item.n_id}/action`],
      ['POST', 'bell-clicked/'],
      ['POST', 'mark-all-read/'],
    ];
    for (const [method, path] of routes) {
      const fields = path.endsWith('action') ? { action: 'read' } : {};
      // Bob's subscriber id for alice, a subscriber id made with another secret, another workspace's key with ours.
      for (const refused of [
        await call(method, path, { ...fields, subscriber_id: sid('bob') }),
        await call(method, path, { ...fields, subscriber_id: sid('alice', other.secret) }),
        await call(method, path, fields, { key: other.key }),
        await call(method, path, fields, { key: 'wk_unknown' }),
      ]) {
        expect(refused).toMatchObject({ status: 401, body: { error: { type: 'AUTHENTICATION_FAILED' } } });
      }
      const foreignOrigin = await call(method, path, fields, { origin: 'https://evil.example' });
      expect(foreignOrigin).toMatchObject({ status: 403, allowOrigin: null, body: { error: { type: 'PERMISSION_DENIED' } } });
    }
    // Another workspace's own credentials prove its own alice, who sees nothing of this workspace's.
    const foreign = { subscriber_id: sid('alice', other.secret) };
    expect((await call('GET', 'notifications/', foreign, { key: other.key })).body).toMatchObject({ results: [], meta: { total_count: 0 } });
    expect((await call('GET', `notification/${item.n_id}/`, foreign, { key: other.key })).status).toBe(404);
    expect((await call('POST', `notification/${item.n_id}/action`, { ...foreign, action: 'archive' }, { key: other.key })).status).toBe(404);
    const click = await call('POST', 'event/', {}, { key: other.key, rawBody: JSON.stringify({ event: '$notification_clicked', env: other.key, properties: { id: item.n_id } }) });
    expect(click.status).toBe(404);
    expect((await call('POST', 'event/', {}, { origin: 'https://evil.example', rawBody: JSON.stringify({ event: '$notification_clicked', properties: { id: item.n_id } }) })).status).toBe(403);
    expect((await stored()).find((stored) => stored.id === item.n_id)).toMatchObject({ archived_at: null });

    // Preflights: answered for an allowed origin only.
    const preflight = (origin: string) =>
      fetch(`${dispatch.app.url}js-inbox/notifications/`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    expect((await preflight(PAGE_ORIGIN)).headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();

    await expect(connect({ subscriber_id: sid('bob') })).rejects.toThrow('Authentication Error');
    await expect(connect({ authorization: `${other.key}:x` })).rejects.toThrow('Authentication Error');
    await expect(connect({}, 'https://evil.example')).rejects.toThrow('Authentication Error');
    await expect(connect({ subscriber_id: undefined })).rejects.toThrow('auth.subscriber_id');
  });

  it('answers bad input with 400 naming the field, never a 5xx', async () => {
    const [item] = (await list()).results;
    const cases: Array<[Promise<{ status: number; body: Record<string, unknown> }>, string]> = [
      [call('GET', 'notifications/', { subscriber_id: undefined }), 'subscriber_id'],
      [call('GET', 'notifications/', { distinct_id: '' }), 'distinct_id'],
      [call('GET', 'notifications/', { page_size: '0' }), 'page_size'],
      [call('GET', 'notifications/', { page_no: 'x' }), 'page_no'],
      [call('GET', 'notifications/', { before: '-5' }), 'before'],
      [call('GET', 'notifications/', { store: '{nope' }), 'store'],
      [call('GET', 'notifications/', { store: JSON.stringify({ store_id: 's', query: { read: 'yes' } }) }), 'store.query.read'],
      [call('GET', 'notification_count/', { stores: '{}' }), 'stores'],
      [call('POST', `notification/${item.n_id}/action`, { action: 'pin' }), 'action'],
      [call('POST', 'mark-all-read/', { tenant_id: 7 }), 'tenant_id'],
      [call('POST', 'event/', {}, { rawBody: JSON.stringify({ event: 'other', properties: { id: 'x' } }) }), 'event'],
      [call('POST', 'event/', {}, { rawBody: JSON.stringify({ event: '$notification_clicked', properties: {} }) }), 'properties.id'],
    ];
    for (const [attempt, field] of cases) {
      const answer = await attempt;
      expect(answer).toMatchObject({ status: 400, body: { error: { type: 'VALIDATION_ERROR' } } });
      expect(JSON.stringify(answer.body)).toContain(field);
    }
    // A body that is no JSON is refused before the route (Herald's own error body).
    const garbled = await fetch(`${dispatch.app.url}js-inbox/bell-clicked/`, { method: 'POST', headers: { authorization: `${own.key}:`, 'content-type': 'application/json', origin: PAGE_ORIGIN }, body: '{not json' });
    expect(garbled.status).toBe(400);
    expect((await call('GET', 'notification/not-an-id/')).status).toBe(404);
  });
});
