import { AddressInfo, Socket, connect } from 'node:net';
import { Body, Controller, Module, Post } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { expectEventually } from '@herald/testing';
import { loadHeraldConfig } from '../config/herald-config';
import { createPlatformContext } from '../launch/platform-factory';
import { ServiceDefinition } from '../launch/service-definition';
import { createHttpApp } from '../nest/http-app';
import { ConnectionGate, resolveConnectionCaps } from './connection-limits';

@Controller('echo')
class EchoController {
  @Post()
  echo(@Body() body: unknown): unknown {
    return { received: body };
  }
}
@Module({ controllers: [EchoController] })
class EchoModule {}
const echoService: ServiceDefinition = { name: 'ingest-api', api: 'public', module: () => ({ module: EchoModule }) };

/** A raw TCP client from a given loopback address (on Linux any 127.x.y.z is this host), recording what it receives and when it is closed. */
interface RawClient {
  readonly socket: Socket;
  received: string;
  closed: boolean;
}

async function rawClient(port: number, localAddress: string): Promise<RawClient> {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  const client: RawClient = { socket, received: '', closed: false };
  socket.on('data', (chunk: Buffer) => (client.received += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  socket.on('close', () => (client.closed = true));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return client;
}

/** Sends one GET on an open connection and waits for its whole answer (Content-Length framed). */
async function get(client: RawClient, path: string): Promise<{ status: number; body: string }> {
  const from = client.received.length;
  client.socket.write(`GET ${path} HTTP/1.1\r\nHost: herald\r\n\r\n`);
  return expectEventually(() => {
    const text = client.received.slice(from);
    const headEnd = text.indexOf('\r\n\r\n');
    expect(headEnd).toBeGreaterThan(0);
    const length = Number(/content-length: (\d+)/i.exec(text.slice(0, headEnd))?.[1] ?? 0);
    const body = text.slice(headEnd + 4);
    expect(body.length).toBeGreaterThanOrEqual(length);
    return { status: Number(text.slice(9, 12)), body: body.slice(0, length) };
  });
}

async function startApp(env: Record<string, string>): Promise<{ app: NestFastifyApplication; port: number; close: () => Promise<void> }> {
  const config = loadHeraldConfig({ HERALD_LOG_LEVEL: 'error', HERALD_PORT: '0', ...env });
  // No database module: the URL is never opened.
  const context = createPlatformContext('connection-test', config, 'postgres://unused');
  const app = await createHttpApp('public', context, [echoService]);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    port: (app.getHttpServer().address() as AddressInfo).port,
    close: async () => {
      await app.close();
      await context.bus.close();
    },
  };
}

describe('HTTP connections cannot be held open', () => {
  const opened: RawClient[] = [];
  const open = async (port: number, localAddress: string): Promise<RawClient> => {
    const client = await rawClient(port, localAddress);
    opened.push(client);
    return client;
  };
  afterEach(() => {
    for (const client of opened.splice(0)) client.socket.destroy();
  });

  describe('with short header and request timeouts', () => {
    let server: Awaited<ReturnType<typeof startApp>>;
    beforeAll(async () => {
      server = await startApp({ HERALD_HTTP_HEADERS_TIMEOUT_MS: '300', HERALD_HTTP_REQUEST_TIMEOUT_MS: '600' });
    });
    afterAll(() => server?.close());

    it('closes stalled chunked bodies and connections that never finish their headers, and still answers an ordinary request', async () => {
      const stalledBodies = await Promise.all(
        [1, 2, 3].map(async () => {
          const client = await open(server.port, '127.0.0.2');
          client.socket.write('POST /echo HTTP/1.1\r\nHost: herald\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":');
          return client;
        }),
      );
      const halfHeaders = await open(server.port, '127.0.0.3');
      halfHeaders.socket.write('POST /echo HTTP/1.1\r\nHost: herald\r\nContent-Ty');
      const silent = await open(server.port, '127.0.0.3');

      const ordinary = await fetch(`http://127.0.0.1:${server.port}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      expect(ordinary.status).toBe(201);
      expect(await ordinary.json()).toEqual({ received: { a: 1 } });

      await expectEventually(() => {
        for (const client of [...stalledBodies, halfHeaders, silent]) expect(client.closed).toBe(true);
      }, { timeoutMs: 10_000 });
      // Node answers a request that did not arrive in time with 408 before it closes the connection.
      for (const client of stalledBodies) expect(client.received).toMatch(/^HTTP\/1\.1 408/);
    });
  });

  describe('with connection caps', () => {
    let server: Awaited<ReturnType<typeof startApp>>;
    beforeAll(async () => {
      server = await startApp({ HERALD_HTTP_MAX_CONNECTIONS: '6', HERALD_HTTP_MAX_CONNECTIONS_PER_ADDRESS: '3' });
    });
    afterAll(() => server?.close());

    it('refuses connections past the per-address cap while another address is served, and is not ready at the total cap', async () => {
      const first = await Promise.all([1, 2, 3].map(() => open(server.port, '127.0.0.4')));
      expect(await get(first[0], '/health/live')).toMatchObject({ status: 200 });
      const extra = await open(server.port, '127.0.0.4');
      await expectEventually(() => expect(extra.closed).toBe(true));
      expect(extra.received).toBe('');
      // The admitted connections of that address still work, and so does another address.
      expect(await get(first[2], '/health/live')).toMatchObject({ status: 200 });
      const other = await Promise.all([1, 2].map(() => open(server.port, '127.0.0.5')));
      expect(await get(other[0], '/health/ready')).toMatchObject({ status: 200 });

      // Six open: the total cap. Readiness, asked on an open connection, says so; a seventh is refused.
      const sixth = await open(server.port, '127.0.0.5');
      const atCap = await get(sixth, '/health/ready');
      expect(atCap.status).toBe(503);
      expect(JSON.parse(atCap.body)).toMatchObject({ ready: false, checks: { http_connections_public: { status: 'failing' } } });
      const seventh = await open(server.port, '127.0.0.6');
      await expectEventually(() => expect(seventh.closed).toBe(true));

      first[1].socket.destroy();
      await expectEventually(async () => expect((await get(other[1], '/health/ready')).status).toBe(200));
    });
  });
});

describe('resolveConnectionCaps', () => {
  const limits = loadHeraldConfig({}).http;

  it('keeps the total below the open-file limit, shared by two servers after a reserve, and one address to half of it', () => {
    expect(resolveConnectionCaps(limits, 1024)).toEqual({ total: 384, perAddress: 192 });
    expect(resolveConnectionCaps(limits, 20_000)).toEqual({ total: 9_872, perAddress: 1_000 });
    expect(resolveConnectionCaps(limits, 1_048_576)).toEqual({ total: 10_000, perAddress: 1_000 });
    expect(resolveConnectionCaps(limits, undefined)).toEqual({ total: 10_000, perAddress: 1_000 });
  });

  it('takes configured caps, the per-address one never above the total', () => {
    expect(resolveConnectionCaps({ ...limits, maxConnections: 50, maxConnectionsPerAddress: 80 }, 1024)).toEqual({ total: 50, perAddress: 50 });
  });

  it('admits below both caps and counts a closed connection out', () => {
    const gate = new ConnectionGate({ total: 3, perAddress: 2 });
    expect([gate.admit('a'), gate.admit('a'), gate.admit('a')]).toEqual([true, true, false]);
    expect([gate.admit('b'), gate.full, gate.admit('c')]).toEqual([true, true, false]);
    gate.release('a');
    expect([gate.full, gate.admit('c')]).toEqual([false, true]);
  });
});
