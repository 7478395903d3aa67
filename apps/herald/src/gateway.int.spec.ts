import { Server, createServer } from 'node:http';
import { AddressInfo, Socket, connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Server as SocketServer } from 'socket.io';
import { io as connectSocket } from 'socket.io-client';
import { loadHeraldConfig } from '@herald/runtime';
import { REPO_ROOT, expectEventually, fetchJson } from '@herald/testing';
import { GatewayUpstreams, routeOf, startGateway, upstreamsOf } from './gateway';

/** The local gateway routes {base_url} paths to the service that serves each, as the Ingress does. */
describe('the distributed-mode gateway', () => {
  const servers: Server[] = [];
  let gateway: { url: string; close: () => Promise<void> };
  /** HERALD_GATEWAY_UPSTREAMS naming the four echoing upstreams. */
  let setting: string;

  beforeAll(async () => {
    const upstream = async (name: string): Promise<string> => {
      const server = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ service: name, url: request.url, body, auth: request.headers.authorization })));
      });
      if (name === 'channel-dispatchers') feedSocketUpstream(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      return `${name}=http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    setting = (await Promise.all(['ingest-api', 'preference-service', 'workflow-engine', 'channel-dispatchers'].map(upstream))).join(',');
    gateway = await startGateway(upstreamsOf(setting), 0);
  });

  /** The web SDK feed's socket (socket.io at /socket.io/, as channel-dispatchers serves it): a good key connects and is greeted. */
  function feedSocketUpstream(server: Server): void {
    const io = new SocketServer(server, { transports: ['websocket'] });
    io.use((socket, next) => next((socket.handshake.auth as { authorization?: string }).authorization === 'good' ? undefined : new Error('Authentication Error: wrong auth token')));
    io.on('connection', (socket) => socket.emit('hello', { service: 'channel-dispatchers', origin: socket.request.headers.origin }));
  }

  afterAll(async () => {
    await gateway?.close();
    for (const server of servers) {
      server.close();
      // The gateway's proxy keeps its upstream connections alive; close() alone waits for them.
      server.closeAllConnections();
    }
  });

  it.each([
    ['POST', 'trigger/', 'ingest-api'],
    ['POST', 'event/', 'ingest-api'],
    ['POST', 'hwk_key/broadcast/', 'ingest-api'],
    ['GET', 'v1/workflow_run/?message_id=m', 'workflow-engine'],
    ['GET', 'v1/message/', 'workflow-engine'],
    ['GET', 'v1/user/ada/inbox/?limit=5', 'channel-dispatchers'],
    ['GET', 'v1/user/ada/', 'preference-service'],
    ['POST', 'v1/object/teams/eng/', 'preference-service'],
    ['GET', 'v1/subscriber_list/', 'preference-service'],
    ['GET', 'v1/tenant/acme/', 'preference-service'],
    ['GET', 'v1/template/welcome/', 'workflow-engine'],
    ['POST', 'v1/broadcast_run/cancel/', 'workflow-engine'],
    ['PATCH', 'v1/bulk/message/', 'workflow-engine'],
    ['PATCH', 'v1/bulk/user/preference/', 'preference-service'],
    ['DELETE', 'v1/bulk/object/team/', 'preference-service'],
    ['GET', 'v1/brand/acme/', 'preference-service'],
  ])('%s /%s goes to %s, with its path, query, body and headers', async (method, path, service) => {
    const response = await fetchJson(`${gateway.url}${path}`, { method, headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: method === 'POST' ? '{"a":1}' : undefined });
    expect(response).toEqual({ status: 200, body: { service, url: `/${path}`, body: method === 'POST' ? '{"a":1}' : '', auth: 'Bearer k' } });
  });

  it('answers 502 naming the service that is not reachable', async () => {
    const down: GatewayUpstreams = { ...upstreamsOf(undefined), 'workflow-engine': 'http://127.0.0.1:1' };
    const lonely = await startGateway(down, 0);
    try {
      const response = await fetchJson(`${lonely.url}v1/message/`);
      expect(response).toMatchObject({ status: 502, body: { message: expect.stringContaining('workflow-engine is not reachable at http://127.0.0.1:1') } });
    } finally {
      await lonely.close();
    }
  });

  it('answers /health/ready 200 only when every upstream is ready, listing each', async () => {
    const response = await fetchJson(`${gateway.url}health/ready`);
    expect(response).toEqual({
      status: 200,
      body: {
        ready: true,
        services: {
          'ingest-api': { ready: true, status: 200 },
          'preference-service': { ready: true, status: 200 },
          'workflow-engine': { ready: true, status: 200 },
          'channel-dispatchers': { ready: true, status: 200 },
        },
      },
    });
  });

  it('answers /health/ready 503 naming the upstream that is not ready and the one not reachable, /health/live 200 for itself', async () => {
    // preference-service answers, but not ready (still draining, say); workflow-engine is down.
    const notReady = createServer((_request, response) =>
      response.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ ready: false, status: 'draining' })),
    );
    await new Promise<void>((resolve) => notReady.listen(0, '127.0.0.1', resolve));
    servers.push(notReady);
    const upstreams: GatewayUpstreams = {
      ...upstreamsOf(setting),
      'preference-service': `http://127.0.0.1:${(notReady.address() as AddressInfo).port}`,
      'workflow-engine': 'http://127.0.0.1:1',
    };
    const degraded = await startGateway(upstreams, 0);
    try {
      const response = await fetchJson(`${degraded.url}health/ready`);
      expect(response).toEqual({
        status: 503,
        body: {
          ready: false,
          services: {
            'ingest-api': { ready: true, status: 200 },
            'preference-service': { ready: false, status: 503, detail: { ready: false, status: 'draining' } },
            'workflow-engine': { ready: false, detail: expect.stringContaining('not reachable at http://127.0.0.1:1') },
            'channel-dispatchers': { ready: true, status: 200 },
          },
        },
      });
      // Liveness is the gateway's own: the upstreams' state does not restart it.
      expect(await fetchJson(`${degraded.url}health/live`)).toEqual({ status: 200, body: { status: 'ok' } });
    } finally {
      await degraded.close();
    }
  });

  // k8s/base/ingress*.yaml route {base_url} in a cluster; the gateway (local, and docker/compose.yaml's) routes it here.
  // Each Ingress path must reach the service the gateway's table names for it.
  it('routes every path of the Ingress to the service the Ingress names', () => {
    const paths = ['ingress.yaml', 'ingress-inbox.yaml'].flatMap((file) =>
      parseAllDocuments(readFileSync(join(REPO_ROOT, 'k8s', 'base', file), 'utf8')).flatMap((document) => {
        const ingress = document.toJS() as { spec: { rules: Array<{ host: string; http: { paths: Array<{ path: string; backend: { service: { name: string } } }> } }> } };
        return ingress.spec.rules.filter((rule) => rule.host.startsWith('api.')).flatMap((rule) => rule.http.paths);
      }),
    );
    expect(paths.length).toBeGreaterThan(10);
    const routed = paths.flatMap(({ path, backend }) =>
      // A regex path stands for the paths it matches: a made-up id, each alternative.
      (path.includes('(trigger|broadcast)') ? ['trigger', 'broadcast'].map((name) => path.replace('(trigger|broadcast)', name)) : [path]).map((example) => {
        const concrete = `${example.replace('[^/]+', 'some_id').replace(/\/?$/, '/')}`;
        return { path: concrete, service: backend.service.name };
      }),
    );
    expect(routed.map(({ path }) => ({ path, service: routeOf(path) }))).toEqual(routed);
  });

  it("passes the web SDK feed's WebSocket to channel-dispatchers, refusals included, and no other upgrade", async () => {
    const open = (authorization: string) => {
      const socket = connectSocket(gateway.url, { transports: ['websocket'], auth: { authorization }, reconnection: false, extraHeaders: { origin: 'https://app.example.com' } });
      return {
        socket,
        outcome: new Promise<unknown>((resolve) => {
          socket.once('hello', resolve);
          socket.once('connect_error', (error: Error) => resolve(error.message));
        }),
      };
    };
    const good = open('good');
    try {
      expect(await good.outcome).toEqual({ service: 'channel-dispatchers', origin: 'https://app.example.com' });
    } finally {
      good.socket.disconnect();
    }
    const refused = open('bad');
    try {
      expect(await refused.outcome).toBe('Authentication Error: wrong auth token');
    } finally {
      refused.socket.disconnect();
    }
    const client = connect({ port: Number(new URL(gateway.url).port), host: '127.0.0.1' });
    let received = '';
    client.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    await new Promise((resolve) => client.once('connect', resolve));
    client.write('GET /v1/feed/notifications HTTP/1.1\r\nHost: gateway\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    await new Promise((resolve) => client.once('close', resolve));
    expect(received).toMatch(/^HTTP\/1\.1 404/);
  });

  it('refuses an upstream setting it cannot use', () => {
    expect(() => upstreamsOf('engine=http://x')).toThrow("'engine=http://x' must be <service>=<http url>");
  });

  it('closes a stalled chunked body and refuses connections past its per-address cap, as Herald\'s own servers do', async () => {
    const limits = {
      ...loadHeraldConfig({ HERALD_HTTP_HEADERS_TIMEOUT_MS: '300', HERALD_HTTP_REQUEST_TIMEOUT_MS: '600' }).http,
      maxConnections: 10,
      maxConnectionsPerAddress: 2,
    };
    const limited = await startGateway(upstreamsOf(setting), 0, '127.0.0.1', limits);
    const port = Number(new URL(limited.url).port);
    const sockets: Array<{ socket: Socket; closed: boolean; received: string }> = [];
    const open = async (localAddress: string): Promise<{ socket: Socket; closed: boolean; received: string }> => {
      const client = { socket: connect({ port, host: '127.0.0.1', localAddress }), closed: false, received: '' };
      client.socket.on('data', (chunk: Buffer) => (client.received += chunk.toString('latin1')));
      client.socket.on('error', () => undefined);
      client.socket.on('close', () => (client.closed = true));
      await new Promise((resolve) => client.socket.once('connect', resolve));
      sockets.push(client);
      return client;
    };
    try {
      const stalled = await open('127.0.0.7');
      stalled.socket.write('POST /trigger/ HTTP/1.1\r\nHost: gateway\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":');
      const held = await open('127.0.0.7');
      const extra = await open('127.0.0.7');
      await expectEventually(() => expect(extra.closed).toBe(true));
      expect(extra.received).toBe('');
      // Another address (this test's own) is served meanwhile.
      expect((await fetchJson(`${limited.url}v1/user/ada/`)).body).toMatchObject({ service: 'preference-service' });
      await expectEventually(() => expect([stalled.closed, held.closed]).toEqual([true, true]), { timeoutMs: 10_000 });
      expect(stalled.received).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      for (const client of sockets) client.socket.destroy();
      await limited.close();
    }
  });
});
