import { request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { Controller, Get, Module, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { loadHeraldConfig } from '../config/herald-config';
import { createPlatformContext } from '../launch/platform-factory';
import { ServiceDefinition } from '../launch/service-definition';
import { createHttpApp } from '../nest/http-app';
import { AuthFailureLimiter } from '../security/auth-failure-limiter';

/** A guard's part in miniature: every attempt fails and is counted against the client's address, as every guard counts it (`request.ip`). */
@Controller('probe')
class FailingAuthController {
  constructor(private readonly failures: AuthFailureLimiter) {}

  @Get()
  attempt(@Req() request: FastifyRequest): never {
    this.failures.refuseIfLimited(request.ip, undefined);
    this.failures.recordFailure(request.ip, undefined);
    throw new HeraldError('authentication_failed', 'invalid API key');
  }
}
@Module({ controllers: [FailingAuthController] })
class FailingAuthModule {}
const failingAuthService: ServiceDefinition = { name: 'ingest-api', api: 'public', module: () => ({ module: FailingAuthModule }) };

const PER_ADDRESS = 3;

/** One GET from a given loopback address (on Linux any 127.x.y.z is this host), claiming `forwardedFor` in X-Forwarded-For. */
function attempt(port: number, localAddress: string, forwardedFor: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, path: '/probe/', localAddress, agent: false, headers: { 'x-forwarded-for': forwardedFor } }, (incoming) => {
      incoming.resume();
      incoming.on('end', () => resolve(incoming.statusCode ?? 0));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Statuses of PER_ADDRESS + 1 attempts from one address, each claiming another forwarded address. */
async function attemptsWithForgedAddresses(port: number, localAddress: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let n = 1; n <= PER_ADDRESS + 1; n++) statuses.push(await attempt(port, localAddress, `203.0.113.${n}`));
  return statuses;
}

async function startApp(trustProxy: string): Promise<{ port: number; close: () => Promise<void> }> {
  const config = loadHeraldConfig({
    HERALD_LOG_LEVEL: 'error',
    HERALD_PORT: '0',
    HERALD_TRUST_PROXY: trustProxy,
    HERALD_AUTH_MAX_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
  });
  // No database module: the URL is never opened.
  const context = createPlatformContext('client-address-test', config, 'postgres://unused');
  const app = await createHttpApp('public', context, [failingAuthService]);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    port: (app.getHttpServer().address() as AddressInfo).port,
    close: async () => {
      await app.close();
      await context.bus.close();
    },
  };
}

/**
 * HERALD_TRUST_PROXY decides whose X-Forwarded-For names the client the failed-authentication
 * limits count: reached directly (`false`), a forged header changes nothing; behind a proxy
 * (`true`, or the proxy's addresses), the forwarded address is the client.
 */
describe('the client address the failed-authentication limits count (HERALD_TRUST_PROXY)', () => {
  it('with false, counts the connection address whatever X-Forwarded-For claims', async () => {
    const server = await startApp('false');
    try {
      expect(await attemptsWithForgedAddresses(server.port, '127.0.8.1')).toEqual([401, 401, 401, 429]);
      expect(await attempt(server.port, '127.0.8.2', '203.0.113.1')).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('with true (the default, behind an Ingress or gateway), counts the address X-Forwarded-For names', async () => {
    const server = await startApp('true');
    try {
      expect(await attemptsWithForgedAddresses(server.port, '127.0.8.3')).toEqual([401, 401, 401, 401]);
    } finally {
      await server.close();
    }
  });

  it('with a list, believes X-Forwarded-For from the listed proxies alone', async () => {
    const server = await startApp('127.0.8.4, 10.0.0.0/8');
    try {
      expect(await attemptsWithForgedAddresses(server.port, '127.0.8.4')).toEqual([401, 401, 401, 401]);
      expect(await attemptsWithForgedAddresses(server.port, '127.0.8.5')).toEqual([401, 401, 401, 429]);
    } finally {
      await server.close();
    }
  });
});
