import { validateEvent } from './event';
import { REMOVE } from './testing/json-path';
import { sampleEvent } from './testing/sample-bodies';
import { FailingCase, PassingCase, pathsAfter } from './testing/table';

/** `POST /event/` bodies (reference `/event/`; decisions.md "Notification API"). */
const failing: FailingCase[] = [
  { rule: 'distinct_id is required', changes: { distinct_id: REMOVE }, paths: ['distinct_id'] },
  { rule: 'distinct_id is a string', changes: { distinct_id: 5 }, paths: ['distinct_id'] },
  { rule: 'distinct_id is not blank', changes: { distinct_id: ' ' }, paths: ['distinct_id'] },
  { rule: 'event is required', changes: { event: REMOVE }, paths: ['event'] },
  { rule: 'event null counts as missing', changes: { event: null }, paths: ['event'] },
  { rule: 'event is a string', changes: { event: ['a'] }, paths: ['event'] },
  { rule: 'event is not blank', changes: { event: '' }, paths: ['event'] },
  { rule: 'event is at most 255 characters', changes: { event: 'e'.repeat(256) }, paths: ['event'] },
  { rule: 'properties is an object', changes: { properties: 'x' }, paths: ['properties'] },
  { rule: 'properties.$attachments follow the attachment rules', changes: { 'properties.$attachments[0].url': 'nope' }, paths: ['properties.$attachments[0].url'] },
  { rule: 'tenant_id is a string', changes: { tenant_id: false }, paths: ['tenant_id'] },
  { rule: '$idempotency_key is at most 255 after trimming', changes: { $idempotency_key: 'k'.repeat(256) }, paths: ['$idempotency_key'] },
  {
    rule: 'all of them at once',
    changes: { distinct_id: REMOVE, event: 3, properties: [], tenant_id: '', $idempotency_key: '' },
    paths: ['$idempotency_key', 'distinct_id', 'event', 'properties', 'tenant_id'],
  },
];

const passing: PassingCase[] = [
  { rule: 'the full sample', changes: {} },
  { rule: 'only distinct_id and event', changes: { properties: REMOVE, tenant_id: REMOVE, $idempotency_key: REMOVE } },
  { rule: 'null optional fields', changes: { properties: null, tenant_id: null, $idempotency_key: null } },
  { rule: 'SDK extras are ignored', changes: { $insert_id: '6f2d0c3e', $time: 1_700_000_000_000, env: 'ws-key', brand_id: null, 'properties.$ss_sdk_version': 'node/1.15.1' } },
  { rule: 'event names with $ or ss_ and spaces', changes: { event: '$notification_clicked' } },
  { rule: 'event of 255 characters', changes: { event: 'e'.repeat(255) } },
  { rule: 'properties of any JSON', changes: { 'properties.items': [{ sku: 1 }], 'properties.amount': 12.5 } },
];

describe('validateEvent', () => {
  it.each(failing)('rejects: $rule → $paths', ({ changes, paths }) => {
    expect(pathsAfter(validateEvent, sampleEvent, changes)).toEqual([...paths].sort());
  });

  it.each(passing)('accepts: $rule', ({ changes }) => {
    expect(pathsAfter(validateEvent, sampleEvent, changes)).toEqual([]);
  });

  it.each([null, 1, 'event', [sampleEvent()]])('rejects a body that is not an object (%p) at the root', (body) => {
    expect(validateEvent(body)).toEqual({ ok: false, errors: [{ path: '', message: 'must be an object' }] });
  });

  it('normalises: names kept as sent, key trimmed, attachments parsed', () => {
    expect(validateEvent({ distinct_id: ' u1 ', event: 'Order Placed', properties: { $attachments: [{ url: 'https://example.com/a' }] }, $idempotency_key: ' k ' })).toEqual({
      ok: true,
      value: {
        distinct_id: ' u1 ',
        event: 'Order Placed',
        properties: { $attachments: [{ url: 'https://example.com/a' }] },
        attachments: [{ kind: 'url', url: 'https://example.com/a', ignore_if_error: false }],
        idempotency_key: 'k',
      },
    });
  });
});
