import { randomBytes } from 'node:crypto';
import { fetchJson, heraldEnv } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';

type Answer = { status: number; body: unknown };

/**
 * A read-only API key (minted with `read_only: true`, and every console viewer's session
 * key) reads through every service of `{base_url}` and is refused anything else with 403
 * before the route runs, while a full key of the same workspace still writes. Each
 * service keeps the key's scope in its own credentials read model, from
 * credentials.changed; the key works everywhere as soon as its create answers.
 */
describe.each(heraldModes('readonlykeys'))('read-only API keys ($name)', (mode) => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const fullKey = `hak_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let readOnlyKey: string;

  const management = (method: string, path: string, body?: unknown): Promise<Answer> =>
    fetchJson(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const api = (key: string, method: string, path: string, body?: unknown): Promise<Answer> =>
    fetchJson(`${herald.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    const prepared = await mode.prepare();
    dispose = prepared.dispose;
    herald = await startEmbeddedHerald(
      heraldEnv({
        ...prepared.env,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: fullKey,
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    const created = await management('POST', 'v1/staging/ws_api_key/', { name: 'dashboard', read_only: true });
    expect(created).toMatchObject({ status: 201, body: { name: 'dashboard', read_only: true } });
    readOnlyKey = (created.body as { api_key: string }).api_key;
    expect((await api(fullKey, 'POST', 'v1/user/ada/', { name: 'Ada' })).status).toBe(201);
  }, 300_000);

  afterAll(async () => {
    await herald?.stop();
    await dispose?.();
  });

  it('refuses a read_only that is not a boolean, naming it, and creates nothing', async () => {
    const refused = await management('POST', 'v1/staging/ws_api_key/', { name: 'typo', read_only: 'yes' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('read_only');
    const listed = (await management('GET', 'v1/staging/ws_api_key/?limit=100')).body as { results: Array<{ name: string }> };
    expect(listed.results.map(({ name }) => name)).not.toContain('typo');
  });

  it('lists the key as read-only, and the bootstrap key as a full one', async () => {
    const listed = (await management('GET', 'v1/staging/ws_api_key/?limit=100')).body as { results: Array<{ name: string; read_only: boolean }> };
    expect(listed.results.map(({ name, read_only }) => [name, read_only]).sort()).toEqual([
      ['bootstrap', false],
      ['dashboard', true],
    ]);
  });

  it.each([
    ['preference-service', 'v1/user/ada/', 'GET'],
    ['workflow-engine', 'v1/message/?limit=5', 'GET'],
    ['channel-dispatchers', 'v1/user/ada/inbox/', 'GET'],
  ])('reads through %s (%s)', async (_service, path, method) => {
    const answer = await api(readOnlyKey, method, path);
    expect({ path, status: answer.status }).toEqual({ path, status: 200 });
  });

  it.each([
    ['ingest-api', 'POST', 'trigger/', { workflow: 'any', recipients: ['ada'] }],
    ['preference-service', 'POST', 'v1/user/ada/', { name: 'Mallory' }],
    ['preference-service', 'PATCH', 'v1/user/ada/preference/category/transactional/', { preference: 'opt_out' }],
    ['workflow-engine', 'POST', 'v1/workflow_run/cancel/', { recipients: ['ada'] }],
    ['channel-dispatchers', 'PATCH', 'v1/user/ada/inbox/00000000-0000-4000-8000-000000000000/', { read: true }],
  ])('is refused a write through %s (%s %s) with 403, and nothing changes', async (_service, method, path, body) => {
    const answer = await api(readOnlyKey, method, path, body);
    expect({ path, status: answer.status, body: answer.body }).toMatchObject({ path, status: 403, body: { error_code: 'permission_denied', detail: expect.stringContaining('read-only') } });
    expect(((await api(fullKey, 'GET', 'v1/user/ada/')).body as { properties: Record<string, unknown> }).properties).toMatchObject({ name: 'Ada' });
  });

  it('leaves the full key of the same workspace writing', async () => {
    expect((await api(fullKey, 'POST', 'v1/user/ada/', { name: 'Ada Lovelace' })).status).toBeLessThan(300);
    expect(await api(readOnlyKey, 'GET', 'v1/user/ada/')).toMatchObject({ status: 200, body: { properties: { name: 'Ada Lovelace' } } });
  });
});
