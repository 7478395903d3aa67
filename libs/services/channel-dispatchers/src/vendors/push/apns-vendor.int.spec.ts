import { generateKeyPairSync } from 'node:crypto';
import { PushContent } from '@herald/rendering';
import { LocalApnsServer } from '../../testing/local-apns-server';
import { AddressGuard } from '../net/address-guard';
import { SendResult, VendorConfig } from '../vendor.port';
import { ApnsVendor } from './apns-vendor';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const IDENTITY = { publicKey, keyId: 'ABC123DEFG', teamId: 'DEF123GHIJ', bundleId: 'com.acme.app' };
const DEVICE = 'a'.repeat(64);
const content: PushContent = { channel: 'iospush', title: 'Order shipped', body: 'Arrives Tuesday', deepLink: 'acme://orders/1', data: { order: '1' } };

let apns: LocalApnsServer;
let vendor: ApnsVendor;
beforeEach(async () => {
  apns = await LocalApnsServer.start(IDENTITY);
  // The local server listens on loopback, which the outbound rule refuses unless allowed.
  vendor = new ApnsVendor(new AddressGuard(['127.0.0.0/8']));
});
afterEach(async () => {
  vendor.close();
  await apns.close();
});

const config = (baseUrl = apns.url): VendorConfig => ({
  id: 'apns',
  channel: 'iospush',
  vendor: 'apns',
  priority: 1,
  // h2c: the local server speaks HTTP/2 without TLS; production base URLs are https.
  baseUrl,
  settings: {},
  credentials: {
    team_id: IDENTITY.teamId,
    key_id: IDENTITY.keyId,
    private_key_p8: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    bundle_id: IDENTITY.bundleId,
    environment: 'sandbox',
  },
  version: 1,
});
const send = (vendorConfig = config(), idempotencyKey = '6f1c2a8e-3b7d-4c59-9e0a-1d2b3c4d5e6f'): Promise<SendResult> =>
  vendor.send({ deliveryId: 'd-1', workspaceId: 'w', content, identity: DEVICE, config: vendorConfig, idempotencyKey });

describe('ApnsVendor', () => {
  it('posts to /3/device/<token> over HTTP/2 with an ES256 provider token, topic, push type and priority', async () => {
    expect(await send()).toEqual({ ok: true, vendorMessageId: '6f1c2a8e-3b7d-4c59-9e0a-1d2b3c4d5e6f' });
    const [received] = apns.notifications;
    expect(received.deviceToken).toBe(DEVICE);
    expect(received.headers).toMatchObject({ 'apns-topic': 'com.acme.app', 'apns-push-type': 'alert', 'apns-priority': '10', 'apns-id': '6f1c2a8e-3b7d-4c59-9e0a-1d2b3c4d5e6f' });
    expect(received.jwt).toMatchObject({ header: { alg: 'ES256', kid: IDENTITY.keyId }, claims: { iss: IDENTITY.teamId } });
    expect(received.payload).toEqual({ order: '1', deep_link: 'acme://orders/1', aps: { alert: { title: 'Order shipped', body: 'Arrives Tuesday' }, sound: 'default' } });
  });

  it('reuses one connection and one provider token for many notifications', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, index) => send(config(), `6f1c2a8e-3b7d-4c59-9e0a-${String(index).padStart(12, '0')}`)));
    expect(results.every((result) => result.ok)).toBe(true);
    expect(apns.sessions).toBe(1);
    expect(new Set(apns.notifications.map((n) => n.headers.authorization)).size).toBe(1);
  });

  it('410 Unregistered and 400 BadDeviceToken are permanent, 429 and 503 retryable', async () => {
    apns.failWith({ status: 410, reason: 'Unregistered' }, { status: 400, reason: 'BadDeviceToken' }, { status: 429, reason: 'TooManyRequests' }, { status: 503, reason: 'ServiceUnavailable' });
    expect(await send()).toEqual({ ok: false, retryable: false, reason: 'apns answered 410: Unregistered' });
    expect(await send()).toEqual({ ok: false, retryable: false, reason: 'apns answered 400: BadDeviceToken' });
    expect(await send()).toEqual({ ok: false, retryable: true, reason: 'apns answered 429: TooManyRequests' });
    expect(await send()).toEqual({ ok: false, retryable: true, reason: 'apns answered 503: ServiceUnavailable' });
  });

  it('a token signed with another key is refused permanently, and the key never appears in the reason', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const result = await send({ ...config(), id: 'other', credentials: { ...config().credentials, private_key_p8: other } });
    expect(result).toEqual({ ok: false, retryable: false, reason: 'apns answered 403: InvalidProviderToken' });
  });

  it('checks the HTTP/2 connection against the outbound rule: loopback is refused unless allowed', async () => {
    const guarded = new ApnsVendor(new AddressGuard([]));
    try {
      const result = await guarded.send({ deliveryId: 'd-1', workspaceId: 'w', content, identity: DEVICE, config: config(), idempotencyKey: 'k' });
      expect(result).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('(loopback), which is not allowed') });
      expect(apns.sessions).toBe(0);
    } finally {
      guarded.close();
    }
  });

  it('an APNs host that does not answer is retryable', async () => {
    expect(await send(config('http://127.0.0.1:1'))).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('apns unreachable') });
  });
});
