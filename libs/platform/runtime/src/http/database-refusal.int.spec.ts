import { AddressInfo, Server, Socket, createServer } from 'node:net';
import { Pool } from 'pg';
import { RetryLaterError } from '@herald/contracts';
import { classifyDatabaseFailure, databaseRefusal } from './database-refusal';

/** Short, so the pool's waits run out quickly; the classification does not depend on it. */
const CONNECT_WAIT_MS = 150;

async function listen(onConnection: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

const poolOn = (port: number, max = 1): Pool =>
  new Pool({ host: '127.0.0.1', port, user: 'herald', database: 'herald', max, connectionTimeoutMillis: CONNECT_WAIT_MS });

/** The error a promise rejects with. */
async function failureOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

/**
 * Real errors of `pg`'s Pool, each from the situation it reports. A server that takes the
 * TCP connection and never answers is what the embedded database's wire server is to a
 * new connection while PGlite's one session is busy with everyone else's rounds.
 */
describe('classifyDatabaseFailure with the errors of pg', () => {
  const sockets = new Set<Socket>();
  let busy: { server: Server; port: number };

  beforeAll(async () => {
    busy = await listen((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => busy.server.close(resolve));
  });

  it('a checkout that waited for a pool whose every connection is busy is saturation: 429 with Retry-After', async () => {
    const pool = poolOn(busy.port, 1);
    pool.on('error', () => undefined);
    // The pool's only connection is taken (it is still waiting for the server's handshake)...
    const held = failureOf(pool.connect());
    // ...so the next checkout waits in the pool's queue until its wait runs out.
    const checkout = await failureOf(pool.connect());
    expect(checkout).toMatchObject({ message: 'timeout exceeded when trying to connect' });
    expect(classifyDatabaseFailure(checkout)).toBe('saturated');
    const refusal = databaseRefusal(checkout);
    expect(refusal).toBeInstanceOf(RetryLaterError);
    expect(refusal).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1 });

    // The held connection's own wait: the server took it but did not answer in time.
    const connect = await held;
    expect(connect).toMatchObject({ message: 'Connection terminated due to connection timeout' });
    expect(classifyDatabaseFailure(connect)).toBe('saturated');
    await pool.end();
  });

  it('a refused connection (no server on the port) is unreachable: 503', async () => {
    const closed = await listen(() => undefined);
    await new Promise((resolve) => closed.server.close(resolve));
    const pool = poolOn(closed.port);
    const refused = await failureOf(pool.query('SELECT 1'));
    expect(refused).toMatchObject({ code: 'ECONNREFUSED' });
    expect(classifyDatabaseFailure(refused)).toBe('unreachable');
    expect(databaseRefusal(refused)).toMatchObject({ code: 'unavailable' });
    await pool.end();
  });

  it('a connection the server drops is unreachable, and so is a pool already ended', async () => {
    const dropping = await listen((socket) => socket.destroy());
    const pool = poolOn(dropping.port);
    const dropped = await failureOf(pool.query('SELECT 1'));
    expect(dropped).toMatchObject({ message: expect.stringMatching(/^Connection terminated/) });
    expect(classifyDatabaseFailure(dropped)).toBe('unreachable');
    await pool.end();
    expect(classifyDatabaseFailure(await failureOf(pool.query('SELECT 1')))).toBe('unreachable');
    await new Promise((resolve) => dropping.server.close(resolve));
  });

  it('looks into wrappers, and leaves what is not about reaching the database alone', () => {
    const typeormWrapped = Object.assign(new Error('Query failed'), { driverError: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }) });
    expect(classifyDatabaseFailure(typeormWrapped)).toBe('unreachable');
    expect(classifyDatabaseFailure(new Error('wrapped', { cause: new Error('timeout exceeded when trying to connect') }))).toBe('saturated');
    expect(classifyDatabaseFailure(Object.assign(new Error('sorry, too many clients already'), { code: '53300' }))).toBe('saturated');
    expect(classifyDatabaseFailure(Object.assign(new Error('invalid byte sequence'), { code: '22021' }))).toBeUndefined();
    expect(classifyDatabaseFailure(new TypeError('x is undefined'))).toBeUndefined();
    expect(databaseRefusal(new TypeError('x is undefined'))).toBeUndefined();
  });
});
