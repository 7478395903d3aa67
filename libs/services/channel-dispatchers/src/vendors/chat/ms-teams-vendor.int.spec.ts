import { MsTeamsContent } from '@herald/rendering';
import { RecordingServer, ScriptedResponse } from '../../testing/recording-server';
import { GuardedHttp } from '../http/guarded-http';
import { SendResult, VendorConfig } from '../vendor.port';
import { MsTeamsVendor } from './ms-teams-vendor';

const APP_ID = '6f1f3b2a-9f0e-4c1e-8a55-2d4a5b6c7d8e';
const TOKEN_PATH = '/botframework.com/oauth2/v2.0/token';
const card = { type: 'AdaptiveCard', version: '1.4', body: [{ type: 'TextBlock', text: 'Deploy done' }] };

describe('MsTeamsVendor through the Bot Framework', () => {
  // The local Bot Framework listens on loopback, which the outbound rule refuses unless allowed.
  const http = new GuardedHttp(['127.0.0.0/8']);
  let server: RecordingServer;
  let now: number;
  let teams: MsTeamsVendor;
  afterAll(() => http.close());
  beforeEach(async () => {
    server = await RecordingServer.start({ status: 500, body: { error: 'unscripted' } });
    now = 1_000_000;
    teams = new MsTeamsVendor(http, () => now);
  });
  afterEach(() => server.close());

  const config = (credentials: VendorConfig['credentials'] = { app_id: APP_ID, app_password: 'bot-secret' }): VendorConfig => ({
    id: 'teams-1',
    channel: 'ms_teams',
    vendor: 'ms_teams',
    priority: 1,
    baseUrl: server.url,
    settings: { token_url: `${server.url}${TOKEN_PATH}` },
    credentials,
    version: 1,
  });
  const send = (identity: unknown, content: MsTeamsContent = { channel: 'ms_teams', text: 'Deploy done', card }, vendorConfig = config()): Promise<SendResult> =>
    teams.send({ deliveryId: 'd-1', workspaceId: 'w', content, identity, config: vendorConfig, idempotencyKey: 'idem-1' });
  const token = (accessToken = 'bf-token-1', expiresIn = 3600): ScriptedResponse => ({ status: 200, body: { token_type: 'Bearer', expires_in: expiresIn, access_token: accessToken } });
  const conversation = { service_url: '', conversation_id: '19:abc@thread.tacv2', tenant_id: 'tenant-1' };
  const at = (index: number) => server.requests[index];
  const jsonAt = (index: number) => JSON.parse(at(index).body) as Record<string, unknown>;

  it('conversation form: a client-credentials token, then the card as an activity of the conversation', async () => {
    server.respond(token(), { status: 201, body: { id: 'activity-1' } });
    expect(await send({ ...conversation, service_url: `${server.url}/amer/` })).toEqual({ ok: true, vendorMessageId: 'activity-1' });

    expect(at(0)).toMatchObject({ method: 'POST', path: TOKEN_PATH, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(Object.fromEntries(new URLSearchParams(at(0).body))).toEqual({
      grant_type: 'client_credentials',
      client_id: APP_ID,
      client_secret: 'bot-secret',
      scope: 'https://api.botframework.com/.default',
    });
    expect(at(1)).toMatchObject({
      method: 'POST',
      path: `/amer/v3/conversations/${encodeURIComponent('19:abc@thread.tacv2')}/activities`,
      headers: { authorization: 'Bearer bf-token-1', 'content-type': 'application/json' },
    });
    expect(jsonAt(1)).toEqual({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: card }] });
  });

  it('user form: creates the 1:1 conversation with the user in the tenant, then posts plain text to it', async () => {
    server.respond(token(), { status: 201, body: { id: 'a:1on1-conversation' } }, { status: 200, body: { id: 'activity-2' } });
    const identity = { service_url: server.url, user_id: '29:user-aad', tenant_id: 'tenant-1' };
    expect(await send(identity, { channel: 'ms_teams', text: 'Hello Ada' })).toEqual({ ok: true, vendorMessageId: 'activity-2' });

    expect(at(1)).toMatchObject({ method: 'POST', path: '/v3/conversations', headers: { authorization: 'Bearer bf-token-1' } });
    expect(jsonAt(1)).toMatchObject({ bot: { id: APP_ID }, members: [{ id: '29:user-aad' }], tenantId: 'tenant-1', channelData: { tenant: { id: 'tenant-1' } } });
    expect(at(2).path).toBe(`/v3/conversations/${encodeURIComponent('a:1on1-conversation')}/activities`);
    expect(jsonAt(2)).toEqual({ type: 'message', text: 'Hello Ada' });
  });

  it('caches the token until shortly before it expires', async () => {
    const identity = { ...conversation, service_url: server.url };
    server.respond(token('first', 3600), { status: 201, body: {} }, { status: 201, body: {} }, token('second', 3600), { status: 201, body: {} });
    await send(identity);
    now += 30 * 60_000;
    await send(identity);
    now += 30 * 60_000;
    await send(identity);
    expect(server.requests.map((request) => request.path.startsWith(TOKEN_PATH))).toEqual([true, false, false, true, false]);
    expect(at(4).headers.authorization).toBe('Bearer second');
  });

  it('429 or 503 is retryable; 403 and 404 of the conversation and a refused token are permanent', async () => {
    const identity = { ...conversation, service_url: server.url };
    server.respond(token(), { status: 429, body: { error: { code: 'Throttled' } } }, { status: 503 });
    expect(await send(identity)).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('429') });
    expect(await send(identity)).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('503') });
    server.respond({ status: 403, body: { error: { code: 'BotNotInConversationRoster' } } }, { status: 404, body: { error: { code: 'ConversationNotFound' } } });
    expect(await send(identity)).toMatchObject({ ok: false, retryable: false, reason: expect.stringContaining('BotNotInConversationRoster') });
    expect(await send({ ...identity, user_id: 'u', conversation_id: undefined })).toMatchObject({ ok: false, retryable: false, reason: expect.stringContaining('404') });

    const refused = new MsTeamsVendor(http, () => now);
    server.respond({ status: 401, body: { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' } });
    const result = await refused.send({ deliveryId: 'd', workspaceId: 'w', content: { channel: 'ms_teams', text: 'x' }, identity, config: config(), idempotencyKey: 'k' });
    expect(result).toMatchObject({ ok: false, retryable: false, reason: expect.stringContaining('invalid_client') });
    expect(JSON.stringify(result)).not.toContain('bot-secret');
  });

  it('a 401 of the Bot Framework drops the cached token, so the retry fetches a new one', async () => {
    const identity = { ...conversation, service_url: server.url };
    server.respond(token('revoked'), { status: 401, body: { message: 'Authorization has been denied' } }, token('fresh'), { status: 201, body: {} });
    expect(await send(identity)).toMatchObject({ ok: false, retryable: true });
    expect(await send(identity)).toMatchObject({ ok: true });
    expect(at(3).headers.authorization).toBe('Bearer fresh');
  });

  it('refuses a service_url off the vendor base_url, and the bot forms without bot credentials, before any call', async () => {
    await expect(send({ ...conversation, service_url: 'https://collector.example/' })).rejects.toThrow(/service_url is not on the Bot Framework service/);
    await expect(send({ ...conversation, service_url: server.url }, undefined, config({}))).rejects.toThrow(/needs the bot credentials app_id and app_password/);
    await expect(send({ service_url: server.url, user_id: 'u' })).rejects.toThrow(/needs tenant_id/);
    expect(server.requests).toHaveLength(0);
  });
});
