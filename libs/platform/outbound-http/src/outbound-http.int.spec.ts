import { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { ExchangeEvent, OutboundHttp, OutboundHttpOptions, OutboundResult, createOutboundHttp, withRetries } from './index';
import { Handler, LocalServer, startLocalServer, startSilentServer } from './testing/local-server';

/** What the tests allow by default: the local servers live on loopback. */
const LOOPBACK = ['127.0.0.0/8', '::1/128'];

const clients: OutboundHttp[] = [];
const servers: LocalServer[] = [];

function client(options: Partial<OutboundHttpOptions> = {}): OutboundHttp {
  const created = createOutboundHttp({ allow: LOOPBACK, ...options });
  clients.push(created);
  return created;
}

async function server(handler: Handler, host?: string, port?: number): Promise<LocalServer> {
  const started = await startLocalServer(handler, host, port);
  servers.push(started);
  return started;
}

afterEach(async () => {
  clients.splice(0).forEach((c) => c.close());
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function redirect(response: ServerResponse, location: string, status = 302): void {
  response.writeHead(status, { location }).end();
}

function failureOf(result: OutboundResult) {
  if (result.ok) throw new Error(`expected a failure, got ${result.response.status}`);
  return result.failure;
}

function responseOf(result: OutboundResult) {
  if (!result.ok) throw new Error(`expected a response, got ${JSON.stringify(result.failure)}`);
  return result.response;
}

describe('outbound http: round trip', () => {
  it('sends method, query, headers, JSON body and idempotency key; returns status, headers, parsed body, duration', async () => {
    const echo = await server((request, response) => json(response, 201, { got: JSON.parse(request.body) }, { 'x-reply': 'yes' }));
    const result = await client().send({
      url: `${echo.origin}/hooks/1?a=1`,
      method: 'POST',
      query: { b: 2 },
      headers: { Authorization: 'Bearer t0ken', 'X-Custom': 'v' },
      body: { json: { hello: 'wörld' } },
      idempotencyKey: { header: 'Idempotency-Key', value: 'k-1' },
    });

    expect(result).toMatchObject({ ok: true, attempts: 1 });
    const response = responseOf(result);
    expect(response).toMatchObject({ status: 201, body: { got: { hello: 'wörld' } }, redirects: 0 });
    expect(response.headers).toMatchObject({ 'x-reply': 'yes', 'content-type': 'application/json' });
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
    expect(echo.requests).toHaveLength(1);
    expect(echo.requests[0]).toMatchObject({ method: 'POST', url: '/hooks/1?a=1&b=2', body: '{"hello":"wörld"}' });
    expect(echo.requests[0].headers).toMatchObject({
      authorization: 'Bearer t0ken',
      'x-custom': 'v',
      'idempotency-key': 'k-1',
      'content-type': 'application/json',
      'user-agent': 'Herald',
    });
  });

  it('sends a raw body with its content type and returns text as text', async () => {
    const echo = await server((request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(`got ${request.body}`));
    const result = await client().send({ url: echo.origin, method: 'PUT', body: { raw: 'a,b\n1,2', contentType: 'text/csv' } });
    expect(responseOf(result).body).toBe('got a,b\n1,2');
    expect(echo.requests[0].headers['content-type']).toBe('text/csv');
  });

  it('decompresses a gzipped response', async () => {
    const gzipped = await server((_, response) =>
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync('{"zipped":true}')),
    );
    expect(responseOf(await client().send({ url: gzipped.origin })).body).toEqual({ zipped: true });
  });

  it('hands back the raw bytes with responseType bytes, decompressed, whatever the content type says', async () => {
    // Not valid UTF-8 and labelled JSON: decoding would mangle it or try to parse it.
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x7b]);
    const files = await server((request, response) =>
      request.url === '/gz'
        ? response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(binary))
        : response.writeHead(200, { 'content-type': 'image/png' }).end(binary),
    );
    const plain = responseOf(await client().send({ url: `${files.origin}/png`, responseType: 'bytes' })).body;
    expect(Buffer.isBuffer(plain) && plain.equals(binary)).toBe(true);
    const zipped = responseOf(await client().send({ url: `${files.origin}/gz`, responseType: 'bytes' })).body;
    expect(Buffer.isBuffer(zipped) && zipped.equals(binary)).toBe(true);
    expect(failureOf(await client().send({ url: `${files.origin}/png`, responseType: 'bytes', maxResponseBytes: 4 }))).toMatchObject({ kind: 'too_large' });
  });

  it('reports a non-2xx as http_status with the whole response', async () => {
    const missing = await server((_, response) => json(response, 404, { error: 'no such hook' }));
    expect(failureOf(await client().send({ url: missing.origin }))).toMatchObject({
      kind: 'http_status',
      status: 404,
      response: { status: 404, body: { error: 'no such hook' } },
    });
  });

  it('reuses connections between requests to the same origin', async () => {
    const ok = await server((_, response) => response.end('ok'));
    const http = client();
    await http.send({ url: ok.origin });
    await http.send({ url: ok.origin });
    expect(ok.connections()).toBe(1);
  });

  it('reports a refused connection as a network failure', async () => {
    const gone = await startLocalServer(() => undefined);
    await gone.close();
    expect(failureOf(await client().send({ url: gone.origin }))).toMatchObject({ kind: 'network', code: 'ECONNREFUSED' });
  });

  it('refuses schemes other than http and https', async () => {
    expect(failureOf(await client().send({ url: 'data:application/json,{}' }))).toMatchObject({ kind: 'invalid_request' });
    expect(failureOf(await client().send({ url: 'file:///etc/passwd' }))).toMatchObject({ kind: 'invalid_request' });
  });
});

describe('outbound http: address guard', () => {
  it('refuses loopback when it is not allowed, without connecting', async () => {
    const target = await server((_, response) => response.end('reached'));
    const failure = failureOf(await client({ allow: [] }).send({ url: target.origin }));
    expect(failure).toEqual({
      kind: 'blocked_address',
      message: 'address 127.0.0.1 (loopback) is not allowed',
      host: '127.0.0.1',
      address: '127.0.0.1',
      category: 'loopback',
    });
    expect(target.connections()).toBe(0);
  });

  it('refuses a host name that resolves to loopback (localhost), and reaches it when allowed', async () => {
    const target = await server((_, response) => response.end('reached'));
    const url = `http://localhost:${target.port}/`;
    expect(failureOf(await client({ allow: [] }).send({ url }))).toMatchObject({ kind: 'blocked_address', host: 'localhost', category: 'loopback' });
    expect(target.connections()).toBe(0);
    expect(responseOf(await client().send({ url })).body).toBe('reached');
  });

  it.each([
    ['IPv6 loopback', 'http://[::1]:9/', 'loopback'],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]:9/', 'loopback'],
    ['a decimal IPv4 loopback', 'http://2130706433:9/', 'loopback'],
    ['the unspecified address', 'http://0.0.0.0:9/', 'unspecified'],
    ['a private address', 'http://10.0.0.1:9/', 'private'],
    ['an https loopback literal', 'https://127.0.0.1:9/', 'loopback'],
    ['an https loopback name', 'https://localhost:9/', 'loopback'],
  ])('refuses %s', async (_, url, category) => {
    expect(failureOf(await client({ allow: [] }).send({ url }))).toMatchObject({ kind: 'blocked_address', category });
  });

  it('refuses a metadata address even when a broad range is allowed', async () => {
    const http = client({ allow: ['169.254.0.0/16', '0.0.0.0/0'], connectTimeoutMs: 200 });
    expect(failureOf(await http.send({ url: 'http://169.254.169.254/latest/meta-data/' }))).toMatchObject({
      kind: 'blocked_address',
      category: 'metadata',
    });
  });

  it('connects to the address the guarded lookup approved, and only to it', async () => {
    const target = await server((request, response) => response.end(`host ${request.headers.host}`));
    const resolved: string[] = [];
    const resolve = async (hostname: string) => {
      resolved.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const url = `http://hooks.customer.example:${target.port}/`;
    expect(failureOf(await client({ allow: [], resolve }).send({ url }))).toMatchObject({
      kind: 'blocked_address',
      host: 'hooks.customer.example',
      address: '127.0.0.1',
    });
    expect(target.connections()).toBe(0);
    expect(responseOf(await client({ resolve }).send({ url })).body).toBe(`host hooks.customer.example:${target.port}`);
    expect(resolved).toEqual(['hooks.customer.example', 'hooks.customer.example']);
  });

  it('connects only to the allowed addresses of a name that resolves to several', async () => {
    const allowed = await server((_, response) => response.end('allowed one'), '127.0.0.1');
    const disallowed = await server((_, response) => response.end('disallowed one'), '127.0.0.2', allowed.port);
    const resolve = async () => [
      { address: '127.0.0.2', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const result = await client({ allow: ['127.0.0.1/32'], resolve }).send({ url: `http://mixed.example:${allowed.port}/` });
    expect(responseOf(result).body).toBe('allowed one');
    expect(disallowed.connections()).toBe(0);
  });

  it('refuses a redirect from an allowed address to a disallowed one, without connecting to it', async () => {
    const internal = await server((_, response) => response.end('internal secrets'), '127.0.0.2');
    const bouncer = await server((_, response) => redirect(response, `${internal.origin}/admin`));
    const failure = failureOf(await client({ allow: ['127.0.0.1/32'] }).send({ url: bouncer.origin }));
    expect(failure).toMatchObject({ kind: 'blocked_address', host: '127.0.0.2', category: 'loopback' });
    expect(internal.connections()).toBe(0);
    // The same redirect is followed when both are allowed: the refusal was the guard's.
    expect(responseOf(await client({ allow: ['127.0.0.0/8'] }).send({ url: bouncer.origin })).body).toBe('internal secrets');
  });

  it('refuses a redirect to a name that resolves to a disallowed address', async () => {
    const internal = await server((_, response) => response.end('internal secrets'), '127.0.0.1');
    const bouncer = await server((_, response) => redirect(response, `http://localhost:${internal.port}/`), '127.0.0.2');
    const failure = failureOf(await client({ allow: ['127.0.0.2/32'] }).send({ url: bouncer.origin }));
    expect(failure).toMatchObject({ kind: 'blocked_address', host: 'localhost', address: '127.0.0.1' });
    expect(bouncer.requests).toHaveLength(1);
    expect(internal.connections()).toBe(0);
  });

  it('rejects an allow list that is not CIDR ranges at construction', () => {
    expect(() => createOutboundHttp({ allow: ['127.0.0.1'] })).toThrow(/not address\/prefix/);
  });
});

describe('outbound http: limits', () => {
  it('times out a server that never answers', async () => {
    const silent = await server(() => undefined);
    const started = Date.now();
    expect(failureOf(await client().send({ url: silent.origin, timeoutMs: 200 }))).toMatchObject({ kind: 'timeout', phase: 'total' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('times out a body that trickles in forever', async () => {
    const trickle = await server((_, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => response.write('.'), 20);
      response.on('close', () => clearInterval(timer));
    });
    expect(failureOf(await client().send({ url: trickle.origin, timeoutMs: 300 }))).toMatchObject({ kind: 'timeout', phase: 'total' });
  });

  it('counts resolving into the connect timeout', async () => {
    const hang = () => new Promise<never>(() => undefined);
    const http = client({ resolve: hang, connectTimeoutMs: 100 });
    expect(failureOf(await http.send({ url: 'http://slow-dns.example/', timeoutMs: 5_000 }))).toMatchObject({ kind: 'timeout', phase: 'connect' });
  });

  it('counts the TLS handshake into the connect timeout', async () => {
    const silent = await startSilentServer();
    try {
      const http = client({ connectTimeoutMs: 150 });
      expect(failureOf(await http.send({ url: `https://127.0.0.1:${silent.port}/`, timeoutMs: 5_000 }))).toMatchObject({
        kind: 'timeout',
        phase: 'connect',
      });
    } finally {
      await silent.close();
    }
  });

  it('refuses a body over the size limit', async () => {
    const big = await server((_, response) => response.end('x'.repeat(2_000)));
    expect(failureOf(await client().send({ url: big.origin, maxResponseBytes: 1_000 }))).toEqual({
      kind: 'too_large',
      message: 'response body over 1000 bytes',
      limitBytes: 1_000,
    });
    expect(responseOf(await client().send({ url: big.origin, maxResponseBytes: 2_000 })).body).toHaveLength(2_000);
  });

  it('applies the size limit to the decompressed body', async () => {
    const bomb = await server((_, response) => response.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(1_000_000))));
    expect(failureOf(await client().send({ url: bomb.origin, maxResponseBytes: 10_000 }))).toMatchObject({ kind: 'too_large' });
  });

  it('reports an error response over the limit by its status, with the body cut', async () => {
    const failing = await server((_, response) => response.writeHead(502, { 'content-type': 'text/html' }).end('<p>'.repeat(5_000)));
    const failure = failureOf(await client().send({ url: failing.origin, maxResponseBytes: 100 }));
    expect(failure).toMatchObject({ kind: 'http_status', status: 502 });
    expect(failure.kind === 'http_status' && failure.response.body).toHaveLength(100);
  });
});

describe('outbound http: redirects', () => {
  it('follows a chain and counts the hops', async () => {
    const chain = await server((request, response) => {
      if (request.url === '/a') redirect(response, '/b', 301);
      else if (request.url === '/b') redirect(response, '/c', 308);
      else response.end(`at ${request.url}`);
    });
    expect(responseOf(await client().send({ url: `${chain.origin}/a` }))).toMatchObject({ body: 'at /c', redirects: 2 });
  });

  it.each([
    [3, 4],
    [0, 1],
  ])('stops after maxRedirects %i (%i requests)', async (maxRedirects, requests) => {
    const loop = await server((_, response) => redirect(response, '/again'));
    expect(failureOf(await client().send({ url: loop.origin, maxRedirects }))).toEqual({
      kind: 'too_many_redirects',
      message: `more redirects than the limit of ${maxRedirects}`,
      limit: maxRedirects,
    });
    expect(loop.requests).toHaveLength(requests);
  });

  it('turns a POST into a GET on 303 and repeats it on 307', async () => {
    const target = await server((request, response) => {
      if (request.url === '/see-other') redirect(response, '/landing', 303);
      else if (request.url === '/temporary') redirect(response, '/landing', 307);
      else json(response, 200, { method: request.method, body: request.body });
    });
    const post = { method: 'POST' as const, body: { json: { n: 1 } } };
    expect(responseOf(await client().send({ url: `${target.origin}/see-other`, ...post })).body).toEqual({ method: 'GET', body: '' });
    expect(responseOf(await client().send({ url: `${target.origin}/temporary`, ...post })).body).toEqual({ method: 'POST', body: '{"n":1}' });
  });

  it('keeps credentials to their origin', async () => {
    const other = await server((_, response) => response.end('ok'), '127.0.0.2');
    const first = await server((_, response) => redirect(response, other.origin, 307));
    await client().send({
      url: first.origin,
      headers: { authorization: 'Bearer t', 'x-api-key': 'k', cookie: 'c=1' },
      credentialHeaders: ['X-Api-Key'],
      idempotencyKey: { header: 'Idempotency-Key', value: 'i-1' },
    });
    expect(first.requests[0].headers).toMatchObject({ authorization: 'Bearer t', 'x-api-key': 'k', cookie: 'c=1' });
    expect(other.requests[0].headers).not.toHaveProperty('authorization');
    expect(other.requests[0].headers).not.toHaveProperty('x-api-key');
    expect(other.requests[0].headers).not.toHaveProperty('cookie');
    expect(other.requests[0].headers['idempotency-key']).toBe('i-1');
  });
});

describe('outbound http: retries against a server', () => {
  const sleeps: number[] = [];
  const retrying = (maxAttempts: number) => withRetries({ maxAttempts, sleep: async (ms) => void sleeps.push(ms), random: () => 0 });
  beforeEach(() => (sleeps.length = 0));

  /** Answers with the given statuses in turn, then 200. */
  async function scripted(...answers: Array<[number, Record<string, string>?]>): Promise<LocalServer> {
    return server((_, response) => {
      const [status, headers] = answers.shift() ?? [200];
      response.writeHead(status, headers).end(`status ${status}`);
    });
  }

  it('retries a 503 and then succeeds, with the same idempotency key', async () => {
    const flaky = await scripted([503]);
    const result = await retrying(3)(client().send)({ url: flaky.origin, method: 'POST', idempotencyKey: { header: 'Idempotency-Key', value: 'once' } });
    expect(result).toMatchObject({ ok: true, attempts: 2, response: { status: 200 } });
    expect(flaky.requests.map((r) => r.headers['idempotency-key'])).toEqual(['once', 'once']);
  });

  it('does not retry a 400', async () => {
    const strict = await scripted([400]);
    expect(await retrying(3)(client().send)({ url: strict.origin })).toMatchObject({ ok: false, attempts: 1, failure: { kind: 'http_status', status: 400 } });
    expect(strict.requests).toHaveLength(1);
  });

  it('honours Retry-After', async () => {
    const busy = await scripted([429, { 'retry-after': '2' }], [503, { 'retry-after': '1' }]);
    expect(await retrying(3)(client().send)({ url: busy.origin })).toMatchObject({ ok: true, attempts: 3 });
    expect(sleeps).toEqual([2_000, 1_000]);
  });

  it('retries a timeout', async () => {
    let calls = 0;
    const slowOnce = await server((_, response) => {
      if ((calls += 1) > 1) response.end('fast now');
    });
    expect(await retrying(2)(client().send)({ url: slowOnce.origin, timeoutMs: 200 })).toMatchObject({ ok: true, attempts: 2 });
  });

  it('never retries a blocked address', async () => {
    const target = await server((_, response) => response.end('reached'));
    expect(await retrying(5)(client({ allow: [] }).send)({ url: target.origin })).toMatchObject({
      ok: false,
      attempts: 1,
      failure: { kind: 'blocked_address' },
    });
  });
});

describe('outbound http: hooks', () => {
  it('reports each exchange without headers, bodies, paths or query', async () => {
    const events: ExchangeEvent[] = [];
    const target = await server((_, response) => redirect(response, '/secret-2'));
    await client({ hooks: { onExchange: (event) => events.push(event) } }).send({
      url: `${target.origin}/services/T0/B0/secret-1?token=secret-3`,
      method: 'POST',
      headers: { authorization: 'Bearer secret-4' },
      body: { json: { text: 'secret-5' } },
      maxRedirects: 1,
    });
    expect(events).toEqual([
      { method: 'POST', origin: target.origin, outcome: 'too_many_redirects', message: 'more redirects than the limit of 1', durationMs: expect.any(Number), redirects: 1 },
    ]);
    expect(JSON.stringify(events)).not.toContain('secret');
  });

  it('ignores a hook that throws', async () => {
    const target = await server((_, response) => response.end('ok'));
    const onExchange = () => {
      throw new Error('metrics down');
    };
    expect(await client({ hooks: { onExchange } }).send({ url: target.origin })).toMatchObject({ ok: true });
  });
});
