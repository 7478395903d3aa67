import { validateTrigger } from './trigger';
import { REMOVE, withChanges } from './testing/json-path';
import { sampleTrigger } from './testing/sample-bodies';
import { FailingCase, PassingCase, errorPaths, pathsAfter } from './testing/table';

/**
 * Top-level trigger rules (interface 2.1, decisions.md), the actor (2.1.3), `$context`
 * against tenant_id, and attachments (2.1.4). Each failing row changes the valid sample
 * and lists exactly the paths reported; each passing row must stay valid.
 */
const many = (count: number): string[] => Array.from({ length: count }, (_, index) => `user-${index}`);
const base64Of = (bytes: number): string => Buffer.alloc(bytes, 7).toString('base64');

const failing: FailingCase[] = [
  { rule: 'workflow is required', changes: { workflow: REMOVE }, paths: ['workflow'] },
  { rule: 'workflow null counts as missing', changes: { workflow: null }, paths: ['workflow'] },
  { rule: 'workflow must be a string', changes: { workflow: 7 }, paths: ['workflow'] },
  { rule: 'workflow must not be empty', changes: { workflow: '' }, paths: ['workflow'] },
  { rule: 'workflow must be a slug', changes: { workflow: 'Order Shipped' }, paths: ['workflow'] },
  { rule: 'workflow slug is at most 255 characters', changes: { workflow: 'a'.repeat(256) }, paths: ['workflow'] },
  { rule: 'recipients is required', changes: { recipients: REMOVE }, paths: ['recipients'] },
  { rule: 'recipients must be an array', changes: { recipients: 'user-1' }, paths: ['recipients'] },
  { rule: 'recipients must not be empty', changes: { recipients: [] }, paths: ['recipients'] },
  { rule: 'recipients holds at most 100', changes: { recipients: many(101) }, paths: ['recipients'] },
  { rule: 'a recipient is a string or an object (number)', changes: { 'recipients[0]': 42 }, paths: ['recipients[0]'] },
  { rule: 'a recipient is a string or an object (null)', changes: { 'recipients[0]': null }, paths: ['recipients[0]'] },
  { rule: 'a recipient is a string or an object (array)', changes: { 'recipients[0]': ['user-1'] }, paths: ['recipients[0]'] },
  { rule: 'a distinct_id recipient must not be blank', changes: { 'recipients[0]': '  ' }, paths: ['recipients[0]'] },
  { rule: 'tenant_id must be a string', changes: { tenant_id: 3 }, paths: ['tenant_id'] },
  { rule: 'tenant_id must not be empty', changes: { tenant_id: '' }, paths: ['tenant_id'] },
  { rule: '$idempotency_key must be a string', changes: { $idempotency_key: 12 }, paths: ['$idempotency_key'] },
  { rule: '$idempotency_key must not be blank', changes: { $idempotency_key: '   ' }, paths: ['$idempotency_key'] },
  { rule: '$idempotency_key is at most 255 after trimming', changes: { $idempotency_key: ` ${'k'.repeat(256)} ` }, paths: ['$idempotency_key'] },
  { rule: 'data must be an object (array)', changes: { data: [1] }, paths: ['data'] },
  { rule: 'data must be an object (string)', changes: { data: 'x' }, paths: ['data'] },
  { rule: 'actor is a string or an object', changes: { actor: 5 }, paths: ['actor'] },
  { rule: 'an actor string must not be blank', changes: { actor: '' }, paths: ['actor'] },
  { rule: 'actor.distinct_id is required', changes: { 'actor.distinct_id': REMOVE }, paths: ['actor.distinct_id'] },
  { rule: 'actor.is_transient is a boolean', changes: { 'actor.is_transient': 'yes' }, paths: ['actor.is_transient'] },
  { rule: 'actor inline channels are checked', changes: { 'actor.$email': ['nope'] }, paths: ['actor.$email[0]'] },
  { rule: 'actor.$context.tenant_id equals tenant_id', changes: { 'actor.$context.tenant_id': 'globex' }, paths: ['actor.$context.tenant_id'] },
  { rule: 'recipient $context.tenant_id equals tenant_id', changes: { 'recipients[1].$context.tenant_id': 'globex' }, paths: ['recipients[1].$context.tenant_id'] },
  {
    rule: '$context.tenant_id without a top-level tenant_id is a mismatch',
    changes: { tenant_id: REMOVE },
    paths: ['actor.$context.tenant_id', 'recipients[1].$context.tenant_id'],
  },
  { rule: '$context must be an object', changes: { 'recipients[1].$context': 'acme' }, paths: ['recipients[1].$context'] },
  { rule: '$context.tenant_id must be a string', changes: { 'recipients[1].$context.tenant_id': 9 }, paths: ['recipients[1].$context.tenant_id'] },
  { rule: 'object $context.tenant_id equals tenant_id', changes: { 'recipients[4].$context': { tenant_id: 'x' } }, paths: ['recipients[4].$context.tenant_id'] },
  { rule: '$attachments must be an array', changes: { 'data.$attachments': { url: 'https://example.com/a' } }, paths: ['data.$attachments'] },
  { rule: 'an attachment must be an object', changes: { 'data.$attachments[0]': 'https://example.com/a' }, paths: ['data.$attachments[0]'] },
  { rule: 'an attachment has url or data, not both', changes: { 'data.$attachments[0].data': 'QUJD' }, paths: ['data.$attachments[0]'] },
  { rule: 'an attachment has url or data, not neither', changes: { 'data.$attachments[0].url': REMOVE }, paths: ['data.$attachments[0]'] },
  { rule: 'url must be http(s)', changes: { 'data.$attachments[0].url': 'ftp://example.com/a.pdf' }, paths: ['data.$attachments[0].url'] },
  { rule: 'url must be absolute', changes: { 'data.$attachments[0].url': '/invoice.pdf' }, paths: ['data.$attachments[0].url'] },
  { rule: 'url must be a string', changes: { 'data.$attachments[0].url': 5 }, paths: ['data.$attachments[0].url'] },
  { rule: 'ignore_if_error is a boolean', changes: { 'data.$attachments[0].ignore_if_error': 'yes' }, paths: ['data.$attachments[0].ignore_if_error'] },
  { rule: 'filename is a string', changes: { 'data.$attachments[1].filename': 3 }, paths: ['data.$attachments[1].filename'] },
  { rule: 'data must be base64', changes: { 'data.$attachments[1].data': 'SGVs bG8=' }, paths: ['data.$attachments[1].data'] },
  { rule: 'data must not be empty', changes: { 'data.$attachments[1].data': '' }, paths: ['data.$attachments[1].data'] },
  { rule: 'data decodes to below 50 KB', changes: { 'data.$attachments[1].data': base64Of(50 * 1024) }, paths: ['data.$attachments[1].data'] },
  { rule: 'contentType is a string', changes: { 'data.$attachments[1].contentType': 4 }, paths: ['data.$attachments[1].contentType'] },
];

const passing: PassingCase[] = [
  { rule: 'the full sample', changes: {} },
  { rule: 'exactly 100 recipients', changes: { recipients: many(100) } },
  { rule: 'null optional fields count as absent', changes: { tenant_id: null, actor: null, data: null, $idempotency_key: null, 'recipients[1].$context': null } },
  { rule: 'no tenant_id and no $context', changes: { tenant_id: REMOVE, 'actor.$context': REMOVE, 'recipients[1].$context': {} } },
  { rule: '$context.tenant_id null', changes: { 'recipients[1].$context': { tenant_id: null } } },
  { rule: 'actor as a distinct_id string', changes: { actor: 'admin-1' } },
  { rule: 'transient actor without distinct_id', changes: { actor: { is_transient: true, name: 'Guest' } } },
  { rule: 'actor extra properties of any JSON', changes: { 'actor.roles': ['admin'], 'actor.age': 41 } },
  { rule: '$idempotency_key of 255 characters after trimming', changes: { $idempotency_key: `  ${'k'.repeat(255)}\n` } },
  { rule: 'unknown top-level fields are ignored', changes: { cancellation_key: 'c-1', metadata: { a: 1 }, $insert_id: 'x', brand_id: 7 } },
  { rule: 'data of any JSON', changes: { data: { n: 1, nested: { deep: [1, { x: null }] }, flag: true, none: null } } },
  { rule: 'data.$attachments null counts as absent', changes: { 'data.$attachments': null } },
  {
    rule: 'SDK URL attachment (data and contentType null)',
    changes: { 'data.$attachments[0]': { url: 'https://example.com/a.pdf', filename: 'a.pdf', contentType: null, data: null, ignore_if_error: false } },
  },
  {
    rule: 'SDK base64 attachment (url null, contentType false)',
    changes: { 'data.$attachments[1]': { data: 'SGVsbG8=', filename: 'x.zzz', contentType: false, url: null, ignore_if_error: false } },
  },
  { rule: 'base64 without padding', changes: { 'data.$attachments[1].data': 'SGVsbG8' } },
  { rule: 'inline attachment just below 50 KB', changes: { 'data.$attachments[1].data': base64Of(50 * 1024 - 1) } },
  { rule: 'URL with port, query and fragment', changes: { 'data.$attachments[0].url': 'http://files.example.org:8080/a.pdf?v=2#p1' } },
];

describe('validateTrigger: top level, actor, $context, attachments', () => {
  it.each(failing)('rejects: $rule → $paths', ({ changes, paths }) => {
    expect(pathsAfter(validateTrigger, sampleTrigger, changes)).toEqual([...paths].sort());
  });

  it.each(passing)('accepts: $rule', ({ changes }) => {
    expect(pathsAfter(validateTrigger, sampleTrigger, changes)).toEqual([]);
  });

  it.each([null, 0, 'trigger', true, [], [sampleTrigger()]])('rejects a body that is not an object (%p) at the root', (body) => {
    expect(validateTrigger(body)).toEqual({ ok: false, errors: [{ path: '', message: 'must be an object' }] });
  });

  it('accepts the smallest trigger', () => {
    expect(validateTrigger({ workflow: 'w', recipients: ['u'] })).toEqual({
      ok: true,
      value: {
        workflow: 'w',
        recipients: [{ kind: 'user', distinct_id: 'u', is_transient: false, inline: false, channels: {}, properties: {} }],
        data: {},
        attachments: [],
      },
    });
  });

  it('normalises the sample: trimmed key, tenant, parsed attachments, data copied not shared', () => {
    const body = withChanges(sampleTrigger(), { $idempotency_key: '  order-1234 ' });
    const result = validateTrigger(body);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const { value } = result;
    expect(value.idempotency_key).toBe('order-1234');
    expect(value.tenant_id).toBe('acme');
    expect(value.workflow).toBe('order-shipped_v2');
    expect(value.actor).toEqual({
      kind: 'user',
      distinct_id: 'admin-1',
      is_transient: false,
      inline: true,
      channels: {},
      context_tenant_id: 'acme',
      properties: { name: 'Ada' },
    });
    expect(value.attachments).toEqual([
      { kind: 'url', url: 'https://example.com/invoice.pdf', filename: 'invoice.pdf', ignore_if_error: true },
      { kind: 'inline', data: 'SGVsbG8=', size_bytes: 5, filename: 'hello.txt', content_type: 'text/plain', ignore_if_error: false },
    ]);
    expect(value.data).toEqual(body.data);
    expect(value.data).not.toBe(body.data);
  });

  it('keeps a __proto__ property as a plain property, never as a prototype', () => {
    const body: unknown = JSON.parse('{"workflow":"w","recipients":[{"distinct_id":"u","__proto__":{"polluted":true}}]}');
    const result = validateTrigger(body);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const properties = result.value.recipients[0].properties;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.hasOwn(properties, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports every failing field at once, not just the first', () => {
    const body = {
      workflow: 'Bad Slug',
      tenant_id: 'acme',
      $idempotency_key: '   ',
      actor: { is_transient: 'no' },
      recipients: [
        7,
        { distinct_id: '', $email: ['a@b', 'ok@example.com', 5], $channels: ['fax'], $timezone: 'Mars/Base', $locale: 'english' },
        { distinct_id: 'u', $slack: [{}, { email: 'x@example.com', user_id: 'U1' }, { channel: 'C1', access_token: 7 }], $ms_teams: [{ conversation_id: 'c' }] },
        { object_type: 'teams', $context: { tenant_id: 'globex' } },
      ],
      data: { $attachments: [{}, { data: '!!' }, { url: 'ftp://x' }] },
    };
    expect(errorPaths(validateTrigger(body))).toEqual(
      [
        'workflow',
        '$idempotency_key',
        'actor.is_transient',
        'actor.distinct_id',
        'recipients[0]',
        'recipients[1].distinct_id',
        'recipients[1].$email[0]',
        'recipients[1].$email[2]',
        'recipients[1].$channels[0]',
        'recipients[1].$timezone',
        'recipients[1].$locale',
        'recipients[2].$slack[0]',
        'recipients[2].$slack[1]',
        'recipients[2].$slack[2].access_token',
        'recipients[2].$ms_teams[0].tenant_id',
        'recipients[2].$ms_teams[0].service_url',
        'recipients[3].id',
        'recipients[3].$context.tenant_id',
        'data.$attachments[0]',
        'data.$attachments[1].data',
        'data.$attachments[2].url',
      ].sort(),
    );
  });

  it('lists at most 1000 errors and counts the rest at the root', () => {
    const result = validateTrigger({ workflow: 'w', recipients: Array.from({ length: 1200 }, () => 0) });
    if (result.ok) throw new Error('accepted');
    expect(result.errors).toHaveLength(1001);
    expect(result.errors[0]).toEqual({ path: 'recipients', message: 'must hold 1 to 100 recipients (it holds 1200)' });
    expect(result.errors[1000]).toEqual({ path: '', message: 'and 201 more errors' });
  });

  it('names the form rule that failed', () => {
    const result = validateTrigger(withChanges(sampleTrigger(), { 'recipients[3].$ms_teams[0].service_url': REMOVE, 'recipients[3].$slack[1].email': 'x@example.com' }));
    expect(result.ok ? [] : result.errors).toEqual([
      { path: 'recipients[3].$slack[1]', message: expect.stringMatching(/^must be exactly one Slack form .*; it matches several: email, user_id$/) },
      { path: 'recipients[3].$ms_teams[0].service_url', message: 'is required by the form MS Teams by conversation {tenant_id, service_url, conversation_id}' },
    ]);
  });
});
