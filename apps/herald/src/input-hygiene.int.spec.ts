import { randomBytes } from 'node:crypto';
import { INPUT_LIMITS } from '@herald/contracts';
import { SeededRandom, expectEventually, heraldEnv } from '@herald/testing';
import { EmbeddedHerald, startEmbeddedHerald } from './embedded-herald';
import { heraldModes } from './testing/herald-modes';
import { FuzzOperation, FuzzRequest, fuzzRequest, operationsOf } from './testing/openapi-fuzzer';

/**
 * The input-hygiene rule (issue 14) over the whole of Herald as `npm start` composes it:
 * targeted cases (NUL and lone surrogates in path, query, body and keys, over-deep
 * bodies), then a seeded fuzz of every operation both OpenAPI documents describe, which
 * must never get a 5xx, hang or crash Herald, and must leave the data written before it
 * as it was.
 */
const SEED = 0x14_0002;
const FUZZED_REQUESTS = 3_000;
const CONCURRENCY = 8;
const REQUEST_TIMEOUT_MS = 15_000;

type Api = 'public' | 'management';
interface Answer {
  readonly status: number;
  readonly body: unknown;
}

describe.each(heraldModes('hygiene'))('input hygiene at every edge ($name)', (mode) => {
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const stagingApiKey = `hak_${randomBytes(24).toString('base64url')}`;
  let herald: EmbeddedHerald;
  let dispose: () => Promise<void>;
  let fuzzApiKey: string;
  let fuzzWorkspaceKey: string;

  const urlOf = (api: Api, target: string): string => `${api === 'public' ? herald.baseUrl : herald.managementUrl}${target}`;
  const send = async (api: Api, method: string, target: string, body?: string | Buffer, auth: string | null = api === 'public' ? `Bearer ${fuzzApiKey}` : `ServiceToken ${serviceToken}`): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (auth) headers.authorization = auth;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(urlOf(api, target), { method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, body: parsed };
  };
  const json = (api: Api, method: string, target: string, body?: unknown, auth?: string | null): Promise<Answer> =>
    send(api, method, target, body === undefined ? undefined : JSON.stringify(body), auth);
  const staging = (method: string, target: string, body?: unknown): Promise<Answer> => json('public', method, target, body, `Bearer ${stagingApiKey}`);

  /** What the test writes before the fuzz (in both workspaces), read back the same way after it. */
  const snapshotReads: Array<[Api, string, string | null]> = [];
  const snapshot = async (): Promise<Answer[]> => Promise.all(snapshotReads.map(([api, target, auth]) => json(api, 'GET', target, undefined, auth ?? undefined)));

  beforeAll(async () => {
    const prepared = await mode.prepare();
    dispose = prepared.dispose;
    herald = await startEmbeddedHerald(
      heraldEnv({
        ...prepared.env,
        HERALD_PORT: '0',
        HERALD_MANAGEMENT_PORT: '0',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: stagingApiKey,
        HERALD_LOG_LEVEL: 'error',
      }),
    );
    // The fuzz runs in a workspace of its own; the staging workspace must not notice it.
    expect(await json('management', 'POST', 'v1/workspace/', { name: 'Fuzz', slug: 'fuzz' })).toMatchObject({ status: 200 });
    const apiKey = await json('management', 'POST', 'v1/fuzz/ws_api_key/', { name: 'fuzz' });
    fuzzApiKey = (apiKey.body as { api_key: string }).api_key;
    const workspaceKey = await json('management', 'POST', 'v1/fuzz/ws_key/', { name: 'fuzz' });
    fuzzWorkspaceKey = (workspaceKey.body as { key: string }).key;

    for (const workspace of ['staging', 'fuzz']) {
      const categories = {
        root_categories: [{ root_category: 'transactional', sections: [{ name: 'Account', categories: [{ category: 'account', name: 'Account', default_preference: 'opt_in' }] }] }],
      };
      expect(await json('management', 'POST', `v1/${workspace}/preference_category/`, categories)).toMatchObject({ status: 200 });
      expect(await json('management', 'PATCH', `v1/${workspace}/preference_category/commit/?commit_message=seed`)).toMatchObject({ status: 200 });
      const workflow = { name: 'Seed', category: 'account', trigger_type: 'api', tree: { nodes: [{ name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration: '0d0h1m0s' }] } };
      expect(await json('management', 'POST', `v1/${workspace}/workflow/seed-workflow/`, workflow)).toMatchObject({ status: 201 });
      expect(await json('management', 'PATCH', `v1/${workspace}/workflow/seed-workflow/commit/?commit_message=seed`)).toMatchObject({ status: 202 });
      expect(await json('management', 'POST', `v2/${workspace}/template/seed-template/`, { name: 'Seed template' })).toMatchObject({ status: 200 });
      const variant = `v2/${workspace}/template/seed-template/channel/email/variant/default/`;
      expect(await json('management', 'POST', variant, { locale: 'en', content: { subject: 'Hi', text: 'Hi {{name}}' } })).toMatchObject({ status: 200 });
      snapshotReads.push(
        ['management', `v1/${workspace}/workflow/seed-workflow/`, null],
        ['management', `v2/${workspace}/template/seed-template/`, null],
        ['management', variant, null],
      );
    }
    snapshotReads.push(['management', 'v1/staging/preference_category/', null], ['management', 'v1/staging/ws_api_key/', null]);

    // Both workspaces' API keys reach the public services through the bus.
    for (const key of [stagingApiKey, fuzzApiKey]) {
      await expectEventually(async () => expect((await json('public', 'GET', 'v1/user/nobody/', undefined, `Bearer ${key}`)).status).toBe(404), { timeoutMs: 30_000 });
      await expectEventually(async () => expect((await json('public', 'POST', 'event/', { distinct_id: 'probe', event: 'probe' }, `Bearer ${key}`)).status).toBe(202), { timeoutMs: 30_000 });
    }
    for (const [auth, call] of [
      [`Bearer ${stagingApiKey}`, staging],
      [`Bearer ${fuzzApiKey}`, (method: string, target: string, body?: unknown) => json('public', method, target, body)],
    ] as const) {
      expect(await call('POST', 'v1/user/seed-user/', { name: 'Ada', $email: ['ada@example.com'], tags: ['a', 'b'] })).toMatchObject({ status: 201 });
      expect(await call('POST', 'v1/object/seed-type/seed-object/', { title: 'Seed' })).toMatchObject({ status: 201 });
      expect(await call('POST', 'v1/subscriber_list/', { list_id: 'seed-list', list_name: 'Seed list' })).toMatchObject({ status: 201 });
      expect((await call('POST', 'v1/subscriber_list/seed-list/subscriber/add/', { distinct_ids: ['seed-user'] })).status).toBeLessThan(300);
      expect((await call('POST', 'v1/tenant/seed-tenant/', { tenant_name: 'Seed tenant' })).status).toBeLessThan(300);
      snapshotReads.push(
        ['public', 'v1/user/seed-user/', auth],
        ['public', 'v1/object/seed-type/seed-object/', auth],
        ['public', 'v1/subscriber_list/seed-list/', auth],
        ['public', 'v1/subscriber_list/seed-list/subscriber/', auth],
        ['public', 'v1/tenant/seed-tenant/', auth],
      );
    }
  }, 180_000);

  afterAll(async () => {
    await herald?.stop();
    await dispose?.();
  });

  const refused = (status: number, path: string, kind: RegExp) => ({ status, body: expect.objectContaining({ error_code: 'validation_error', detail: expect.stringMatching(new RegExp(`${escapeRegExp(path)}: .*${kind.source}`)) }) });

  it('refuses a NUL or a lone surrogate in a path segment, the query, a body value and a body key with 400 naming the field', async () => {
    expect(await json('public', 'GET', 'v1/user/a%00b/')).toMatchObject(refused(400, 'distinct_id', /NUL/));
    expect(await json('public', 'POST', 'v1/user/a%00b/', { name: 'x' })).toMatchObject(refused(400, 'distinct_id', /NUL/));
    expect(await json('public', 'GET', 'v1/user/seed-user/?tenant_id=%00')).toMatchObject(refused(400, 'tenant_id', /NUL/));
    expect(await json('public', 'POST', 'v1/user/hygiene-1/', { name: 'a\u0000' })).toMatchObject(refused(400, 'name', /NUL/));
    expect(await json('public', 'POST', 'v1/user/hygiene-1/', { nested: { 'k\ud800': 1 } })).toMatchObject(refused(400, 'nested["k\\ud800"]', /key contains a lone UTF-16 surrogate/));
    expect(await json('public', 'PATCH', 'v1/user/seed-user/', { operations: [{ $set: { bad: '\udc00' } }] })).toMatchObject(refused(400, 'operations[0].$set.bad', /surrogate/));
    expect(await json('management', 'POST', 'v1/fuzz/workflow/hygiene/', { name: 'W\u0000', tree: { nodes: [] } })).toMatchObject(refused(400, 'name', /NUL/));
    expect(await json('management', 'GET', 'v1/fuzz/workflow/?q=%00')).toMatchObject(refused(400, 'q', /NUL/));
    expect(await json('management', 'GET', 'v2/fuzz/template/a%00/')).toMatchObject(refused(400, 'template_slug', /NUL/));
  });

  it('refuses a NUL or a lone surrogate in $idempotency_key with 400, not a 503 an SDK would retry', async () => {
    const trigger = await json('public', 'POST', 'trigger/', { workflow: 'seed-workflow', recipients: ['r1'], $idempotency_key: 'key\u0000' });
    expect(trigger).toMatchObject(refused(400, '$idempotency_key', /NUL/));
    const event = await json('public', 'POST', 'event/', { distinct_id: 'r1', event: 'e', $idempotency_key: '\ud800' });
    expect(event).toMatchObject(refused(400, '$idempotency_key', /surrogate/));
    const bulk = await json('public', 'POST', 'trigger/', [{ workflow: 'seed-workflow', recipients: ['r1'] }, { workflow: 'seed-workflow', recipients: ['r2'], $idempotency_key: '\u0000' }]);
    expect(bulk).toMatchObject(refused(400, '[1].$idempotency_key', /NUL/));
  });

  it(`refuses bodies nested deeper than ${INPUT_LIMITS.maxDepth} levels or with more than ${INPUT_LIMITS.maxKeysPerObject} keys in an object, on both APIs`, async () => {
    const deep = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    expect(await send('public', 'POST', 'v1/user/hygiene-2/', deep(10_000))).toMatchObject({ status: 400, body: { detail: expect.stringContaining('nested too deeply') } });
    expect(await send('public', 'POST', 'v1/user/hygiene-2/', `{"data":${deep(5_000)}}`)).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/^data\[0\].*nested too deeply/) } });
    expect(await send('management', 'POST', 'v1/fuzz/workflow/hygiene/', `{"name":"W","tree":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`)).toMatchObject({
      status: 400,
      body: { detail: expect.stringContaining('nested too deeply') },
    });
    const keys = (n: number): Record<string, number> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(await json('public', 'POST', 'trigger/', { workflow: 'seed-workflow', recipients: ['r3'], data: keys(INPUT_LIMITS.maxKeysPerObject + 1) })).toMatchObject(refused(400, 'data', /keys per object/));
    expect(await json('public', 'POST', 'trigger/', { workflow: 'seed-workflow', recipients: ['r3'], data: keys(INPUT_LIMITS.maxKeysPerObject) })).toMatchObject({ status: 202 });
    // The body is level 1, data level 2: data holds maxDepth - 1 levels of objects.
    let data: Record<string, unknown> = {};
    for (let level = 1; level < INPUT_LIMITS.maxDepth - 1; level += 1) data = { a: data };
    expect(await json('public', 'POST', 'trigger/', { workflow: 'seed-workflow', recipients: ['r3'], data })).toMatchObject({ status: 202 });
    expect(await json('public', 'POST', 'trigger/', { workflow: 'seed-workflow', recipients: ['r3'], data: { a: data } })).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/^data(\.a){63}: is nested too deeply/) } });
  });

  it(`answers ${FUZZED_REQUESTS} seeded fuzzed requests over every operation of both APIs without a 5xx, a hang or a crash, and changes nothing it must not`, async () => {
    const before = await snapshot();
    const documents = {
      public: (await json('public', 'GET', 'openapi.json')).body as Parameters<typeof operationsOf>[0],
      management: (await json('management', 'GET', 'openapi.json')).body as Parameters<typeof operationsOf>[0],
    };
    const operations: Array<{ api: Api; operation: FuzzOperation }> = (['public', 'management'] as const).flatMap((api) => operationsOf(documents[api]).map((operation) => ({ api, operation })));
    expect(operations.length).toBeGreaterThan(40);
    const rng = new SeededRandom(SEED);
    const context = {
      knownParams: { workspace: 'fuzz', workspace_key: fuzzWorkspaceKey, channel: 'email', vendor: 'resend', object_type: 'team' },
      reserved: new Set(['seed-user', 'seed-object', 'seed-type', 'seed-list', 'seed-tenant', 'seed-workflow', 'seed-template', 'staging']),
    };
    // Every operation in turn, so each gets its share whatever the document's size.
    const requests: Array<{ api: Api; request: FuzzRequest }> = Array.from({ length: FUZZED_REQUESTS }, (_, index) => {
      const { api, operation } = operations[index % operations.length];
      return { api, request: fuzzRequest(rng, operation, context, documents[api], index) };
    });

    const failures: string[] = [];
    const statuses = new Map<string, Set<number>>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < requests.length) {
        const { api, request } = requests[(next += 1) - 1];
        // One request in ten without credentials: the refusals before authentication must hold too.
        const auth = rng.chance(0.1) ? null : undefined;
        try {
          const answer = await send(api, request.method, request.target, request.body, auth);
          const seen = statuses.get(`${api} ${request.label.replace(/^#\d+ /, '')}`) ?? new Set<number>();
          seen.add(answer.status);
          statuses.set(`${api} ${request.label.replace(/^#\d+ /, '')}`, seen);
          if (answer.status >= 500) failures.push(`${request.label} ${request.target.slice(0, 200)}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)} (body: ${String(request.body).slice(0, 200)})`);
        } catch (error) {
          failures.push(`${request.label} ${request.target.slice(0, 200)}: no answer (${String(error)}) (body: ${String(request.body).slice(0, 200)})`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    expect(failures).toEqual([]);
    // Every operation of both documents was reached.
    expect(statuses.size).toBe(operations.length);
    for (const api of ['public', 'management'] as const) {
      expect(await json(api, 'GET', 'health/live')).toMatchObject({ status: 200 });
      await expectEventually(async () => expect(await json(api, 'GET', 'health/ready')).toMatchObject({ status: 200 }));
    }
    expect(await snapshot()).toEqual(before);
  }, 300_000);
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
