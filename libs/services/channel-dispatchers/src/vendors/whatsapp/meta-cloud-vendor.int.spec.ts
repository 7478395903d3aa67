import { RenderedContent } from '@herald/rendering';
import { RecordingServer } from '../../testing/recording-server';
import { GuardedHttp } from '../http/guarded-http';
import { SendResult, VendorConfig } from '../vendor.port';
import { MetaCloudVendor } from './meta-cloud-vendor';

const http = new GuardedHttp(['127.0.0.0/8']);
const whatsapp = new MetaCloudVendor(http);
let server: RecordingServer;
beforeEach(async () => {
  server = await RecordingServer.start();
});
afterEach(() => server.close());
afterAll(() => http.close());

const config = (settings: Record<string, unknown> = {}): VendorConfig => ({
  id: 'wa',
  channel: 'whatsapp',
  vendor: 'meta_cloud',
  priority: 1,
  baseUrl: server.url,
  settings,
  credentials: { access_token: 'EAAG-token', phone_number_id: '106540352242922' },
  version: 1,
});
const send = (content: RenderedContent, settings?: Record<string, unknown>): Promise<SendResult> =>
  whatsapp.send({ deliveryId: 'd-1', workspaceId: 'w', content, identity: '+4915112345678', config: config(settings), idempotencyKey: 'idem-1' });
const lastRequest = () => server.requests[server.requests.length - 1];
const jsonBody = () => JSON.parse(lastRequest().body) as Record<string, unknown>;

const template: RenderedContent = { channel: 'whatsapp', kind: 'template', name: 'order_update', language: 'en_US', parameters: ['Ada', '#1234'] };
const answered = { status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: '4915112345678', wa_id: '4915112345678' }], messages: [{ id: 'wamid.HBgM' }] } };

describe('MetaCloudVendor', () => {
  it('posts a template message to /{version}/{phone_number_id}/messages with the Bearer token, body parameters as a body component', async () => {
    server.respond(answered);
    expect(await send(template)).toEqual({ ok: true, vendorMessageId: 'wamid.HBgM' });
    expect(lastRequest()).toMatchObject({
      method: 'POST',
      path: '/v21.0/106540352242922/messages',
      headers: { authorization: 'Bearer EAAG-token', 'content-type': 'application/json' },
    });
    expect(jsonBody()).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '4915112345678',
      type: 'template',
      template: { name: 'order_update', language: { code: 'en_US' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ada' }, { type: 'text', text: '#1234' }] }] },
      biz_opaque_callback_data: 'd-1',
    });
  });

  it('sends the content components as given, free text as a text message, and the API version of the settings', async () => {
    const components = [{ type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.test/a.png' } }] }, { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'x1' }] }];
    server.respond(answered, answered);
    await send({ ...template, components }, { api_version: 'v19.0' });
    expect(lastRequest().path).toBe('/v19.0/106540352242922/messages');
    expect(jsonBody().template).toEqual({ name: 'order_update', language: { code: 'en_US' }, components });
    await send({ channel: 'whatsapp', kind: 'text', text: 'Your order shipped' });
    expect(jsonBody()).toMatchObject({ type: 'text', text: { body: 'Your order shipped', preview_url: false } });
  });

  it('rate limits (429, or code 130429 with 400) are retryable; an invalid parameter (400, code 100) and a bad token (401) permanent', async () => {
    server.respond(
      { status: 429, body: { error: { message: 'Rate limit hit', code: 130429 } } },
      { status: 400, body: { error: { message: '(#4) Application request limit reached', code: 4 } } },
      { status: 400, body: { error: { message: '(#100) Invalid parameter', type: 'OAuthException', code: 100 } } },
      { status: 401, body: { error: { message: 'Error validating access token', code: 190 } } },
    );
    expect(await send(template)).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('130429') });
    expect(await send(template)).toMatchObject({ ok: false, retryable: true });
    expect(await send(template)).toEqual({ ok: false, retryable: false, reason: 'meta_cloud answered 400: error 100: (#100) Invalid parameter' });
    const refused = await send(template);
    expect(refused).toMatchObject({ ok: false, retryable: false });
    expect(JSON.stringify(refused)).not.toContain('EAAG-token');
  });
});
