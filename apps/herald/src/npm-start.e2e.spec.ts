import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunningProcess, expectEventually, fetchJson, freePort, heraldEnv, startProcess, waitUntilReady } from '@herald/testing';

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
  // Chosen, so the test can use the notification API; the service token is read from the banner.
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'herald-e2e-'));
    const [port, managementPort] = [await freePort(), await freePort()];
    baseUrl = `http://127.0.0.1:${port}/`;
    managementUrl = `http://127.0.0.1:${managementPort}/`;
    env = heraldEnv({
      HERALD_PORT: String(port),
      HERALD_MANAGEMENT_PORT: String(managementPort),
      HERALD_DATA_DIR: dataDir,
      HERALD_BOOTSTRAP_API_KEY: apiKey,
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
  /** The message log's ids of the run made before the restart. */
  let keptMessageIds: string[] = [];

  const management = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const api = (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    fetchJson(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const succeeded = (response: { status: number; body: unknown }): void => {
    if (response.status < 200 || response.status >= 300) throw new Error(`answered ${response.status}: ${JSON.stringify(response.body)}`);
  };

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
    // The operator console, built by npm ci (or npm start's prestart), knows this Herald's {base_url}.
    const page = await fetch(`${managementUrl}console/`);
    expect({ status: page.status, type: page.headers.get('content-type'), html: (await page.text()).includes('<div id="root">') }).toEqual({
      status: 200,
      type: 'text/html; charset=utf-8',
      html: true,
    });
    expect((await fetchJson(`${managementUrl}console/config.json`)).body).toEqual({ base_url: baseUrl });
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

  // What the restart must keep, in every service's store: management's workspaces and
  // workflows, preference-service's users, the engine's message log, the inbox.
  it('stores a workspace, a workflow, a user and a delivered inbox message', async () => {
    succeeded(await management('POST', 'v1/workspace/', { name: 'Kept across restarts' }));
    succeeded(
      await management('POST', 'v1/staging/preference_category/', {
        root_categories: [{ root_category: 'transactional', sections: [{ name: 'Account', categories: [{ category: 'account', name: 'Account', default_preference: 'opt_in' }] }] }],
      }),
    );
    succeeded(await management('PATCH', 'v1/staging/preference_category/commit/?commit_message=c'));
    succeeded(await management('POST', 'v2/staging/template/kept/', { name: 'Kept', enabled_channels: ['inbox'] }));
    succeeded(await management('POST', 'v2/staging/template/kept/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Kept for {{name}}' } }));
    succeeded(await management('PATCH', 'v2/staging/template/kept/commit/?commit_message=t'));
    succeeded(await management('POST', 'v1/staging/workflow/kept/', { name: 'Kept', category: 'account', trigger_type: 'api', tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'kept' }] } }));
    succeeded(await management('PATCH', 'v1/staging/workflow/kept/commit/?commit_message=w'));
    await expectEventually(async () => expect((await api('POST', 'v1/user/rita/', { name: 'Rita', plan: 'kept' })).status).toBe(201), { timeoutMs: 30_000 });
    // The workflow reaches ingest through the bus: retry until it is known.
    await expectEventually(async () => expect((await api('POST', 'trigger/', { workflow: 'kept', recipients: ['rita'], data: { name: 'Rita' } })).status).toBe(202), { timeoutMs: 30_000 });
    await expectEventually(async () => expect(JSON.stringify((await api('GET', 'v1/user/rita/inbox/')).body)).toContain('Kept for Rita'), { timeoutMs: 30_000 });
    await expectEventually(async () => expect((await api('GET', 'v1/message/?workflow_slug=kept')).body).toMatchObject({ meta: { count: 1 } }), { timeoutMs: 30_000 });
    keptMessageIds = ((await api('GET', 'v1/message/?workflow_slug=kept')).body as { results: Array<{ message_id: string }> }).results.map((m) => m.message_id);
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
    // No credentials banner again; the bootstrap variable it was started with is said to be ignored.
    expect(herald.output()).not.toMatch(/^service token:/m);
    expect(herald.output()).not.toContain(serviceToken);
    expect(herald.logLines().some((l) => l.level === 'warn' && String(l.ignored).includes('HERALD_BOOTSTRAP_API_KEY'))).toBe(true);
    const workspaces = await management('GET', 'v1/workspace/');
    expect(workspaces.status).toBe(200);
    expect((workspaces.body as { results: Array<{ slug: string }> }).results.map((w) => w.slug)).toEqual(['staging', 'kept-across-restarts']);
    // The data written before the restart, read back from each service's store.
    expect(await management('GET', 'v1/staging/workflow/kept/')).toMatchObject({ status: 200, body: { slug: 'kept', name: 'Kept', status: 'active', version_no: 1 } });
    expect(await api('GET', 'v1/user/rita/')).toMatchObject({ status: 200, body: { distinct_id: 'rita', properties: { name: 'Rita', plan: 'kept' } } });
    expect(JSON.stringify((await api('GET', 'v1/user/rita/inbox/')).body)).toContain('Kept for Rita');
    const log = (await api('GET', 'v1/message/?workflow_slug=kept')).body as { results: Array<{ message_id: string }> };
    expect(log.results.map((m) => m.message_id)).toEqual(keptMessageIds);
    expect(keptMessageIds).toHaveLength(1);
    // And it goes on working: a new trigger of the stored workflow for the stored user reaches the inbox.
    expect((await api('POST', 'trigger/', { workflow: 'kept', recipients: ['rita'], data: { name: 'Rita again' } })).status).toBe(202);
    await expectEventually(async () => expect(JSON.stringify((await api('GET', 'v1/user/rita/inbox/')).body)).toContain('Kept for Rita again'), { timeoutMs: 30_000 });
    await herald.stop('SIGINT');
    expect(herald.logLines().map((l) => l.msg)).toContain('shutdown complete');
  });

  // A supervisor or `kill` signals npm alone, not its process group: Herald must not outlive it.
  it.each<[NodeJS.Signals, string]>([
    ['SIGTERM', 'npm passes it on'],
    ['SIGKILL', 'Herald sees its parent gone'],
  ])('ends with npm on %s to npm only (%s): the node process exits, the port and the data folder are freed', async (signal) => {
    const herald = npmStart(`${signal} to npm`);
    await waitUntilReady(herald, managementUrl);
    const heraldPid = Number(readFileSync(join(dataDir, 'herald.pid'), 'utf8'));
    expect(heraldPid).not.toBe(herald.child.pid);
    process.kill(herald.child.pid as number, signal);
    await expectEventually(() => expect(isAlive(heraldPid)).toBe(false), { timeoutMs: 30_000 });
    expect(existsSync(join(dataDir, 'herald.pid'))).toBe(false);
    expect(await canListen(new URL(baseUrl).port)).toBe(true);
    expect(herald.logLines().map((l) => l.msg)).toContain('shutdown complete');
    expect(herald.logLines().filter((l) => l.level === 'error')).toEqual([]);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function canListen(port: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(Number(port), '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
