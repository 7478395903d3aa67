import { WorkflowNode } from '../definition';
import { HTTP_TIMEOUT_MS } from './http';
import { INTERPRETER_REVISION } from './interpreter-revision';
import { RUN_ID, T0, at, httpResponded, last, ofType, sendEmail, start, startEvents, types, when, workflow } from './testing/run-builders';

const webhook = (over: Record<string, unknown> = {}): WorkflowNode =>
  ({
    node_type: 'httpapi_webhook',
    name: 'Notify CRM',
    http_method: 'POST',
    url: 'https://crm.example.com/hooks',
    headers: [
      { key: 'Authorization', value: 'Bearer abc123' },
      { key: 'X-User', value: 'data["$recipient"].distinct_id' },
    ],
    query_params: [{ key: 'order', value: 'data.order.id' }],
    body: 'data.order',
    ...over,
  }) as WorkflowNode;

const fetchNode = (over: Record<string, unknown> = {}): WorkflowNode =>
  ({ node_type: 'httpapi_fetch', name: 'Fetch', http_method: 'GET', url: '"https://api.example.com/users/" + data["$recipient"].distinct_id', ...over }) as WorkflowNode;

const REQUEST_ID = `${RUN_ID}:http:0`;

describe('http nodes', () => {
  it('given a webhook, when the run reaches it, then it requests the fully evaluated call and waits', () => {
    const events = startEvents(workflow([webhook(), sendEmail()]));
    expect(last(events)).toEqual({
      type: 'http.requested.v1',
      path: [0],
      request: {
        request_id: REQUEST_ID,
        method: 'POST',
        url: 'https://crm.example.com/hooks',
        headers: [
          { key: 'Authorization', value: 'Bearer abc123' },
          { key: 'X-User', value: 'u1' },
        ],
        query: [{ key: 'order', value: 'o-1' }],
        body: { id: 'o-1', total: 42 },
        body_content_type: 'application/json',
        timeout_ms: HTTP_TIMEOUT_MS,
      },
    });
  });

  it('given a fetch with a Jsonnet url, then the url is evaluated and there is no body', () => {
    const request = ofType(startEvents(workflow([fetchNode()])), 'http.requested.v1')[0].request;
    expect(request).toEqual({ request_id: REQUEST_ID, method: 'GET', url: 'https://api.example.com/users/u1', headers: [], query: [], timeout_ms: HTTP_TIMEOUT_MS });
  });

  describe('given the request is waiting', () => {
    const given = (node: WorkflowNode) => [[start(workflow([node, sendEmail()])), T0]] as const;

    it('when a 2xx answers, then the body is merged under output_key and the run goes on with it', () => {
      const events = when(given(fetchNode({ output_key: 'profile' })), httpResponded(REQUEST_ID, { kind: 'response', status: 200, body: { score: 7 } }), at(1000));
      expect(types(events)).toEqual(['http.responded.v1', 'output.merged.v1', 'node.entered.v1', 'delivery.requested.v1', 'run.completed.v1']);
      expect(events[1]).toEqual({ type: 'output.merged.v1', path: [0], key: 'profile', value: { score: 7 } });
      expect(ofType(events, 'delivery.requested.v1')[0].delivery.render_data).toMatchObject({ profile: { score: 7 }, order: { id: 'o-1' } });
    });

    it('when a 2xx answers without output_key, then the body is merged at the root', () => {
      const events = when(given(fetchNode()), httpResponded(REQUEST_ID, { kind: 'response', status: 201, body: { order: 'replaced' } }));
      expect(events[1]).toEqual({ type: 'output.merged.v1', path: [0], value: { order: 'replaced' } });
      expect(ofType(events, 'delivery.requested.v1')[0].delivery.render_data).toMatchObject({ order: 'replaced' });
    });

    it('when a 204 answers without a body, then nothing is merged', () => {
      const events = when(given(webhook()), httpResponded(REQUEST_ID, { kind: 'response', status: 204 }));
      expect(types(events)).toEqual(['http.responded.v1', 'node.entered.v1', 'delivery.requested.v1', 'run.completed.v1']);
    });

    it.each([
      ['a non-2xx status', { kind: 'response', status: 503, body: 'busy' }, 'POST https://crm.example.com/hooks answered HTTP 503'],
      ['a network error', { kind: 'network_error', error: 'connect ECONNREFUSED' }, 'POST https://crm.example.com/hooks failed: connect ECONNREFUSED'],
      ['a body that cannot be merged at the root', { kind: 'response', status: 200, body: [1, 2] }, 'POST https://crm.example.com/hooks answered [1,2], not a JSON object to merge at the root (set output_key)'],
    ] as const)('when %s comes back, then the run fails with the reason', (_label, response, reason) => {
      const events = when(given(webhook()), httpResponded(REQUEST_ID, response));
      expect(events).toEqual([
        { type: 'http.responded.v1', request_id: REQUEST_ID, ...('status' in response ? { status: response.status } : { error: response.error }) },
        { type: 'run.failed.v1', reason, node: { path: [0], label: 'nodes[0]', name: 'Notify CRM', node_type: 'httpapi_webhook' }, at: T0.toISOString() },
      ]);
    });

    const failedAt = (reason: string) => ({ type: 'run.failed.v1', reason, node: { path: [0], label: 'nodes[0]', name: 'Fetch', node_type: 'httpapi_fetch' }, at: T0.toISOString() });
    const deep = (levels: number): unknown => {
      let value: unknown = 'bottom';
      for (let level = 1; level < levels; level++) value = [value];
      return value;
    };

    it.each([
      ['a NUL in a value', { profile: { note: 'a\u0000b' } }, 'profile.note contains a NUL character (\\u0000), which cannot be stored'],
      ['a lone surrogate in a value', { items: ['ok', 'cut \ud83d'] }, 'items[1] contains a lone UTF-16 surrogate (invalid Unicode), which cannot be stored'],
      ['a NUL in a key', { ['a\u0000b']: 1 }, '["a\\u0000b"] key contains a NUL character (\\u0000), which cannot be stored'],
      ['a lone surrogate in a key', { nested: { ['\udc00']: 1 } }, 'nested["\\udc00"] key contains a lone UTF-16 surrogate (invalid Unicode), which cannot be stored'],
      ['a text answer with a NUL', 'plain\u0000text', 'the body contains a NUL character (\\u0000), which cannot be stored'],
    ] as const)('when a 2xx answers with %s, then the fetch fails with the problem and its path, and nothing is merged', (_label, body, problem) => {
      const events = when(given(fetchNode({ output_key: 'profile' })), httpResponded(REQUEST_ID, { kind: 'response', status: 200, body }));
      expect(events).toEqual([{ type: 'http.responded.v1', request_id: REQUEST_ID, status: 200 }, failedAt(`GET https://api.example.com/users/u1 answered a body that cannot be taken: ${problem}`)]);
    });

    it('when a 2xx answers with several unstorable values, then the reason names the first and counts the others', () => {
      const events = when(given(fetchNode()), httpResponded(REQUEST_ID, { kind: 'response', status: 200, body: { a: '\u0000', b: '\u0000', c: '\ud800' } }));
      expect(last(events)).toEqual(failedAt('GET https://api.example.com/users/u1 answered a body that cannot be taken: a contains a NUL character (\\u0000), which cannot be stored (and 2 more problems)'));
    });

    it('when a 2xx answers nested past 64 levels, then the fetch fails as the API edge refuses such data (revision 3 on)', () => {
      const current = [[start(workflow([fetchNode({ output_key: 'profile' }), sendEmail()]), { interpreter_revision: INTERPRETER_REVISION }), T0]] as const;
      const events = when(current, httpResponded(REQUEST_ID, { kind: 'response', status: 200, body: { deep: deep(70) } }));
      expect(ofType(events, 'output.merged.v1')).toEqual([]);
      expect(last(events)).toEqual(
        failedAt(`GET https://api.example.com/users/u1 answered a body that cannot be taken: deep${'[0]'.repeat(63)} is nested too deeply: at most 64 levels of objects and arrays are accepted`),
      );
    });

    it('when a run started before revision 3 gets an answer nested past the limit, then it merges it as it did, and still refuses a NUL', () => {
      const old = [[start(workflow([fetchNode({ output_key: 'profile' }), sendEmail()]), { interpreter_revision: 2 }), T0]] as const;
      expect(ofType(when(old, httpResponded(REQUEST_ID, { kind: 'response', status: 200, body: deep(70) })), 'output.merged.v1')).toHaveLength(1);
      expect(last(when(old, httpResponded(REQUEST_ID, { kind: 'response', status: 200, body: 'a\u0000' })))).toMatchObject({ type: 'run.failed.v1', reason: expect.stringContaining('NUL') });
    });

    it('when a failure quotes text Postgres cannot store (a NUL, half an emoji), then the reason carries U+FFFD in its place, so the failure can be recorded', () => {
      const events = when(given(webhook()), httpResponded(REQUEST_ID, { kind: 'network_error', error: 'reset by \u0000 \ud83d' }));
      expect(last(events)).toMatchObject({ type: 'run.failed.v1', reason: 'POST https://crm.example.com/hooks failed: reset by \uFFFD \uFFFD' });
    });

    it('when a non-object answer quoted in the reason is cut through an emoji, then the reason holds no half of it', () => {
      const body = [`${'x'.repeat(114)}😀😀`];
      const reason = (last(when(given(webhook()), httpResponded(REQUEST_ID, { kind: 'response', status: 200, body }))) as { reason: string }).reason;
      expect(reason).toBe(`POST https://crm.example.com/hooks answered ["${'x'.repeat(114)}..., not a JSON object to merge at the root (set output_key)`);
      expect((reason as string & { isWellFormed(): boolean }).isWellFormed()).toBe(true);
    });

    it('when a response for another request arrives, then nothing is decided', () => {
      expect(when(given(webhook()), httpResponded('other', { kind: 'response', status: 200 }))).toEqual([]);
    });
  });

  it.each([
    ['a url that is not http(s)', { url: 'ftp://files.example.com' }, 'url "ftp://files.example.com" is not an http(s) URL'],
    ['a Jsonnet url yielding null', { url: 'data.missing' }, 'url gave null, not a string'],
    ['a header whose Jsonnet fails', { headers: [{ key: 'X', value: 'error "nope"' }] }, 'headers[0] (X): Jsonnet error: RUNTIME ERROR: nope'],
    ['a query value that is an object', { query_params: [{ key: 'o', value: 'data.order' }] }, 'query_params[0] (o) gave {"id":"o-1","total":42}, not a string'],
    ['a body whose Jsonnet fails', { body: 'error "bad body"' }, 'body: Jsonnet error: RUNTIME ERROR: bad body'],
  ])('given %s, when the run reaches the webhook, then it fails naming the node', (_label, over, reason) => {
    expect(last(startEvents(workflow([webhook(over)])))).toMatchObject({ type: 'run.failed.v1', reason, node: { label: 'nodes[0]' } });
  });
});
