import { IncomingMessage, Server, ServerResponse, createServer, request as httpRequest } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { ConnectionGate, HttpServerLimits, httpServerOptions, limitConnections, loadHeraldConfig, readOpenFileLimit, resolveConnectionCaps } from '@herald/runtime';

/** The services that serve `{base_url}` in distributed mode, each at its own address. */
export interface GatewayUpstreams {
  readonly 'ingest-api': string;
  readonly 'preference-service': string;
  readonly 'workflow-engine': string;
  readonly 'channel-dispatchers': string;
}

type Service = keyof GatewayUpstreams;

/** The web SDK feed's socket.io endpoint (channel-dispatchers): the one path whose WebSocket upgrades the gateway passes on. */
const FEED_SOCKET_PATH = /^\/socket\.io(\/|$|\?)/;

/**
 * `{base_url}`'s routing by path, as k8s/base/ingress*.yaml does it, first match wins:
 * the inbox under /v1/user/{id}/inbox/ belongs to channel-dispatchers, the rest of
 * /v1/user/ to preference-service. SuprSend's web SDK calls /v1/feed/ (the inbox,
 * channel-dispatchers) and its socket at /socket.io/ (WebSocket upgrades, passed on
 * by proxyUpgrade), /v2/subscriber/ (preferences) and /v2/event; the older
 * `@suprsend/js-inbox` calls /js-inbox/ (channel-dispatchers; its socket is a namespace
 * of the one at /socket.io/). Anything else goes to ingest-api.
 */
const ROUTES: ReadonlyArray<readonly [RegExp, Service]> = [
  [/^\/v1\/user\/[^/]+\/inbox(\/|$|\?)/, 'channel-dispatchers'],
  [/^\/v1\/feed(\/|$|\?)/, 'channel-dispatchers'],
  [/^\/v1\/vendor-callbacks(\/|$|\?)/, 'channel-dispatchers'],
  // Email engagement (open pixel, tracked links) and List-Unsubscribe, at HERALD_PUBLIC_URL.
  [/^\/v1\/engagement(\/|$|\?)/, 'channel-dispatchers'],
  [/^\/v1\/unsubscribe(\/|$|\?)/, 'preference-service'],
  // An operator's retry of a failed delivery: the dispatchers' ledger, though the rest of /v1/message/ is the engine's.
  [/^\/v1\/message\/[^/]+\/retry(\/|$|\?)/, 'channel-dispatchers'],
  [/^\/js-inbox(\/|$|\?)/, 'channel-dispatchers'],
  [FEED_SOCKET_PATH, 'channel-dispatchers'],
  [/^\/v2\/subscriber(\/|$|\?)/, 'preference-service'],
  [/^\/(trigger|event|v2\/event)(\/|$|\?)/, 'ingest-api'],
  [/^\/[^/]+\/broadcast(\/|$|\?)/, 'ingest-api'],
  [/^\/v1\/(workflow_run|broadcast_run|message|bulk\/message|template)(\/|$|\?)/, 'workflow-engine'],
  [/^\/v1\/(user|object|subscriber_list|tenant|brand|bulk\/user|bulk\/object)(\/|$|\?)/, 'preference-service'],
];

export function routeOf(path: string): Service {
  return ROUTES.find(([pattern]) => pattern.test(path))?.[1] ?? 'ingest-api';
}

/** The upstreams of the README's distributed mode, each overridable as `<service>=<url>` in a comma-separated list. */
export function upstreamsOf(setting: string | undefined): GatewayUpstreams {
  const upstreams: Record<string, string> = {
    'ingest-api': 'http://127.0.0.1:3000',
    'preference-service': 'http://127.0.0.1:3002',
    'workflow-engine': 'http://127.0.0.1:3003',
    'channel-dispatchers': 'http://127.0.0.1:3004',
  };
  for (const entry of (setting ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
    const [service, url] = entry.split('=');
    if (!(service in upstreams) || !url || !/^https?:\/\//.test(url)) {
      throw new Error(`HERALD_GATEWAY_UPSTREAMS: '${entry}' must be <service>=<http url>, service one of ${Object.keys(upstreams).join(', ')}`);
    }
    upstreams[service] = url.replace(/\/$/, '');
  }
  return upstreams as unknown as GatewayUpstreams;
}

/** How long the gateway's readiness waits for one upstream's own /health/ready. */
const UPSTREAM_READY_TIMEOUT_MS = 3_000;

export interface UpstreamReadiness {
  readonly ready: boolean;
  /** The upstream's HTTP status; absent when it did not answer. */
  readonly status?: number;
  /** Why it is not ready: its own answer, or why it could not be asked. */
  readonly detail?: unknown;
}

export interface GatewayReadiness {
  readonly ready: boolean;
  readonly services: Record<Service, UpstreamReadiness>;
}

/** Ready only when every upstream is: one base URL is usable only when every route behind it is. */
export function gatewayReadiness(services: Record<Service, UpstreamReadiness>): GatewayReadiness {
  return { ready: Object.values(services).every((service) => service.ready), services };
}

async function upstreamReadiness(url: string): Promise<UpstreamReadiness> {
  try {
    const answer = await fetch(new URL('/health/ready', url), { signal: AbortSignal.timeout(UPSTREAM_READY_TIMEOUT_MS) });
    const text = await answer.text();
    if (answer.ok) return { ready: true, status: answer.status };
    let detail: unknown = text;
    try {
      detail = JSON.parse(text);
    } catch {
      // not JSON: the text as it is
    }
    return { ready: false, status: answer.status, detail };
  } catch (error) {
    return { ready: false, detail: `not reachable at ${url}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The gateway's own health routes (the API host's /health/* is not routed to any one service). */
function healthRoute(incoming: IncomingMessage): 'live' | 'ready' | undefined {
  if (incoming.method !== 'GET' && incoming.method !== 'HEAD') return undefined;
  const path = (incoming.url ?? '/').split('?')[0].replace(/\/$/, '');
  return path === '/health/live' ? 'live' : path === '/health/ready' ? 'ready' : undefined;
}

async function answerHealth(route: 'live' | 'ready', upstreams: GatewayUpstreams, connections: ConnectionGate, outgoing: ServerResponse): Promise<void> {
  let status = 200;
  let body: unknown = { status: 'ok' };
  if (route === 'ready') {
    const services = Object.keys(upstreams) as Service[];
    const answers = await Promise.all(services.map((service) => upstreamReadiness(upstreams[service])));
    const readiness = gatewayReadiness(Object.fromEntries(services.map((service, i) => [service, answers[i]])) as Record<Service, UpstreamReadiness>);
    // At its connection cap the gateway takes no new client, whatever the upstreams say.
    status = readiness.ready && !connections.full ? 200 : 503;
    body = connections.full ? { ...readiness, ready: false, connections: `${connections.open} open: the cap of ${connections.caps.total} is reached` } : readiness;
  }
  outgoing.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * One local entry point for distributed mode: a tiny path-routing proxy, so the SDKs'
 * single base URL reaches all four services. For development; production uses the
 * Ingress. Bodies and headers pass through untouched (the SDK signature covers the raw body).
 * Its own /health/live answers for the gateway alone; /health/ready asks every upstream's
 * /health/ready and is 200 only when all are ready, naming each. Its connections are held
 * to the same timeouts and caps as Herald's own servers (HERALD_HTTP_*).
 */
export async function startGateway(
  upstreams: GatewayUpstreams,
  port: number,
  host = '127.0.0.1',
  limits: HttpServerLimits = loadHeraldConfig({}).http,
): Promise<{ url: string; close: () => Promise<void> }> {
  const connections = new ConnectionGate(resolveConnectionCaps(limits, readOpenFileLimit()));
  const server: Server = createServer(httpServerOptions(limits), (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const health = healthRoute(incoming);
    if (health) {
      void answerHealth(health, upstreams, connections, outgoing);
      return;
    }
    const target = new URL(incoming.url ?? '/', upstreams[routeOf(incoming.url ?? '/')]);
    const proxied = httpRequest(target, { method: incoming.method, headers: { ...incoming.headers, host: target.host } }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    proxied.on('error', (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'application/json' });
      outgoing.end(JSON.stringify({ code: 502, error_code: 'bad_gateway', message: `${routeOf(incoming.url ?? '/')} is not reachable at ${target.origin}: ${error.message}` }));
    });
    incoming.pipe(proxied);
  });
  server.on('upgrade', (incoming: IncomingMessage, socket: Socket, head: Buffer) => proxyUpgrade(incoming, socket, head, upstreams['channel-dispatchers']));
  limitConnections(server, limits, connections);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return { url: `http://${host}:${address.port}/`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * A WebSocket upgrade of the feed's socket (/socket.io/), passed to channel-dispatchers
 * byte for byte once the upstream has switched protocols; the upstream's refusal is
 * passed back as it came. Any other upgrade is closed: no other path speaks WebSocket.
 */
function proxyUpgrade(incoming: IncomingMessage, socket: Socket, head: Buffer, upstream: string): void {
  socket.on('error', () => socket.destroy());
  if (!FEED_SOCKET_PATH.test(incoming.url ?? '/')) {
    socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    return;
  }
  const target = new URL(incoming.url ?? '/', upstream);
  const statusLine = (answer: IncomingMessage): string => {
    const headers: string[] = [];
    for (let i = 0; i < answer.rawHeaders.length; i += 2) headers.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
    return `HTTP/1.1 ${answer.statusCode ?? 502} ${answer.statusMessage ?? ''}\r\n${headers.join('\r\n')}\r\n\r\n`;
  };
  const proxied = httpRequest(target, { method: incoming.method, headers: { ...incoming.headers, host: target.host } });
  proxied.on('upgrade', (answer: IncomingMessage, upstreamSocket: Socket, upstreamHead: Buffer) => {
    upstreamSocket.on('error', () => socket.destroy());
    socket.on('close', () => upstreamSocket.destroy());
    upstreamSocket.on('close', () => socket.destroy());
    socket.write(statusLine(answer));
    if (upstreamHead.length > 0) socket.write(upstreamHead);
    if (head.length > 0) upstreamSocket.write(head);
    upstreamSocket.pipe(socket).pipe(upstreamSocket);
  });
  proxied.on('response', (answer: IncomingMessage) => {
    socket.write(statusLine(answer));
    answer.pipe(socket);
  });
  proxied.on('error', () => socket.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'));
  proxied.end();
}
