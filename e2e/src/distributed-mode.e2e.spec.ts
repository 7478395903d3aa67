import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { Suprsend, WorkflowTriggerRequest } from '@suprsend/node-sdk';
import {
  RunningProcess,
  expectEventually,
  fetchJson,
  freePort,
  heraldEnv,
  startNodeEntrypoint,
  testInfrastructure,
  uniqueName,
  waitUntilReady,
} from '@herald/testing';

const SERVICES = [
  { name: 'ingest-api', schema: 'ingest', api: 'public' },
  { name: 'workflow-engine', schema: 'engine', api: 'public' },
  { name: 'preference-service', schema: 'audience', api: 'public' },
  { name: 'management-api', schema: 'management', api: 'management' },
  { name: 'channel-dispatchers', schema: 'dispatch', api: 'public' },
] as const;

const infra = testInfrastructure();
const distributed = infra.kafkaBrokers && infra.databaseUrl ? describe : describe.skip;

describe('a service started on its own', () => {
  it('refuses to start without Kafka and Postgres, naming what is missing', async () => {
    const service = startNodeEntrypoint('ingest-api', 'apps/ingest-api/src/main.ts', heraldEnv({}));
    expect(await service.exited).toBe(2);
    expect(service.output()).toContain('HERALD_KAFKA_BROKERS is required to run ingest-api on its own');
    expect(service.output()).toContain('HERALD_DATABASE_URL is required to run ingest-api on its own');
  });
});

/**
 * The distributed mode as it runs in Kubernetes: each service its own process, all
 * against the real Kafka broker and the real Postgres server of the test
 * configuration (a fresh database for this file).
 */
distributed(`distributed mode: five processes on Kafka ${infra.kafkaBrokers?.join(',')} and Postgres`, () => {
  const databaseName = uniqueName('herald_e2e');
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const workspaceKey = `hwk_${randomBytes(16).toString('hex')}`;
  const workspaceSecret = `hws_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const running = new Map<string, { process: RunningProcess; url: string }>();
  let databaseUrl: string;

  async function admin<T>(url: string, run: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return await run(client);
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    const configured = new URL(infra.databaseUrl as string);
    await admin(configured.toString(), (c) => c.query(`CREATE DATABASE ${databaseName}`));
    configured.pathname = `/${databaseName}`;
    databaseUrl = configured.toString();

    const secretsKey = randomBytes(32).toString('base64');
    for (const service of SERVICES) {
      const port = await freePort();
      const env = heraldEnv({
        HERALD_KAFKA_BROKERS: (infra.kafkaBrokers as readonly string[]).join(','),
        HERALD_DATABASE_URL: databaseUrl,
        HERALD_SECRETS_KEY: secretsKey,
        HERALD_PORT: String(port),
        HERALD_MANAGEMENT_PORT: String(port),
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_WORKSPACE_KEY: workspaceKey,
        HERALD_BOOTSTRAP_WORKSPACE_SECRET: workspaceSecret,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_KAFKA_CLIENT_ID: databaseName,
      });
      running.set(service.name, {
        process: startNodeEntrypoint(service.name, `apps/${service.name}/src/main.ts`, env),
        url: `http://127.0.0.1:${port}/`,
      });
    }
    await Promise.all([...running.values()].map(({ process, url }) => waitUntilReady(process, url)));
  });

  afterAll(async () => {
    await Promise.all([...running.values()].map(({ process }) => process.stop('SIGKILL')));
    await admin(infra.databaseUrl as string, (c) => c.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`));
  });

  it.each(SERVICES)('$name is ready, having checked the broker, its own schema and its HTTP connection cap', async ({ name, schema, api }) => {
    const { url } = running.get(name) as { url: string };
    const { status, body } = await fetchJson(`${url}health/ready`);
    expect(status).toBe(200);
    expect(body).toEqual({
      ready: true,
      status: 'ok',
      checks: { bus: { status: 'ok' }, [`database:${schema}`]: { status: 'ok' }, [`http_connections_${api}`]: { status: 'ok' } },
    });
    const metrics = await fetchJson(`${url}metrics`);
    expect(String(metrics.body)).toContain(`herald_process="${name}"`);
  });

  it('gave each service its own schema, migrated', async () => {
    const schemas = await admin(databaseUrl, async (c) => {
      const result = await c.query<{ table_schema: string }>(
        `SELECT DISTINCT table_schema FROM information_schema.tables WHERE table_name = 'schema_migrations' ORDER BY 1`,
      );
      return result.rows.map((r) => r.table_schema);
    });
    expect(schemas).toEqual(SERVICES.map((s) => s.schema).sort());
  });

  it('serves the management API with the configured bootstrap token', async () => {
    const { url } = running.get('management-api') as { url: string };
    const { status, body } = await fetchJson(`${url}v1/workspace/`, { headers: { authorization: `ServiceToken ${serviceToken}` } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ meta: { count: 1 }, results: [{ slug: 'staging' }] });
  });

  it("lets the official Node SDK reach every service through the gateway, its only base URL", async () => {
    const urlOf = (name: string): string => (running.get(name) as { url: string }).url.replace(/\/$/, '');
    const upstreams = ['ingest-api', 'preference-service', 'workflow-engine', 'channel-dispatchers'].map((name) => `${name}=${urlOf(name)}`).join(',');
    const gatewayPort = await freePort();
    // `npm run start:gateway`, as a user runs it next to the five services.
    const gateway = startNodeEntrypoint('gateway', 'apps/herald/src/gateway-main.ts', heraldEnv({ HERALD_GATEWAY_PORT: String(gatewayPort), HERALD_GATEWAY_UPSTREAMS: upstreams }));
    const baseUrl = `http://127.0.0.1:${gatewayPort}/`;
    try {
      await waitUntilReady(gateway, baseUrl);
      const management = async (method: string, path: string, body?: unknown): Promise<void> => {
        const response = await fetchJson(`${urlOf('management-api')}/${path}`, {
          method,
          headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        expect({ path, status: response.status < 300 ? 'ok' : response.status, body: response.body }).toMatchObject({ status: 'ok' });
      };
      await management('POST', 'v2/staging/template/gateway-hello/', { name: 'Gateway hello', enabled_channels: ['inbox'] });
      await management('POST', 'v2/staging/template/gateway-hello/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Hi {{name}}' } });
      await management('PATCH', 'v2/staging/template/gateway-hello/commit/?commit_message=t');
      await management('POST', 'v1/staging/workflow/gateway-hello/?commit=true&commit_message=first', {
        name: 'Gateway hello',
        category: 'transactional',
        trigger_type: 'api',
        tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'gateway-hello' }] },
      });

      const sdk = new Suprsend(workspaceKey, workspaceSecret, { base_url: baseUrl });
      expect(await sdk.users.upsert('gateway-ada', { name: 'Ada' })).toMatchObject({ distinct_id: 'gateway-ada' });
      // The workspace and workflow reach ingest-api over Kafka: the first triggers may precede them.
      await expectEventually(async () => {
        const accepted = await sdk.workflows.trigger(new WorkflowTriggerRequest({ workflow: 'gateway-hello', recipients: ['gateway-ada'], data: { name: 'Ada' } }));
        expect(accepted).toMatchObject({ success: true, status_code: 202 });
      }, { timeoutMs: 30_000 });
      await expectEventually(async () => {
        const page = (await sdk.messages.list({ recipient_id: 'gateway-ada' })) as { results: Array<{ channel: string; status: string }> };
        expect(page.results).toEqual([expect.objectContaining({ channel: 'inbox', status: 'delivered' })]);
      }, { timeoutMs: 30_000 });
      const inbox = await fetchJson(`${baseUrl}v1/user/gateway-ada/inbox/`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(inbox.status).toBe(200);
      expect(JSON.stringify(inbox.body)).toContain('Hi Ada');
    } finally {
      await gateway.stop('SIGTERM');
    }
  });

  it("sees a profile saved with the Node SDK in the run of a trigger sent at once (read-your-writes across services), 50 times", async () => {
    const urlOf = (name: string): string => (running.get(name) as { url: string }).url;
    for (const [method, path, body] of [
      ['POST', 'v2/staging/template/ryw-hello/', { name: 'RYW hello', enabled_channels: ['inbox'] }],
      ['POST', 'v2/staging/template/ryw-hello/channel/inbox/variant/default/', { locale: 'en', content: { body: 'Hi {{$recipient.name}}' } }],
      ['PATCH', 'v2/staging/template/ryw-hello/commit/?commit_message=t', undefined],
      [
        'POST',
        'v1/staging/workflow/ryw-hello/?commit=true&commit_message=first',
        { name: 'RYW hello', category: 'transactional', trigger_type: 'api', tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'ryw-hello' }] } },
      ],
    ] as const) {
      // A commit answers once ingest-api and the engine hold it.
      const response = await fetchJson(`${urlOf('management-api')}${path}`, {
        method,
        headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect({ path, status: response.status < 300 ? 'ok' : response.status }).toEqual({ path, status: 'ok' });
    }
    const sdk = new Suprsend(workspaceKey, workspaceSecret, { base_url: urlOf('ingest-api') });
    const ids = Array.from({ length: 50 }, (_, i) => `ryw-${i}`);
    for (let start = 0; start < ids.length; start += 10) {
      await Promise.all(
        ids.slice(start, start + 10).map(async (id) => {
          const user = sdk.user.get_instance(id);
          user.set('name', `name of ${id}`);
          expect(await user.save()).toMatchObject({ success: true, status_code: 202 });
          const accepted = await sdk.workflows.trigger(new WorkflowTriggerRequest({ workflow: 'ryw-hello', recipients: [id], data: {} }));
          expect(accepted).toMatchObject({ success: true, status_code: 202 });
        }),
      );
    }
    const texts = new Map<string, string>();
    await expectEventually(async () => {
      for (const id of ids.filter((id) => !texts.has(id))) {
        const inbox = await fetchJson(`${urlOf('channel-dispatchers')}v1/user/${id}/inbox/`, { headers: { authorization: `Bearer ${apiKey}` } });
        const results = (inbox.body as { results?: unknown[] }).results ?? [];
        if (results.length > 0) texts.set(id, JSON.stringify(results));
      }
      expect(texts.size).toBe(ids.length);
    }, { timeoutMs: 60_000 });
    expect(ids.filter((id) => !(texts.get(id) ?? '').includes(`Hi name of ${id}`))).toEqual([]);
  });

  it('stops every service gracefully on SIGTERM', async () => {
    const codes = await Promise.all([...running.values()].map(({ process }) => process.stop('SIGTERM')));
    expect(codes).toEqual(SERVICES.map(() => 0));
    for (const { process } of running.values()) {
      expect(process.logLines().map((l) => l.msg)).toContain('shutdown complete');
      expect(process.logLines().filter((l) => l.level === 'error')).toEqual([]);
    }
  });
});
