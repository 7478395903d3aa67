import { createECDH, randomBytes } from 'node:crypto';
import webpush from 'web-push';
import { WebpushContent } from '@herald/rendering';
import { LocalPushService } from '../../testing/local-push-service';
import { GuardedHttp } from '../http/guarded-http';
import { SendResult, VendorConfig } from '../vendor.port';
import { WebpushVendor } from './webpush-vendor';

const vapidKeys = webpush.generateVAPIDKeys();
const browser = createECDH('prime256v1');
browser.generateKeys();
const authSecret = randomBytes(16);
const content: WebpushContent = { channel: 'webpush', title: 'Order shipped', body: 'Arrives Tuesday', icon: 'https://cdn.test/i.png', url: 'https://acme.test/orders/1' };

const http = new GuardedHttp(['127.0.0.0/8']);
const vendor = new WebpushVendor(http);
let service: LocalPushService;
beforeEach(async () => {
  service = await LocalPushService.start({ ecdh: browser, authSecret });
});
afterEach(() => service.close());
afterAll(() => http.close());

const config = (settings: Record<string, unknown> = {}): VendorConfig => ({
  id: 'vapid',
  channel: 'webpush',
  vendor: 'vapid',
  priority: 1,
  baseUrl: null,
  settings,
  credentials: { public_key: vapidKeys.publicKey, private_key: vapidKeys.privateKey, subject: 'mailto:push@acme.test' },
  version: 1,
});
const subscription = () => ({ endpoint: `${service.url}/push/sub-1`, keys: { p256dh: browser.getPublicKey().toString('base64url'), auth: authSecret.toString('base64url') } });
const send = (identity: unknown = subscription(), settings?: Record<string, unknown>): Promise<SendResult> =>
  vendor.send({ deliveryId: 'd-1', workspaceId: 'w', content, identity, config: config(settings), idempotencyKey: 'idem-1' });

describe('WebpushVendor', () => {
  it('pushes to the endpoint with a VAPID header the push service verifies, aes128gcm that the browser keys decrypt, and a TTL', async () => {
    expect(await send()).toEqual({ ok: true, vendorMessageId: `${service.url}/message/1` });
    const [push] = service.received;
    expect(push.path).toBe('/push/sub-1');
    expect(push.vapid).toEqual({ publicKey: vapidKeys.publicKey, claims: expect.objectContaining({ aud: service.url, sub: 'mailto:push@acme.test' }) });
    expect(push.headers).toMatchObject({ 'content-encoding': 'aes128gcm', ttl: '86400', 'content-type': 'application/octet-stream' });
    expect(JSON.parse(push.payload)).toEqual({
      title: 'Order shipped',
      body: 'Arrives Tuesday',
      icon: 'https://cdn.test/i.png',
      url: 'https://acme.test/orders/1',
      delivery_id: 'd-1',
      // What SuprSend's service worker reads: the id its events report, the URL a click opens.
      data: { notification_id: 'd-1', launch_urls: { default: 'https://acme.test/orders/1' } },
    });
  });

  it('takes the subscription as JSON text too, and the TTL of the settings', async () => {
    expect(await send(JSON.stringify(subscription()), { ttl_seconds: 60 })).toMatchObject({ ok: true });
    expect(service.received[0].headers.ttl).toBe('60');
  });

  it('404 and 410 mean the subscription is gone (permanent); 429 and 5xx are retryable', async () => {
    service.failWith(410, 404, 429, 502);
    expect(await send()).toEqual({ ok: false, retryable: false, reason: 'vapid: the push subscription is gone (410)' });
    expect(await send()).toEqual({ ok: false, retryable: false, reason: 'vapid: the push subscription is gone (404)' });
    expect(await send()).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('429') });
    expect(await send()).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('502') });
  });

  it('refuses a subscription without usable keys, and an endpoint on an address the outbound rule refuses', async () => {
    await expect(send({ endpoint: `${service.url}/push/x`, keys: { p256dh: 'short', auth: 'x' } })).rejects.toThrow('keys.p256dh');
    const refusing = new GuardedHttp([]);
    try {
      const result = await new WebpushVendor(refusing).send({ deliveryId: 'd-1', workspaceId: 'w', content, identity: subscription(), config: config(), idempotencyKey: 'k' });
      // A refused address is retried like every outbound-rule refusal: HERALD_OUTBOUND_ALLOW may be fixed meanwhile.
      expect(result).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('loopback') });
      expect(service.received).toHaveLength(0);
    } finally {
      refusing.close();
    }
  });
});
