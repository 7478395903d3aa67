import { KeyObject, generateKeyPairSync, randomBytes } from 'node:crypto';
import { IncomingHttpHeaders, request } from 'node:http';
import { mintUserToken, sdkSignedRequest } from '@herald/runtime';
import { expectEventually, fetchJson, heraldEnv } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';

type Answer = { status: number; retryAfter?: string; body: Record<string, unknown>; headers: IncomingHttpHeaders };

/** One request from a given loopback address (on Linux any 127.x.y.z is this host): each address is its own client to Herald. */
function from(localAddress: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: init.method ?? 'GET', headers: init.headers, localAddress, agent: false }, (incoming) => {
      let text = '';
      incoming.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      incoming.on('end', () => {
        const retryAfter = incoming.headers['retry-after'];
        resolve({ status: incoming.statusCode ?? 0, retryAfter, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: incoming.headers });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

const PER_ADDRESS = 5;
const WINDOW_SECONDS = 600;

/**
 * Failed authentications are limited on every guard of both APIs (API key, SDK
 * signature, browser public key and user token, ServiceToken): after PER_ADDRESS failures
 * from one address, every attempt from it is 429 with Retry-After and Herald's error
 * body, the right credential included, while the right credential from another address
 * still works. The window's end is proven by AuthFailureLimiter's unit test on a clock.
 */
describe('limits on failed authentications (embedded)', () => {
  const [mode] = heraldModes('authlimits');
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const workspaceKey = `hwk_${randomBytes(16).toString('hex')}`;
  const workspaceSecret = `hws_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let publicKey: string;
  let signingKeyPem: string;

  const management = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const answer = await fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(answer.status).toBeLessThan(300);
    return answer.body;
  };
  const now = (): number => Math.floor(Date.now() / 1000);
  const inbox = (address: string, key: string, token: string): Promise<Answer> =>
    from(address, `${herald.baseUrl}v1/user/alice/inbox/`, { headers: { authorization: key, 'x-ss-signature': token } });

  /** PER_ADDRESS refusals (401), then 429 with Retry-After and the error body, even for `right` from the same address. */
  async function expectLimitedAfterFailures(wrong: () => Promise<Answer>, right: () => Promise<Answer>): Promise<void> {
    for (let attempt = 0; attempt < PER_ADDRESS; attempt++) expect((await wrong()).status).toBe(401);
    const limited = await wrong();
    expect(limited).toMatchObject({ status: 429, body: { code: 429, error_code: 'rate_limited', type: 'Throttled' } });
    expect(Number(limited.retryAfter)).toBeGreaterThan(WINDOW_SECONDS - 60);
    expect(Number(limited.retryAfter)).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(String(limited.body.message)).toMatch(/too many failed authentications from this address/);
    expect((await right()).status).toBe(429);
  }

  beforeAll(async () => {
    const prepared = await mode.prepare();
    dispose = prepared.dispose;
    herald = await startEmbeddedHerald(
      heraldEnv({
        ...prepared.env,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_BOOTSTRAP_WORKSPACE_KEY: workspaceKey,
        HERALD_BOOTSTRAP_WORKSPACE_SECRET: workspaceSecret,
        HERALD_AUTH_MAX_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
        HERALD_AUTH_MAX_FAILURES_PER_CREDENTIAL: '50',
        HERALD_AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW_SECONDS),
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    signingKeyPem = ((await management('POST', 'v1/staging/ws_signing_key/')) as { private_key_pem: string }).private_key_pem;
    publicKey = ((await management('POST', 'v1/staging/ws_public_key/', { name: 'web', allowed_domains: ['https://app.example.com'] })) as { api_key: string }).api_key;
    // The credentials reach the services through the bus; polled from an address no test uses.
    await expectEventually(async () => expect((await from('127.0.1.1', `${herald.baseUrl}v1/user/alice/inbox/`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200), { timeoutMs: 30_000 });
    await expectEventually(async () => expect((await inbox('127.0.1.2', publicKey, mintUserToken(signingKeyPem, { distinct_id: 'alice', iat: now(), exp: now() + 300 }))).status).toBe(200), {
      timeoutMs: 30_000,
    });
  }, 120_000);

  afterAll(async () => {
    await herald?.stop();
    await dispose?.();
  });

  it('limits wrong API keys per address; the right key from another address still works', async () => {
    const trigger = (address: string, key: string): Promise<Answer> =>
      from(address, `${herald.baseUrl}trigger/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workflow: 'no-such-workflow', recipients: ['x'] }),
      });
    await expectLimitedAfterFailures(() => trigger('127.0.2.1', `hak_${randomBytes(24).toString('base64url')}`), () => trigger('127.0.2.1', apiKey));
    expect((await trigger('127.0.2.2', apiKey)).status).toBe(404);
  });

  it('limits wrong SDK signatures per address; a right signature with the same workspace key from another address still works', async () => {
    const signed = (address: string, secret: string): Promise<Answer> => {
      const url = `${herald.baseUrl}v1/user/auth-limit-probe/`;
      const init = sdkSignedRequest(url, 'GET', { workspaceKey, secret });
      return from(address, url, { method: 'GET', headers: init.headers as Record<string, string> });
    };
    await expectLimitedAfterFailures(() => signed('127.0.3.1', 'not-the-secret'), () => signed('127.0.3.1', workspaceSecret));
    expect((await signed('127.0.3.2', workspaceSecret)).status).toBe(404);
  });

  it("limits a browser's forged user tokens per address, but never counts an honest expired token", async () => {
    const forger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const token = (pem: string | KeyObject, claims: Record<string, unknown> = {}): string => mintUserToken(pem, { distinct_id: 'alice', iat: now(), exp: now() + 300, ...claims });
    for (let attempt = 0; attempt < PER_ADDRESS * 2; attempt++) {
      expect(await inbox('127.0.4.3', publicKey, token(signingKeyPem, { iat: now() - 600, exp: now() - 1 }))).toMatchObject({ status: 401, body: { message: 'user token expired' } });
    }
    expect((await inbox('127.0.4.3', publicKey, token(signingKeyPem))).status).toBe(200);
    await expectLimitedAfterFailures(() => inbox('127.0.4.1', publicKey, token(forger)), () => inbox('127.0.4.1', publicKey, token(signingKeyPem)));
    expect((await inbox('127.0.4.2', publicKey, token(signingKeyPem))).status).toBe(200);
  });

  it("answers a browser's 429 (inbox, user preferences) with the CORS headers of any answer to its allowed origin, and none to another origin", async () => {
    const forger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const forged = (): string => mintUserToken(forger, { distinct_id: 'alice', iat: now(), exp: now() + 300 });
    const page = 'https://app.example.com';
    const browser = (path: string, origin: string): Promise<Answer> =>
      from('127.0.7.1', `${herald.baseUrl}${path}`, { headers: { authorization: publicKey, 'x-ss-signature': forged(), origin } });
    for (let attempt = 0; attempt < PER_ADDRESS; attempt++) expect((await browser('v1/user/alice/inbox/', page)).status).toBe(401);
    const cors = { 'access-control-allow-origin': page, 'access-control-expose-headers': 'Retry-After', vary: 'Origin' };
    for (const path of ['v1/user/alice/inbox/', 'v1/user/alice/preference/']) {
      const limited = await browser(path, page);
      expect({ path, status: limited.status, error_code: limited.body.error_code, retryAfter: Number(limited.retryAfter) > 0 }).toEqual({
        path,
        status: 429,
        error_code: 'rate_limited',
        retryAfter: true,
      });
      expect(limited.headers).toMatchObject(cors);
      const elsewhere = await browser(path, 'https://evil.example.net');
      expect({ path, status: elsewhere.status, allowOrigin: elsewhere.headers['access-control-allow-origin'] }).toEqual({ path, status: 429, allowOrigin: undefined });
    }
  });

  it('refuses a user token living longer than the maximum lifetime (30 days by default), saying why', async () => {
    const tenYears = mintUserToken(signingKeyPem, { distinct_id: 'alice', iat: now(), exp: now() + 10 * 365 * 86_400 });
    expect(await inbox('127.0.5.1', publicKey, tenYears)).toMatchObject({ status: 401, body: { error_code: 'authentication_failed', message: expect.stringMatching(/lives longer than 2592000 seconds/) } });
    const aDay = mintUserToken(signingKeyPem, { distinct_id: 'alice', iat: now(), exp: now() + 86_400 });
    expect((await inbox('127.0.5.1', publicKey, aDay)).status).toBe(200);
  });

  it('limits wrong service tokens per address on the management API; the right token from another address still works', async () => {
    const workspaces = (address: string, token: string): Promise<Answer> =>
      from(address, `${herald.managementUrl}v1/workspace/`, { headers: { authorization: `ServiceToken ${token}` } });
    await expectLimitedAfterFailures(() => workspaces('127.0.6.1', `hst_${randomBytes(24).toString('base64url')}`), () => workspaces('127.0.6.1', serviceToken));
    expect((await workspaces('127.0.6.2', serviceToken)).status).toBe(200);
  });
});
