import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunningProcess, fetchJson, freePort, heraldEnv, startProcess, waitUntilReady } from '@herald/testing';

/**
 * `npm start` as a user runs it: the embedded default, every service in one
 * process, PGlite under the data folder, the in-process bus.
 */
describe('npm start (embedded mode)', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let baseUrl: string;
  let managementUrl: string;
  const started: RunningProcess[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'herald-e2e-'));
    const [port, managementPort] = [await freePort(), await freePort()];
    baseUrl = `http://127.0.0.1:${port}/`;
    managementUrl = `http://127.0.0.1:${managementPort}/`;
    env = heraldEnv({
      HERALD_PORT: String(port),
      HERALD_MANAGEMENT_PORT: String(managementPort),
      HERALD_DATA_DIR: dataDir,
    });
  });

  afterAll(async () => {
    await Promise.all(started.map((p) => p.stop('SIGKILL')));
    rmSync(dataDir, { recursive: true, force: true });
  });

  function npmStart(name: string): RunningProcess {
    const herald = startProcess(name, 'npm', ['start', '--silent'], env);
    started.push(herald);
    return herald;
  }

  function printedCredential(output: string, label: string): string {
    const match = new RegExp(`^${label}:\\s+(\\S+)`, 'm').exec(output);
    if (!match) throw new Error(`no ${label} in output:\n${output}`);
    return match[1];
  }

  let serviceToken: string;

  it('serves /health/ready on both ports, with every dependency checked', async () => {
    const herald = npmStart('first start');
    await waitUntilReady(herald, baseUrl);
    await waitUntilReady(herald, managementUrl);

    const { body } = await fetchJson(`${baseUrl}health/ready`);
    expect(body).toMatchObject({
      ready: true,
      checks: {
        bus: { status: 'ok' },
        'database:ingest': { status: 'ok' },
        'database:engine': { status: 'ok' },
        'database:audience': { status: 'ok' },
        'database:dispatch': { status: 'ok' },
      },
    });
    expect((await fetchJson(`${managementUrl}health/live`)).body).toEqual({ status: 'ok' });
  });

  it('prints the bootstrap credentials once, and they work on the management API', async () => {
    const herald = started[0];
    serviceToken = printedCredential(herald.output(), 'service token');
    expect(printedCredential(herald.output(), 'workspace')).toBe('staging');

    const ok = await fetchJson(`${managementUrl}v1/workspace/`, { headers: { authorization: `ServiceToken ${serviceToken}` } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ meta: { count: 1, limit: 20, offset: 0 }, results: [{ slug: 'staging' }] });

    const denied = await fetchJson(`${managementUrl}v1/workspace/`, { headers: { authorization: 'ServiceToken nope' } });
    expect(denied).toEqual({
      status: 401,
      body: {
        code: 401,
        error_code: 'authentication_failed',
        type: 'AuthenticationFailed',
        message: 'invalid service token',
        detail: 'invalid service token',
      },
    });
  });

  it('logs structured JSON and exposes Prometheus metrics', async () => {
    const herald = started[0];
    expect(herald.logLines()).toContainEqual(
      expect.objectContaining({ level: 'info', service: 'embedded', msg: 'Herald is up (embedded mode)' }),
    );
    const metrics = await fetchJson(`${baseUrl}metrics`);
    expect(metrics.status).toBe(200);
    expect(String(metrics.body)).toContain('herald_http_request_duration_seconds_bucket');
    expect(String(metrics.body)).toContain('herald_process="embedded"');
    // The token appears in the one-time banner only, never in a log line.
    expect(herald.logLines().some((line) => JSON.stringify(line).includes(serviceToken))).toBe(false);
  });

  it('refuses a second process on the same data folder', async () => {
    const intruder = npmStart('second process');
    expect(await intruder.exited).not.toBe(0);
    expect(intruder.output()).toContain('is in use by Herald process');
  });

  it('shuts down gracefully on SIGINT (Ctrl-C)', async () => {
    const herald = started[0];
    // The signal reaches npm and Herald together, as a terminal sends it; the exit
    // status seen here is npm's, so the proof is Herald's own account of its shutdown.
    await herald.stop('SIGINT');
    const messages = herald.logLines().map((l) => l.msg);
    expect(messages).toEqual(expect.arrayContaining(['shutting down', 'shutdown step finished', 'shutdown complete']));
    expect(herald.logLines().filter((l) => l.level === 'error')).toEqual([]);
  });

  it('keeps its data across a restart and does not print credentials again', async () => {
    const herald = npmStart('restart');
    await waitUntilReady(herald, managementUrl);
    expect(herald.output()).not.toContain('service token');
    const ok = await fetchJson(`${managementUrl}v1/workspace/`, { headers: { authorization: `ServiceToken ${serviceToken}` } });
    expect(ok.status).toBe(200);
    await herald.stop('SIGINT');
    expect(herald.logLines().map((l) => l.msg)).toContain('shutdown complete');
  });
});
