import { randomBytes } from 'node:crypto';
import { INPUT_LIMITS, MAX_ID_LENGTH } from '@herald/contracts';
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
/** `$v$$v1$…`: about 450 KB of dollar-quote tags, under the 800 KB trigger limit. */
const DOLLAR_TAGS = 60_000;

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

  it(`takes an id of ${MAX_ID_LENGTH} characters on the trigger and on every route whose path names it, and refuses a longer one everywhere with 400 naming the field, never the router's 414`, async () => {
    const longest = `u${'x'.repeat(MAX_ID_LENGTH - 1)}`;
    const tooLong = `${longest}y`;
    const wayTooLong = 'z'.repeat(2_000);
    // The longest id: accepted by the trigger, and addressable on every route that names a user (the router once allowed 100).
    expect(await json('public', 'POST', 'trigger/', { workflow: 'seed-workflow', recipients: [longest] })).toMatchObject({ status: 202 });
    expect(await json('public', 'POST', `v1/user/${longest}/`, { name: 'Long' })).toMatchObject({ status: 201 });
    expect(await json('public', 'GET', `v1/user/${longest}/`)).toMatchObject({ status: 200, body: { distinct_id: longest } });
    expect(await json('public', 'GET', `v1/user/${longest}/preference/`)).toMatchObject({ status: 200 });
    expect(await json('public', 'GET', `v1/user/${longest}/inbox/`)).toMatchObject({ status: 200 });
    expect(await json('public', 'POST', `v1/object/seed-type/${longest}/`, { title: 'Long' })).toMatchObject({ status: 201 });
    // Even written with every character percent-encoded (3 bytes each), it fits the router.
    const encoded = encodeURIComponent('é'.repeat(MAX_ID_LENGTH));
    expect(await json('public', 'GET', `v1/user/${encoded}/`)).toMatchObject({ status: 404 });
    // One character more: 400 naming the field, in the body and in every path.
    expect(await json('public', 'POST', 'trigger/', { workflow: 'seed-workflow', recipients: [tooLong] })).toMatchObject(refused(400, 'recipients[0]', /at most 255 characters/));
    expect(await json('public', 'POST', 'trigger/', { workflow: 'seed-workflow', recipients: ['ok'], tenant_id: tooLong })).toMatchObject(refused(400, 'tenant_id', /at most 255/));
    expect(await json('public', 'POST', 'event/', { distinct_id: tooLong, event: 'e' })).toMatchObject(refused(400, 'distinct_id', /at most 255/));
    expect(await json('public', 'POST', 'v1/subscriber_list/', { list_id: tooLong })).toMatchObject(refused(400, 'list_id', /at most 255/));
    expect(await json('public', 'POST', 'v1/subscriber_list/seed-list/subscriber/add/', { distinct_ids: ['ok', tooLong] })).toMatchObject(refused(400, 'distinct_ids[1]', /at most 255/));
    for (const id of [tooLong, wayTooLong]) {
      for (const [method, target, field] of [
        ['GET', `v1/user/${id}/`, 'distinct_id'],
        ['POST', `v1/user/${id}/`, 'distinct_id'],
        ['GET', `v1/user/${id}/preference/`, 'distinct_id'],
        ['GET', `v1/user/${id}/inbox/`, 'distinct_id'],
        ['GET', `v1/object/seed-type/${id}/`, 'id'],
        ['GET', `v1/object/${id}/seed-object/`, 'object_type'],
        ['GET', `v1/subscriber_list/${id}/`, 'list_id'],
        ['GET', `v1/tenant/${id}/`, 'tenant_id'],
        ['GET', `v1/workflow_run/${id}/`, 'execution_id'],
      ] as const) {
        expect(await json('public', method, target, method === 'POST' ? { name: 'x' } : undefined)).toMatchObject(refused(400, field, /at most 255 characters/));
      }
      expect(await json('management', 'POST', `v1/fuzz/workflow/${id}/`, { name: 'W', tree: { nodes: [] } })).toMatchObject(refused(400, 'slug', /at most 255 characters/));
      expect(await json('management', 'GET', `v2/fuzz/template/${id}/`)).toMatchObject(refused(400, 'template_slug', /at most 255 characters/));
    }
  });

  it('refuses query values Postgres cannot take (dates out of its range or the calendar, cursors past bigint or carrying a NUL) with 400 naming the parameter', async () => {
    const cursor = (createdAt: string, id: string): string => Buffer.from(JSON.stringify([createdAt, id]), 'utf8').toString('base64url');
    for (const date of ['+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00.000Z', '0000-01-01T00:00:00.000Z', '2024-02-30T00:00:00.000Z', '-000001-01-01T00:00:00Z']) {
      for (const param of ['after', 'before']) {
        expect(await json('public', 'GET', `v1/message/?${param}=${cursor(date, 'm-1')}`)).toMatchObject(refused(400, param, /not a cursor/));
      }
      for (const param of ['created_at_gte', 'created_at_lte']) {
        expect(await json('public', 'GET', `v1/message/?${param}=${encodeURIComponent(date)}`)).toMatchObject(refused(400, param, /date-time|no such day/));
      }
    }
    expect(await json('public', 'GET', `v1/message/?after=${cursor('2024-01-01T00:00:00.000Z', 'a\u0000b')}`)).toMatchObject(refused(400, 'after', /not a cursor/));
    expect(await json('public', 'GET', `v1/message/?created_at_gte=2024-01-01T00:00:00Z&created_at_gte=2024-01-02T00:00:00Z`)).toMatchObject(refused(400, 'created_at_gte', /once/));
    // The edges of the range still read.
    expect(await json('public', 'GET', `v1/message/?created_at_gte=0001-01-01T00:00:00Z&created_at_lte=9999-12-31T23:59:59.999Z`)).toMatchObject({ status: 200 });
    expect(await json('public', 'GET', `v1/message/?after=${cursor('9999-12-31T23:59:59.999Z', 'm-1')}`)).toMatchObject({ status: 200 });
    for (const value of ['9223372036854775808', '9999999999999999999', '99999999999999999999999']) {
      for (const param of ['after', 'before']) {
        expect(await json('public', 'GET', `v1/user/seed-user/inbox/?${param}=${value}`)).toMatchObject(refused(400, param, /cursor/));
      }
    }
    expect(await json('public', 'GET', 'v1/user/seed-user/inbox/?after=9223372036854775807')).toMatchObject({ status: 200 });
  });

  it('answers hostile values in every query parameter of every read of both APIs with a 4xx or a page, never a 5xx', async () => {
    const documents = {
      public: (await json('public', 'GET', 'openapi.json')).body as Parameters<typeof operationsOf>[0],
      management: (await json('management', 'GET', 'openapi.json')).body as Parameters<typeof operationsOf>[0],
    };
    const known: Record<string, string> = {
      workspace: 'fuzz', workspace_key: fuzzWorkspaceKey, channel: 'email', vendor: 'resend', distinct_id: 'seed-user', object_type: 'seed-type', id: 'seed-object',
      list_id: 'seed-list', tenant_id: 'seed-tenant', slug: 'seed-workflow', template_slug: 'seed-template', variant_id: 'default',
    };
    const hostile = [
      '%00', '%ED%A0%80', '%FF', '-1', '0', '1e308', 'NaN', '9223372036854775808', '-9223372036854775809', '99999999999999999999999999',
      '%2B275760-09-13T00%3A00%3A00.000Z', '0000-01-01', '2024-02-30T00%3A00%3A00Z', 'x'.repeat(10_000), '%5B%5D', 'true',
    ];
    const failures: string[] = [];
    const targets: Array<[Api, string]> = [];
    for (const api of ['public', 'management'] as const) {
      for (const operation of operationsOf(documents[api])) {
        // An event stream answers forever by design.
        if (operation.method !== 'GET' || operation.template.endsWith('/stream/')) continue;
        const path = operation.template.replace(/^\//, '').replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(known[name] ?? 'x'));
        const names = new Set([...operation.queryParams.map((p) => p.name), 'limit', 'offset', 'before', 'after']);
        for (const name of names) {
          for (const value of hostile) targets.push([api, `${path}?${encodeURIComponent(name)}=${value}`]);
          targets.push([api, `${path}?${encodeURIComponent(name)}=1&${encodeURIComponent(name)}=2`]);
        }
      }
    }
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < targets.length) {
        const [api, target] = targets[(next += 1) - 1];
        const answer = await send(api, 'GET', target);
        if (answer.status >= 500) failures.push(`${api} GET ${target.slice(0, 160)}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(targets.length).toBeGreaterThan(500);
    expect(failures).toEqual([]);
  }, 300_000);

  it('refuses a JSON body that is not valid UTF-8 with 400 on both APIs, instead of storing U+FFFD', async () => {
    const invalid = (prefix: string, suffix: string): Buffer => Buffer.concat([Buffer.from(prefix, 'utf8'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(suffix, 'utf8')]);
    const notUtf8 = { status: 400, body: expect.objectContaining({ error_code: 'validation_error', detail: expect.stringContaining('not valid UTF-8') }) };
    expect(await send('public', 'POST', 'v1/user/utf8-user/', invalid('{"name":"', '"}'))).toMatchObject(notUtf8);
    expect(await json('public', 'GET', 'v1/user/utf8-user/')).toMatchObject({ status: 404 });
    expect(await send('public', 'POST', 'trigger/', invalid('{"workflow":"seed-workflow","recipients":["', '"]}'))).toMatchObject(notUtf8);
    expect(await send('public', 'POST', 'event/', invalid('{"distinct_id":"u","event":"', '"}'))).toMatchObject(notUtf8);
    expect(await send('management', 'POST', 'v1/fuzz/workflow/utf8-workflow/', invalid('{"name":"', '","tree":{"nodes":[]}}'))).toMatchObject(notUtf8);
    // Valid multi-byte text still reads as sent.
    expect(await json('public', 'POST', 'v1/user/utf8-user/', { name: 'Zoë 🎉' })).toMatchObject({ status: 201 });
    expect(await json('public', 'GET', 'v1/user/utf8-user/')).toMatchObject({ status: 200, body: expect.objectContaining({ properties: expect.objectContaining({ name: 'Zoë 🎉' }) }) });
  });

  it('delivers a trigger whose data is a quote and then tens of thousands of dollar-quote tags, and the ordinary trigger after it, while /health/ready keeps answering 200', async () => {
    const template = 'v2/staging/template/dollar-note/';
    expect(await json('management', 'POST', template, { name: 'Dollar note', enabled_channels: ['inbox'] })).toMatchObject({ status: 200 });
    expect(await json('management', 'POST', `${template}channel/inbox/variant/default/`, { locale: 'en', content: { title: 'Note for {{label}}', body: 'A note' } })).toMatchObject({ status: 200 });
    expect(await json('management', 'PATCH', `${template}commit/?commit_message=t`)).toMatchObject({ status: 200 });
    const workflow = { name: 'Dollar note', category: 'account', trigger_type: 'api', tree: { nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'dollar-note' }] } };
    expect(await json('management', 'POST', 'v1/staging/workflow/dollar-note/?commit=true&commit_message=t', workflow)).toMatchObject({ status: 201 });
    // Text holding a quote is written in dollar quotes whose tag it must not hold: every `$v<n>$` is one more tag to skip.
    const tags = Array.from({ length: DOLLAR_TAGS }, (_, n) => (n === 0 ? '$v$' : `$v${n}$`));
    const hostile = `'${tags.join('')}`;
    const trigger = async (label: string, data: Record<string, unknown>): Promise<void> => {
      const answer = await staging('POST', 'trigger/', { workflow: 'dollar-note', recipients: [{ distinct_id: 'dollar-reader' }], data: { label, ...data } });
      expect({ label, status: answer.status, body: answer.status === 202 ? undefined : answer.body }).toEqual({ label, status: 202, body: undefined });
    };
    const inboxText = async (): Promise<string> => {
      const inbox = await staging('GET', 'v1/user/dollar-reader/inbox/');
      expect(inbox.status).toBe(200);
      return JSON.stringify(inbox.body);
    };
    // The commit answers once the notification API sees the workflow, or after a timeout on a slow machine: wait for it.
    await expectEventually(() => trigger('warm-up', {}), { timeoutMs: 30_000 });

    // Readiness is asked over and over while both triggers are on their way; every answer must be 200.
    const readiness: number[] = [];
    let delivered = false;
    const polling = (async () => {
      while (!delivered) readiness.push((await send('public', 'GET', 'health/ready', undefined, null)).status);
    })();
    try {
      await trigger('hostile', { blob: hostile });
      const whileHostileInFlight = readiness.length;
      await trigger('ordinary', {});
      await expectEventually(
        async () => {
          const text = await inboxText();
          expect({ hostile: text.includes('Note for hostile'), ordinary: text.includes('Note for ordinary') }).toEqual({ hostile: true, ordinary: true });
        },
        { timeoutMs: 60_000 },
      );
      delivered = true;
      await polling;
      expect({ answered: readiness.length > whileHostileInFlight, notReady: readiness.filter((status) => status !== 200) }).toEqual({ answered: true, notReady: [] });
    } finally {
      delivered = true;
      await polling.catch(() => undefined);
    }
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
