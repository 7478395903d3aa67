import { IncomingMessage, Server, ServerResponse, createServer, request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';

/** The services that serve `{base_url}` in distributed mode, each at its own address. */
export interface GatewayUpstreams {
  readonly 'ingest-api': string;
  readonly 'preference-service': string;
  readonly 'workflow-engine': string;
  readonly 'channel-dispatchers': string;
}

type Service = keyof GatewayUpstreams;

/**
 * `{base_url}`'s routing by path, as k8s/base/ingress*.yaml does it, first match wins:
 * the inbox under /v1/user/{id}/inbox/ belongs to channel-dispatchers, the rest of
 * /v1/user/ to preference-service. Anything else goes to ingest-api.
 */
const ROUTES: ReadonlyArray<readonly [RegExp, Service]> = [
  [/^\/v1\/user\/[^/]+\/inbox(\/|$|\?)/, 'channel-dispatchers'],
  [/^\/(trigger|event)(\/|$|\?)/, 'ingest-api'],
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

/**
 * One local entry point for distributed mode: a tiny path-routing proxy, so the SDKs'
 * single base URL reaches all four services. For development; production uses the
 * Ingress. Bodies and headers pass through untouched (the SDK signature covers the raw body).
 */
export async function startGateway(upstreams: GatewayUpstreams, port: number, host = '127.0.0.1'): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
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
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return { url: `http://${host}:${address.port}/`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
