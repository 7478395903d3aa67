/**
 * Requests are signed with the signing helper of @suprsend/node-sdk itself
 * (node_modules/@suprsend/node-sdk/dist/signature.js, the code every SDK call runs), so a
 * pass here means Herald accepts what the SDK produces. The live SDK against a local
 * HTTP server is exercised in sdk-signature.int.spec.ts.
 */
import { createHash, createHmac } from 'node:crypto';
import sdkRequestSignature from '@suprsend/node-sdk/dist/signature';
import {
  computeSdkSignature,
  contentMd5Hex,
  parseSdkAuthorization,
  SdkSignedRequest,
  signSdkRequest,
  stringToSign,
  verifySdkSignature,
} from './sdk-signature';

const BASE_URL = 'https://herald.example.com/'; // host and scheme are not signed
const KEY = 'wk_test_0001';
const SECRET = 'ss_secret_abc123';
const OTHER_SECRET = 'ss_secret_other';
// What the SDK sends: default_headers() in @suprsend/node-sdk src/index.js:171-178.
const CONTENT_TYPE = 'application/json; charset=utf-8';
const NOW = new Date(Date.UTC(2026, 10, 21, 6, 0, 0));
const MINUTE = 60_000;

const secrets: Record<string, string> = { [KEY]: SECRET };
const lookup = (workspaceKey: string): string | undefined => secrets[workspaceKey];

/** A request as the SDK builds and signs it (get_request_signature(url, verb, content, headers, secret)). */
function sdkRequest(opts: {
  method: string;
  path: string; // relative to BASE_URL, may carry a query
  body?: string;
  date?: Date;
  dateHeader?: string;
  secret?: string;
  key?: string;
}): SdkSignedRequest {
  const dateHeader = opts.dateHeader ?? (opts.date ?? NOW).toUTCString();
  const url = `${BASE_URL}${opts.path}`;
  const content = opts.body ?? '';
  const headers = { 'Content-Type': CONTENT_TYPE, Date: dateHeader };
  const signature = sdkRequestSignature(url, opts.method, content, headers, opts.secret ?? SECRET);
  const target = new URL(url);
  return {
    method: opts.method,
    requestUri: target.pathname + target.search, // what axios puts on the request line
    contentType: CONTENT_TYPE,
    date: dateHeader,
    body: content === '' ? undefined : Buffer.from(content, 'utf8'),
    authorization: `${opts.key ?? KEY}:${signature}`,
  };
}

const triggerBody = JSON.stringify({
  workflow: 'order-shipped',
  recipients: [{ distinct_id: 'zoë@example.com', $email: ['zoë@example.com'] }],
  data: { items: ['Äpfel', '寿司'], total: 12.5 },
  $idempotency_key: 'order-42',
});

describe('stringToSign / computeSdkSignature', () => {
  it('produce exactly the signature of the SDK signing helper', () => {
    const cases: { method: string; path: string; body: string }[] = [
      { method: 'POST', path: 'trigger/', body: triggerBody },
      { method: 'POST', path: 'trigger/', body: `[${triggerBody},${triggerBody}]` },
      { method: 'POST', path: `${KEY}/trigger/`, body: '{"name":"x"}' },
      { method: 'GET', path: 'v1/user/?limit=5&after=a+b', body: '' },
      { method: 'DELETE', path: 'v1/bulk/user/', body: '{"distinct_ids":["a"]}' },
      { method: 'PATCH', path: 'v1/subscriber_list/l1/delete/', body: '{}' },
    ];
    for (const c of cases) {
      const date = NOW.toUTCString();
      const url = `${BASE_URL}${c.path}`;
      const expected = sdkRequestSignature(url, c.method, c.body, { 'Content-Type': CONTENT_TYPE, Date: date }, SECRET);
      const target = new URL(url);
      const parts = {
        method: c.method,
        contentMd5: contentMd5Hex(c.body === '' ? undefined : Buffer.from(c.body, 'utf8')),
        contentType: CONTENT_TYPE,
        date,
        requestUri: target.pathname + target.search,
      };
      expect(computeSdkSignature(parts, SECRET)).toBe(expected);
    }
  });

  it('is METHOD, md5 hex of the UTF-8 body, Content-Type, Date and request URI, joined by newlines', () => {
    const body = Buffer.from(triggerBody, 'utf8');
    const md5 = createHash('md5').update(body).digest('hex');
    const parts = { method: 'POST', contentMd5: contentMd5Hex(body), contentType: CONTENT_TYPE, date: 'Sat, 21 Nov 2026 06:00:00 GMT', requestUri: '/trigger/' };
    expect(parts.contentMd5).toBe(md5);
    expect(stringToSign(parts)).toBe(`POST\n${md5}\n${CONTENT_TYPE}\nSat, 21 Nov 2026 06:00:00 GMT\n/trigger/`);
    expect(computeSdkSignature(parts, SECRET)).toBe(createHmac('sha256', SECRET).update(stringToSign(parts)).digest('base64'));
  });

  it('signs an empty body as an empty md5 field, not as the md5 of nothing', () => {
    expect(contentMd5Hex(undefined)).toBe('');
    expect(contentMd5Hex(Buffer.alloc(0))).toBe('');
    const date = NOW.toUTCString();
    const viaSdk = sdkRequestSignature(`${BASE_URL}v1/user/u1/`, 'GET', '', { 'Content-Type': CONTENT_TYPE, Date: date }, SECRET);
    const parts = { method: 'GET', contentMd5: '', contentType: CONTENT_TYPE, date, requestUri: '/v1/user/u1/' };
    expect(computeSdkSignature(parts, SECRET)).toBe(viaSdk);
  });

  it('signSdkRequest builds the Authorization header the SDK would send', () => {
    const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody });
    expect(signSdkRequest({ ...req, date: req.date as string }, KEY, SECRET)).toBe(req.authorization);
  });
});

describe('verifySdkSignature', () => {
  it('accepts a request signed by the SDK and names its workspace key', () => {
    const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody });
    expect(verifySdkSignature(req, lookup, NOW)).toEqual({ ok: true, workspaceKey: KEY });
  });

  it('accepts bulk, legacy, event, GET, PATCH and DELETE requests signed by the SDK', () => {
    const reqs = [
      sdkRequest({ method: 'POST', path: 'trigger/', body: `[${triggerBody}]` }),
      sdkRequest({ method: 'POST', path: `${KEY}/trigger/`, body: '{"name":"w","template":"t","notification_category":"transactional","users":[],"data":{}}' }),
      sdkRequest({ method: 'POST', path: `${KEY}/broadcast/`, body: '{"list_id":"l"}' }),
      sdkRequest({ method: 'POST', path: 'event/', body: '{"event":"signed_up","distinct_id":"u1","properties":{}}' }),
      sdkRequest({ method: 'GET', path: 'v1/user/a%20b%40c/' }),
      sdkRequest({ method: 'PATCH', path: 'v1/user/u1/', body: '{"operations":[{"$set":{"name":"A"}}]}' }),
      sdkRequest({ method: 'DELETE', path: 'v1/user/u1/' }),
      sdkRequest({ method: 'DELETE', path: 'v1/bulk/object/teams/', body: '{"object_ids":["a"]}' }),
      sdkRequest({ method: 'GET', path: 'v1/subscriber_list?limit=20&offset=0' }),
    ];
    for (const req of reqs) expect(verifySdkSignature(req, lookup, NOW)).toEqual({ ok: true, workspaceKey: KEY });
  });

  it('rejects a tampered body', () => {
    const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody });
    const tampered = { ...req, body: Buffer.from(triggerBody.replace('order-shipped', 'order-refunded'), 'utf8') };
    expect(verifySdkSignature(tampered, lookup, NOW)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    const dropped = { ...req, body: undefined };
    expect(verifySdkSignature(dropped, lookup, NOW)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('checks the raw bytes: the same JSON re-serialized is a different body', () => {
    const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody });
    const reformatted = { ...req, body: Buffer.from(JSON.stringify(JSON.parse(triggerBody), null, 2), 'utf8') };
    expect(verifySdkSignature(reformatted, lookup, NOW)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('rejects a signature made with another secret', () => {
    const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody, secret: OTHER_SECRET });
    expect(verifySdkSignature(req, lookup, NOW)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('rejects an unknown workspace key', () => {
    const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody, key: 'wk_nobody' });
    expect(verifySdkSignature(req, lookup, NOW)).toMatchObject({ ok: false, reason: 'unknown_workspace_key' });
    expect(verifySdkSignature(req, () => '', NOW)).toMatchObject({ ok: false, reason: 'unknown_workspace_key' });
    expect(verifySdkSignature(req, () => [], NOW)).toMatchObject({ ok: false, reason: 'unknown_workspace_key' });
  });

  it('accepts either secret while a rotated one is still listed', () => {
    const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody, secret: OTHER_SECRET });
    expect(verifySdkSignature(req, () => [SECRET, OTHER_SECRET], NOW)).toEqual({ ok: true, workspaceKey: KEY });
  });

  it('rejects a Date 16 minutes off in either direction and accepts 15', () => {
    for (const offset of [-16, 16]) {
      const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody, date: new Date(NOW.getTime() + offset * MINUTE) });
      const result = verifySdkSignature(req, lookup, NOW);
      expect(result).toMatchObject({ ok: false, reason: 'date_out_of_range' });
      expect(!result.ok && result.detail).toContain(offset > 0 ? 'ahead of' : 'behind');
    }
    for (const offset of [-15, 15]) {
      const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody, date: new Date(NOW.getTime() + offset * MINUTE) });
      expect(verifySdkSignature(req, lookup, NOW)).toEqual({ ok: true, workspaceKey: KEY });
    }
    const justOver = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody, date: new Date(NOW.getTime() + 15 * MINUTE + 1000) });
    expect(verifySdkSignature(justOver, lookup, NOW)).toMatchObject({ ok: false, reason: 'date_out_of_range' });
  });

  it('rejects a signed request without a Date header', () => {
    const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody });
    expect(verifySdkSignature({ ...req, date: undefined }, lookup, NOW)).toMatchObject({ ok: false, reason: 'missing_date' });
    expect(verifySdkSignature({ ...req, date: ' ' }, lookup, NOW)).toMatchObject({ ok: false, reason: 'missing_date' });
  });

  it('rejects a Date that is not an HTTP date, even when it is signed', () => {
    for (const dateHeader of ['yesterday', '1763704800', 'Sat, 31 Nov 2026 06:00:00 GMT', 'Sat, 21 Nov 2026 06:00:00 +0000', 'Sat, 21 Nov 2026 06:00:00 CET']) {
      const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody, dateHeader });
      expect(verifySdkSignature(req, lookup, NOW)).toMatchObject({ ok: false, reason: 'malformed_date' });
    }
  });

  /** The Java SDK's SimpleDateFormat("EEE, d MMM yyyy HH:mm:ss z", zone UTC), also what Go's time.RFC1123 gives for a UTC time. */
  function javaSdkDate(date: Date): string {
    const [weekday, , month, year, time] = date.toUTCString().split(' ');
    return `${weekday} ${date.getUTCDate()} ${month} ${year} ${time} UTC`;
  }

  it.each([
    ['Python and Go SDKs (GMT, two-digit day)', (d: Date) => d.toUTCString()],
    ['Java SDK (UTC, one-digit day on days 1 to 9)', javaSdkDate],
  ])('accepts the Date of the %s within the same 15-minute window', (_sdk, format) => {
    const now = new Date(Date.UTC(2026, 10, 3, 20, 1, 15));
    expect(javaSdkDate(now)).toBe('Tue, 3 Nov 2026 20:01:15 UTC');
    for (const offset of [-15, 0, 15]) {
      const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody, dateHeader: format(new Date(now.getTime() + offset * MINUTE)) });
      expect(verifySdkSignature(req, lookup, now)).toEqual({ ok: true, workspaceKey: KEY });
    }
    for (const offset of [-16, 16]) {
      const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody, dateHeader: format(new Date(now.getTime() + offset * MINUTE)) });
      expect(verifySdkSignature(req, lookup, now)).toMatchObject({ ok: false, reason: 'date_out_of_range' });
    }
  });

  it('signs the Date header as sent: a different spelling of the same instant does not verify', () => {
    const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody });
    expect(verifySdkSignature({ ...req, date: NOW.toISOString() }, lookup, NOW)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('accepts the ISO 8601 Date the SDK messages API sends (messages_api.js __get_headers)', () => {
    const req = sdkRequest({ method: 'GET', path: 'v1/message/?limit=10', dateHeader: NOW.toISOString() });
    expect(verifySdkSignature(req, lookup, NOW)).toEqual({ ok: true, workspaceKey: KEY });
  });

  it('rejects malformed Authorization headers with a clear reason', () => {
    const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody });
    const sig = (req.authorization as string).split(':')[1];
    const cases: [string | undefined, string, string][] = [
      [undefined, 'missing_authorization', 'missing'],
      ['', 'missing_authorization', 'missing'],
      ['   ', 'missing_authorization', 'missing'],
      [sig, 'malformed_authorization', 'must be'],
      [`:${sig}`, 'malformed_authorization', 'workspace key'],
      [`${KEY}:`, 'malformed_authorization', 'base64'],
      [`${KEY}:not base64!`, 'malformed_authorization', 'base64'],
      [`${KEY}:${sig.slice(0, 20)}`, 'malformed_authorization', 'base64'],
      [`${KEY}:${Buffer.from(sig, 'base64').toString('hex')}`, 'malformed_authorization', 'base64'],
      [`wk with spaces:${sig}`, 'malformed_authorization', 'spaces'],
      ['Bearer some-api-key', 'malformed_authorization', 'Bearer'],
    ];
    for (const [authorization, reason, words] of cases) {
      const result = verifySdkSignature({ ...req, authorization }, lookup, NOW);
      expect(result).toMatchObject({ ok: false, reason });
      expect(!result.ok && result.detail).toContain(words);
    }
  });

  it('signs the query string: changing, dropping or adding it breaks the signature', () => {
    const req = sdkRequest({ method: 'GET', path: 'v1/user/?limit=5&after=cursor_1' });
    expect(verifySdkSignature(req, lookup, NOW)).toEqual({ ok: true, workspaceKey: KEY });
    for (const requestUri of ['/v1/user/?limit=1000&after=cursor_1', '/v1/user/', '/v1/user/?after=cursor_1&limit=5']) {
      expect(verifySdkSignature({ ...req, requestUri }, lookup, NOW)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    }
    const plain = sdkRequest({ method: 'GET', path: 'v1/user/u1/' });
    expect(verifySdkSignature({ ...plain, requestUri: '/v1/user/u1/?limit=1' }, lookup, NOW)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('signs the path, the method and the Content-Type', () => {
    const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody });
    expect(verifySdkSignature({ ...req, requestUri: '/event/' }, lookup, NOW)).toMatchObject({ reason: 'signature_mismatch' });
    expect(verifySdkSignature({ ...req, requestUri: `/${KEY}/trigger/` }, lookup, NOW)).toMatchObject({ reason: 'signature_mismatch' });
    expect(verifySdkSignature({ ...req, method: 'PATCH' }, lookup, NOW)).toMatchObject({ reason: 'signature_mismatch' });
    expect(verifySdkSignature({ ...req, contentType: 'application/json' }, lookup, NOW)).toMatchObject({ reason: 'signature_mismatch' });
    expect(verifySdkSignature({ ...req, contentType: undefined }, lookup, NOW)).toMatchObject({ reason: 'signature_mismatch' });
  });

  it('signs the base URL path prefix, so a prefix-stripping proxy breaks verification', () => {
    const date = NOW.toUTCString();
    const sig = sdkRequestSignature('https://gw.example.com/herald/trigger/', 'POST', triggerBody, { 'Content-Type': CONTENT_TYPE, Date: date }, SECRET);
    const base = { method: 'POST', contentType: CONTENT_TYPE, date, body: Buffer.from(triggerBody), authorization: `${KEY}:${sig}` };
    expect(verifySdkSignature({ ...base, requestUri: '/herald/trigger/' }, lookup, NOW)).toEqual({ ok: true, workspaceKey: KEY });
    expect(verifySdkSignature({ ...base, requestUri: '/trigger/' }, lookup, NOW)).toMatchObject({ reason: 'signature_mismatch' });
  });

  it('reduces an absolute-form request target to path and query', () => {
    const req = sdkRequest({ method: 'GET', path: 'v1/user/?limit=5' });
    expect(verifySdkSignature({ ...req, requestUri: 'http://127.0.0.1:3000/v1/user/?limit=5' }, lookup, NOW)).toEqual({ ok: true, workspaceKey: KEY });
  });

  it('also accepts the md5 of zero bytes for an empty body (clients following the spec literally)', () => {
    const date = NOW.toUTCString();
    const parts = { method: 'GET', contentMd5: 'd41d8cd98f00b204e9800998ecf8427e', contentType: CONTENT_TYPE, date, requestUri: '/v1/user/u1/' };
    const req = { method: 'GET', requestUri: '/v1/user/u1/', contentType: CONTENT_TYPE, date, body: undefined, authorization: `${KEY}:${computeSdkSignature(parts, SECRET)}` };
    expect(verifySdkSignature(req, lookup, NOW)).toEqual({ ok: true, workspaceKey: KEY });
  });

  it('also accepts the percent-decoded path the Go SDK signs (suprsend-go signature.go signs url.Path)', () => {
    const date = NOW.toUTCString();
    const parts = { method: 'GET', contentMd5: '', contentType: CONTENT_TYPE, date, requestUri: '/v1/user/zoë smith/subscribed_to/list/?limit=10' };
    const req = {
      method: 'GET',
      requestUri: '/v1/user/zo%C3%AB%20smith/subscribed_to/list/?limit=10',
      contentType: CONTENT_TYPE,
      date,
      body: undefined,
      authorization: `${KEY}:${computeSdkSignature(parts, SECRET)}`,
    };
    expect(verifySdkSignature(req, lookup, NOW)).toEqual({ ok: true, workspaceKey: KEY });
    expect(verifySdkSignature({ ...req, requestUri: '/v1/user/zo%C3%AB%20smitt/subscribed_to/list/?limit=10' }, lookup, NOW)).toMatchObject({
      reason: 'signature_mismatch',
    });
  });

  it('takes the clock window as a parameter', () => {
    const req = sdkRequest({ method: 'POST', path: 'trigger/', body: triggerBody, date: new Date(NOW.getTime() - 2 * MINUTE) });
    expect(verifySdkSignature(req, lookup, NOW, MINUTE)).toMatchObject({ ok: false, reason: 'date_out_of_range' });
  });
});

describe('parseSdkAuthorization', () => {
  it('splits at the last colon, so a workspace key may itself contain colons', () => {
    const sig = Buffer.alloc(32, 7).toString('base64');
    const parsed = parseSdkAuthorization(`ws:prod:key:${sig}`);
    expect(parsed).toMatchObject({ ok: true, workspaceKey: 'ws:prod:key' });
    expect(parsed.ok && parsed.signature.equals(Buffer.alloc(32, 7))).toBe(true);
  });
});
