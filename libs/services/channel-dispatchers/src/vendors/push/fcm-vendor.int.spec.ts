import { generateKeyPairSync } from 'node:crypto';
import { PushContent } from '@herald/rendering';
import { LocalFcmServer } from '../../testing/local-fcm-server';
import { GuardedHttp } from '../http/guarded-http';
import { SendResult, VendorConfig } from '../vendor.port';
import { FcmVendor } from './fcm-vendor';

const CLIENT_EMAIL = 'herald-push@herald-test.iam.gserviceaccount.com';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const http = new GuardedHttp(['127.0.0.0/8']);
const content: PushContent = { channel: 'androidpush', title: 'Order shipped', body: 'Arrives Tuesday', imageUrl: 'https://cdn.test/box.png', deepLink: 'acme://orders/1', data: { order: '1' } };

let clock: number;
const now = (): number => clock;
let fcm: LocalFcmServer;
let vendor: FcmVendor;
beforeEach(async () => {
  clock = Date.now();
  fcm = await LocalFcmServer.start(publicKey, CLIENT_EMAIL, now);
  vendor = new FcmVendor(http, now);
});
afterEach(() => fcm.close());
afterAll(() => http.close());

function config(version = 1): VendorConfig {
  const serviceAccount = {
    type: 'service_account',
    project_id: 'herald-test',
    private_key_id: 'key-1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    client_email: CLIENT_EMAIL,
    // Where the dispatcher gets its OAuth token: the local server, as the vendor catalogue intends.
    token_uri: fcm.tokenUri,
  };
  return { id: 'fcm', channel: 'androidpush', vendor: 'fcm', priority: 1, baseUrl: fcm.url, settings: {}, credentials: { service_account_json: JSON.stringify(serviceAccount) }, version };
}
const send = (vendorConfig = config()): Promise<SendResult> =>
  vendor.send({ deliveryId: 'd-1', workspaceId: 'w', content, identity: 'device-token-1', config: vendorConfig, idempotencyKey: 'idem-1' });

describe('FcmVendor', () => {
  it('exchanges a signed RS256 assertion for a token, then sends the message with it to messages:send', async () => {
    expect(await send()).toEqual({ ok: true, vendorMessageId: 'projects/herald-test/messages/0:1' });
    expect(fcm.assertions).toHaveLength(1);
    expect(fcm.assertions[0]).toMatchObject({ iss: CLIENT_EMAIL, aud: fcm.tokenUri, scope: 'https://www.googleapis.com/auth/firebase.messaging' });
    expect(fcm.pushes[0]).toEqual({
      path: '/v1/projects/herald-test/messages:send',
      authorization: expect.stringMatching(/^Bearer ya29\.local-1-/),
      message: {
        token: 'device-token-1',
        notification: { title: 'Order shipped', body: 'Arrives Tuesday', image: 'https://cdn.test/box.png' },
        data: { order: '1', deep_link: 'acme://orders/1' },
        android: { priority: 'high' },
      },
    });
  });

  it('keeps the token until shortly before it expires, then fetches a new one; a new configuration version gets its own', async () => {
    await send();
    await send();
    expect(fcm.assertions).toHaveLength(1);
    clock += 3599_000 - 4 * 60_000; // inside the renewal margin
    await send();
    expect(fcm.assertions).toHaveLength(2);
    await send(config(2));
    expect(fcm.assertions).toHaveLength(3);
    expect(fcm.pushes).toHaveLength(4);
  });

  it('UNREGISTERED and INVALID_ARGUMENT are permanent, 429 and 503 retryable', async () => {
    fcm.failWith(
      { status: 404, errorStatus: 'NOT_FOUND', errorCode: 'UNREGISTERED' },
      { status: 400, errorStatus: 'INVALID_ARGUMENT', errorCode: 'INVALID_ARGUMENT' },
      { status: 429, errorStatus: 'RESOURCE_EXHAUSTED', errorCode: 'QUOTA_EXCEEDED' },
      { status: 503, errorStatus: 'UNAVAILABLE', errorCode: 'UNAVAILABLE' },
    );
    expect(await send()).toEqual({ ok: false, retryable: false, reason: 'fcm answered 404: UNREGISTERED: scripted NOT_FOUND' });
    expect(await send()).toMatchObject({ ok: false, retryable: false, reason: expect.stringContaining('INVALID_ARGUMENT') });
    expect(await send()).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('QUOTA_EXCEEDED') });
    expect(await send()).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('UNAVAILABLE') });
  });

  it('a revoked token is dropped and the retry gets a new one; a key the token endpoint refuses is permanent', async () => {
    await send();
    fcm.revokeTokens();
    expect(await send()).toMatchObject({ ok: false, retryable: true, reason: expect.stringContaining('UNAUTHENTICATED') });
    expect(await send()).toMatchObject({ ok: true });
    expect(fcm.assertions).toHaveLength(2);

    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    const account = { ...(JSON.parse(config().credentials.service_account_json as string) as object), private_key: otherKey };
    const refused = await send({ ...config(3), credentials: { service_account_json: JSON.stringify(account) } });
    expect(refused).toMatchObject({ ok: false, retryable: false, reason: expect.stringContaining('invalid_grant') });
    expect(JSON.stringify(refused)).not.toContain('PRIVATE KEY');
  });
});
