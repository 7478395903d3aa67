import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { fetchJson } from '@herald/testing';
import { GatewayUpstreams, startGateway, upstreamsOf } from './gateway';

/** The local gateway routes {base_url} paths to the service that serves each, as the Ingress does. */
describe('the distributed-mode gateway', () => {
  const servers: Server[] = [];
  let gateway: { url: string; close: () => Promise<void> };

  beforeAll(async () => {
    const upstream = async (name: string): Promise<string> => {
      const server = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ service: name, url: request.url, body, auth: request.headers.authorization })));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      return `${name}=http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    const setting = (await Promise.all(['ingest-api', 'preference-service', 'workflow-engine', 'channel-dispatchers'].map(upstream))).join(',');
    gateway = await startGateway(upstreamsOf(setting), 0);
  });

  afterAll(async () => {
    await gateway?.close();
    for (const server of servers) server.close();
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

  it('refuses an upstream setting it cannot use', () => {
    expect(() => upstreamsOf('engine=http://x')).toThrow("'engine=http://x' must be <service>=<http url>");
  });
});
