import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { EmbeddedPostgres } from '@herald/database';
import {
  RunningProcess,
  TcpProxy,
  databaseTargets,
  describeTarget,
  expectEventually,
  fetchJson,
  freePort,
  heraldEnv,
  startNodeEntrypoint,
  uniqueName,
  waitUntilReady,
} from '@herald/testing';

/**
 * /health/ready answers 200 only while the database is reachable: the database
 * sits behind a proxy the test cuts and restores.
 */
describe.each(databaseTargets())('readiness follows the database ($kind)', (target) => {
  let embedded: EmbeddedPostgres | undefined;
  let proxy: TcpProxy;
  let herald: RunningProcess;
  let baseUrl: string;
  let dataDir: string;
  const database = uniqueName('herald_ready');

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'herald-ready-'));
    let upstream: URL;
    if (target.kind === 'embedded') {
      embedded = await EmbeddedPostgres.start();
      upstream = new URL(embedded.url);
    } else {
      upstream = new URL(target.url);
      const admin = new Client({ connectionString: target.url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      await admin.end();
      upstream.pathname = `/${database}`;
    }
    proxy = await TcpProxy.start(upstream.hostname, Number(upstream.port || 5432));
    const viaProxy = new URL(upstream.toString());
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);

    const [port, managementPort] = [await freePort(), await freePort()];
    baseUrl = `http://127.0.0.1:${port}/`;
    herald = startNodeEntrypoint(
      'herald',
      'apps/herald/src/main.ts',
      heraldEnv({
        HERALD_PORT: String(port),
        HERALD_MANAGEMENT_PORT: String(managementPort),
        HERALD_DATA_DIR: dataDir,
        HERALD_DATABASE_URL: viaProxy.toString(),
        HERALD_SECRETS_KEY: randomBytes(32).toString('base64'),
      }),
    );
    await waitUntilReady(herald, baseUrl);
  });

  afterAll(async () => {
    await herald?.stop('SIGKILL');
    await proxy?.cut();
    await embedded?.stop();
    if (target.kind === 'postgres') {
      const admin = new Client({ connectionString: target.url });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`turns 503 naming the database when ${describeTarget(target)} is cut off, and 200 once it is back`, async () => {
    try {
      await cutAndRestore();
    } catch (error) {
      // What Herald logged says why; without it a failure here is a guess.
      throw new Error(`${String(error)}\n--- herald output (tail) ---\n${herald.output().slice(-6000)}`);
    }
  });

  async function cutAndRestore(): Promise<void> {
    await proxy.cut();
    const cutOff = await expectEventually(async () => {
      const response = await fetchJson(`${baseUrl}health/ready`);
      expect(response.status).toBe(503);
      return response.body as { checks: Record<string, { status: string }> };
    });
    expect(cutOff.checks.bus).toEqual({ status: 'ok' });
    expect(cutOff.checks['database:ingest'].status).toBe('failing');
    expect((await fetchJson(`${baseUrl}health/live`)).status).toBe(200);

    await proxy.open();
    await expectEventually(async () => expect((await fetchJson(`${baseUrl}health/ready`)).status).toBe(200), {
      timeoutMs: 30_000,
    });
  }
});
