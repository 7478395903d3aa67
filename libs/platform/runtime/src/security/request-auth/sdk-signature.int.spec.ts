/**
 * The real @suprsend/node-sdk, configured with only a base URL, a workspace key and a
 * secret, talks to a local HTTP server (node:http on 127.0.0.1, port 0) that checks every
 * request with verifySdkSignature and answers the way Herald will (decisions.md: 202
 * {message_id, status} for one trigger, 207 {records, status} for a bulk call, 202
 * {message: "OK"} for an event). Each captured request (method, raw request target,
 * headers, raw body) is also verified again here, and the SDK must report success.
 */
import { randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Event, SubscriberListBroadcast, Suprsend, Workflow, WorkflowTriggerRequest } from '@suprsend/node-sdk';
import sdkPackage from '@suprsend/node-sdk/package.json';
import { SdkSignedRequest, verifySdkSignature } from './sdk-signature';

// At least 20 characters: the SDK's event schema (request_json/event.json) requires env, the workspace key, to be.
const KEY = 'wk_int_test_0123456789abcdef';
const SECRET = 'ss_int_secret_9f8e7d';
const lookup = (workspaceKey: string): string | undefined => (workspaceKey === KEY ? SECRET : undefined);

interface Captured {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly signed: SdkSignedRequest;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function toSignedRequest(req: IncomingMessage, body: Buffer): SdkSignedRequest {
  return {
    method: req.method ?? '',
    requestUri: req.url ?? '',
    contentType: header(req.headers, 'content-type'),
    date: header(req.headers, 'date'),
    body,
    authorization: header(req.headers, 'authorization'),
  };
}

/** Per-record outcome of a bulk call; a workflow named "unknown-*" is answered as not found. */
function bulkRecord(record: unknown): Record<string, unknown> {
  const slug = (record as { workflow?: unknown })?.workflow;
  if (typeof slug === 'string' && slug.startsWith('unknown-')) {
    return { status: 'error', status_code: 404, error: { message: `workflow '${slug}' not found`, type: 'NotFound' } };
  }
  return { status: 'success', status_code: 202, message_id: randomUUID() };
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function answer(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0];
  const json: unknown = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
  if (req.method === 'POST' && (path === '/trigger/' || path === '/event/' || path === `/${KEY}/trigger/`)) {
    if (Array.isArray(json)) return send(res, 207, { records: json.map(bulkRecord), status: 'success' });
    if (path === '/event/') return send(res, 202, { message: 'OK' });
    return send(res, 202, { message_id: randomUUID(), status: 'success' });
  }
  if (req.method === 'POST' && path === `/${KEY}/broadcast/`) return send(res, 202, { message: 'OK' });
  if (req.method === 'DELETE') return send(res, 204);
  return send(res, 200, { path, query: (req.url ?? '').split('?')[1] ?? '' });
}

let server: Server;
let baseUrl: string;
let captured: Captured[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const signed = toSignedRequest(req, body);
      captured.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, signed });
      const verdict = verifySdkSignature(signed, lookup, new Date());
      if (!verdict.ok) {
        return send(res, 401, {
          code: 401,
          error_code: 'authentication_failed',
          type: 'AuthenticationFailed',
          message: 'authentication failed',
          detail: verdict.detail,
        });
      }
      answer(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  captured = [];
});

const client = (secret = SECRET) => new Suprsend(KEY, secret, { base_url: baseUrl });

/** Every captured request verifies, and carries the SDK's headers. */
function expectSignedBySdk(c: Captured): void {
  expect(verifySdkSignature(c.signed, lookup, new Date())).toEqual({ ok: true, workspaceKey: KEY });
  expect(c.headers['authorization']).toMatch(new RegExp(`^${KEY}:[A-Za-z0-9+/]{43}=$`));
  expect(c.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(c.headers['user-agent']).toMatch(new RegExp(`^@suprsend/node-sdk/${sdkPackage.version.replace(/\./g, '\\.')} \\(node/`));
}

function imfFixdate(value: string | undefined): boolean {
  return /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value ?? '');
}

describe(`@suprsend/node-sdk ${sdkPackage.version} against a local server that verifies its signatures`, () => {
  it('workflows.trigger: POST /trigger/ with one object, 202 reported as success', async () => {
    const request = new WorkflowTriggerRequest(
      {
        workflow: 'order-shipped',
        recipients: [{ distinct_id: 'zoë@example.com', $email: ['zoë@example.com'] }],
        data: { items: ['Äpfel', '寿司'] },
      },
      { idempotency_key: 'order-42', tenant_id: 'acme' },
    );
    const response = (await client().workflows.trigger(request)) as unknown as Record<string, unknown>;

    expect(captured).toHaveLength(1);
    const [c] = captured;
    expect(c.method).toBe('POST');
    expect(c.url).toBe('/trigger/');
    expectSignedBySdk(c);
    expect(imfFixdate(c.headers['date'])).toBe(true);
    expect(c.headers['x-suprsend-client-user-agent']).toContain('"sdk":"@suprsend/node-sdk"');
    expect(JSON.parse(c.body.toString('utf8'))).toEqual({
      workflow: 'order-shipped',
      recipients: [{ distinct_id: 'zoë@example.com', $email: ['zoë@example.com'] }],
      data: { items: ['Äpfel', '寿司'] },
      $idempotency_key: 'order-42',
      tenant_id: 'acme',
    });
    // The SDK hands back the raw response text, unparsed, as `message`.
    expect(response).toMatchObject({ success: true, status: 'success', status_code: 202 });
    expect(JSON.parse(response.message as string)).toMatchObject({ status: 'success', message_id: expect.any(String) });
  });

  it('bulk_trigger_instance: POST /trigger/ with an array, 207 reported as success for every record', async () => {
    const bulk = client().workflows.bulk_trigger_instance();
    bulk.append(
      new WorkflowTriggerRequest({ workflow: 'w1', recipients: ['u1'], data: {} }),
      new WorkflowTriggerRequest({ workflow: 'w2', recipients: ['u2'], data: {} }),
      new WorkflowTriggerRequest({ workflow: 'unknown-slug', recipients: ['u3'], data: {} }),
    );
    const response = await bulk.trigger();

    expect(captured).toHaveLength(1);
    const [c] = captured;
    expect([c.method, c.url]).toEqual(['POST', '/trigger/']);
    expectSignedBySdk(c);
    const sent = JSON.parse(c.body.toString('utf8')) as { workflow: string }[];
    expect(sent.map((r) => r.workflow)).toEqual(['w1', 'w2', 'unknown-slug']);
    // Quirk: the SDK does not read `records`; a per-record 404 inside a 207 still counts as a success.
    expect(response).toMatchObject({ status: 'success', total: 3, success: 3, failure: 0, failed_records: [] });
  });

  it('bulk_trigger_instance: splits more than 100 records into calls of at most 100', async () => {
    const bulk = client().workflows.bulk_trigger_instance();
    for (let i = 0; i < 101; i++) bulk.append(new WorkflowTriggerRequest({ workflow: 'w', recipients: [`u${i}`], data: {} }));
    const response = await bulk.trigger();

    expect(captured.map((c) => (JSON.parse(c.body.toString('utf8')) as unknown[]).length)).toEqual([100, 1]);
    captured.forEach(expectSignedBySdk);
    expect(response).toMatchObject({ status: 'success', total: 101, success: 101, failure: 0 });
  });

  it('track_event: POST /event/ with the event object, 202 reported as success', async () => {
    const event = new Event('u1', 'signed_up', { plan: 'pro' }, { idempotency_key: 'ev-1', tenant_id: 'acme' });
    const response = await client().track_event(event);

    expect(captured).toHaveLength(1);
    const [c] = captured;
    expect([c.method, c.url]).toEqual(['POST', '/event/']);
    expectSignedBySdk(c);
    const sent = JSON.parse(c.body.toString('utf8')) as Record<string, unknown>;
    expect(sent).toEqual({
      $insert_id: expect.any(String),
      $time: expect.any(Number),
      event: 'signed_up',
      env: KEY,
      distinct_id: 'u1',
      properties: { plan: 'pro', $ss_sdk_version: expect.stringMatching(/^@suprsend\/node-sdk\//) },
      $idempotency_key: 'ev-1',
      tenant_id: 'acme',
    });
    expect(response).toMatchObject({ success: true, status: 'success', status_code: 202 });
  });

  it('bulk_events: POST /event/ with an array, 207 reported as success', async () => {
    const bulk = client().bulk_events.new_instance();
    bulk.append(new Event('u1', 'e1', {}), new Event('u2', 'e2', {}));
    const response = await bulk.trigger();

    expect(captured).toHaveLength(1);
    expect([captured[0].method, captured[0].url]).toEqual(['POST', '/event/']);
    expectSignedBySdk(captured[0]);
    expect(response).toMatchObject({ status: 'success', total: 2, success: 2, failure: 0 });
  });

  it('legacy trigger_workflow and bulk_workflows: POST /{workspace_key}/trigger/', async () => {
    const body = { name: 'legacy', template: 't1', notification_category: 'transactional', users: [{ distinct_id: 'u1' }], data: {} };
    const single = await client().trigger_workflow(new Workflow({ ...body }));
    const bulk = client().bulk_workflows.new_instance();
    bulk.append(new Workflow({ ...body }), new Workflow({ ...body }));
    const many = await bulk.trigger();

    expect(captured.map((c) => [c.method, c.url])).toEqual([
      ['POST', `/${KEY}/trigger/`],
      ['POST', `/${KEY}/trigger/`],
    ]);
    captured.forEach(expectSignedBySdk);
    expect(single).toMatchObject({ success: true, status_code: 202 });
    expect(many).toMatchObject({ status: 'success', total: 2, success: 2 });
  });

  it('subscriber_lists.broadcast: POST /{workspace_key}/broadcast/', async () => {
    const broadcast = new SubscriberListBroadcast({ list_id: 'l1', template: 't1', notification_category: 'promotional', data: {} });
    const response = await client().subscriber_lists.broadcast(broadcast);

    expect([captured[0].method, captured[0].url]).toEqual(['POST', `/${KEY}/broadcast/`]);
    expectSignedBySdk(captured[0]);
    expect(response).toMatchObject({ success: true, status_code: 202 });
  });

  it('users, lists and messages: query strings, encoded paths, DELETE bodies and the ISO Date all verify', async () => {
    const sdk = client();
    await sdk.users.list({ limit: 5, after: 'a b' });
    await sdk.users.get('zoë smith@example.com');
    await sdk.users.get_lists_subscribed_to('u1');
    await sdk.users.bulk_delete({ distinct_ids: ['u1', 'u2'] });
    await sdk.users.delete('u1');
    await sdk.subscriber_lists.get_all({ limit: 10, offset: 20 });
    await sdk.messages.list({ status: ['sent', 'delivered'], limit: 10 });
    const edit = sdk.users.get_edit_instance('u1');
    edit.set('name', 'Ada');
    await sdk.users.async_edit(edit);

    expect(captured.map((c) => `${c.method} ${c.url}`)).toEqual([
      'GET /v1/user/?limit=5&after=a+b',
      'GET /v1/user/zo%C3%AB%20smith%40example.com/',
      'GET /v1/user/u1/subscribed_to/list/',
      'DELETE /v1/bulk/user/',
      'DELETE /v1/user/u1/',
      'GET /v1/subscriber_list?limit=10&offset=20',
      'GET /v1/message/?status%5B%5D=sent&status%5B%5D=delivered&limit=10',
      'POST /event/',
    ]);
    captured.forEach(expectSignedBySdk);
    expect(captured[3].body.toString('utf8')).toBe('{"distinct_ids":["u1","u2"]}');
    expect(captured[0].body.length).toBe(0);
    // A body-less DELETE still says Content-Type: application/json (Fastify's default JSON parser answers 400 to that).
    expect(captured[4].body.length).toBe(0);
    expect(captured[4].headers['content-type']).toBe('application/json; charset=utf-8');
    expect(captured[4].headers['content-length']).toBeUndefined();
    // messages_api.js signs and sends an ISO 8601 Date instead of the IMF-fixdate of every other call.
    expect(captured[6].headers['date']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(captured[6].headers['x-suprsend-client-user-agent']).toBeUndefined();
    expect(JSON.parse(captured[7].body.toString('utf8'))).toMatchObject({ $schema: '2', env: KEY, distinct_id: 'u1', $user_operations: [{ $set: { name: 'Ada' } }] });
  });

  it('a request captured from the SDK is rejected once its Date is 16 minutes away, or its body is changed', async () => {
    await client().workflows.trigger(new WorkflowTriggerRequest({ workflow: 'w', recipients: ['u1'], data: {} }));
    const [c] = captured;
    const sentAt = new Date(Date.parse(c.headers['date'] as string));
    const minutes = (n: number) => new Date(sentAt.getTime() + n * 60_000);
    expect(verifySdkSignature(c.signed, lookup, minutes(15))).toEqual({ ok: true, workspaceKey: KEY });
    expect(verifySdkSignature(c.signed, lookup, minutes(16))).toMatchObject({ ok: false, reason: 'date_out_of_range' });
    expect(verifySdkSignature(c.signed, lookup, minutes(-16))).toMatchObject({ ok: false, reason: 'date_out_of_range' });
    const tampered = { ...c.signed, body: Buffer.from(c.body.toString('utf8').replace('"u1"', '"u2"')) };
    expect(verifySdkSignature(tampered, lookup, sentAt)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('with a wrong secret the server answers 401 and the SDK reports the failure', async () => {
    const sdk = client('not-the-secret');
    const trigger = await sdk.workflows.trigger(new WorkflowTriggerRequest({ workflow: 'w', recipients: ['u1'], data: {} }));
    const bulk = sdk.workflows.bulk_trigger_instance();
    bulk.append(new WorkflowTriggerRequest({ workflow: 'w', recipients: ['u1'], data: {} }));
    const bulkResponse = await bulk.trigger();
    const event = await sdk.track_event(new Event('u1', 'e1', {}));

    expect(trigger).toMatchObject({ success: false, status: 'fail', status_code: 401 });
    expect(JSON.parse((trigger as unknown as { message: string }).message)).toMatchObject({ error_code: 'authentication_failed' });
    // The merged bulk response has no status_code; each failed record carries the status and the raw body.
    expect(bulkResponse).toMatchObject({ status: 'fail', success: 0, failure: 1, failed_records: [{ code: 401 }] });
    expect(JSON.parse(bulkResponse.failed_records[0].error as string)).toMatchObject({ error_code: 'authentication_failed' });
    expect(event).toMatchObject({ success: false, status_code: 401 });
    // CRUD calls throw SuprsendApiError "<status>: <body.message>".
    await expect(sdk.users.get('u1')).rejects.toThrow('401: authentication failed');
  });
});
