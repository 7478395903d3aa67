import { PROFILE_LIMITS } from '@herald/contracts';
import { validateEventRecord, eventBulkSizeErrors } from './event-records';
import { isIdentityEvent, validateIdentityEvent } from './identity-event';
import { REMOVE } from './testing/json-path';
import { FailingCase, PassingCase, pathsAfter } from './testing/table';

/** An identity event as `supr_client.user.get_instance('u-1')` ... `.save()` sends it (subscriber.js `get_events`). */
const sampleIdentityEvent = (): Record<string, unknown> => ({
  $schema: '2',
  $insert_id: '6f2d0c3e-3c4e-4b53-9a51-0c3c8c1b2a11',
  $time: 1_700_000_000_000,
  env: 'hwk_0123456789abcdefghijkl',
  distinct_id: 'u-1',
  $user_operations: [
    { $set: { name: 'Ada', $preferred_language: 'en', $timezone: 'Europe/London' } },
    { $append: { $email: 'ada@example.com' } },
    { $append: { $androidpush: 'fcm-token', $id_provider: 'fcm' } },
    { $set_once: { first_seen: '2024-01-01' }, $add: { logins: 1 }, $remove: { tags: 'old' }, $unset: ['legacy'] },
  ],
  properties: { $ss_sdk_version: 'node/1.15.1' },
});

const failing: FailingCase[] = [
  { rule: 'distinct_id is required', changes: { distinct_id: REMOVE }, paths: ['distinct_id'] },
  { rule: 'distinct_id is not blank', changes: { distinct_id: ' ' }, paths: ['distinct_id'] },
  { rule: '$user_operations is an array', changes: { $user_operations: {} }, paths: ['$user_operations'] },
  { rule: 'an operation is an object', changes: { '$user_operations[1]': 'set' }, paths: ['$user_operations[1]'] },
  { rule: 'operation keys are the six of the SDKs', changes: { '$user_operations[1].$increment': { a: 1 } }, paths: ['$user_operations[1].$increment'] },
  { rule: '$set takes an object', changes: { '$user_operations[0].$set': ['name'] }, paths: ['$user_operations[0].$set'] },
  { rule: '$preferred_language is a locale', changes: { '$user_operations[0].$set.$preferred_language': 'english please' }, paths: ['$user_operations[0].$set.$preferred_language'] },
  { rule: '$timezone is an IANA zone', changes: { '$user_operations[0].$set.$timezone': 'Mars/Olympus' }, paths: ['$user_operations[0].$set.$timezone'] },
  { rule: 'an email is an email address', changes: { '$user_operations[1].$append.$email': 'not-an-email' }, paths: ['$user_operations[1].$append.$email'] },
  { rule: 'an sms number is a phone number', changes: { '$user_operations[1].$append.$sms': ['+1 555', 'abc'] }, paths: ['$user_operations[1].$append.$sms[0]', '$user_operations[1].$append.$sms[1]'] },
  { rule: 'a slack entry is one of its forms', changes: { '$user_operations[1].$append.$slack': { nope: 1 } }, paths: ['$user_operations[1].$append.$slack'] },
  { rule: 'a push token is not blank', changes: { '$user_operations[2].$append.$androidpush': ' ' }, paths: ['$user_operations[2].$append.$androidpush.token'] },
  { rule: '$add takes numbers', changes: { '$user_operations[3].$add.logins': 'one' }, paths: ['$user_operations[3].$add.logins'] },
  { rule: '$add cannot increment a channel', changes: { '$user_operations[3].$add.$email': 1 }, paths: ['$user_operations[3].$add.$email'] },
  { rule: '$set_once cannot set a channel', changes: { '$user_operations[3].$set_once.$email': 'a@example.com' }, paths: ['$user_operations[3].$set_once.$email'] },
  { rule: '$unset names are not blank', changes: { '$user_operations[3].$unset': ['ok', ''] }, paths: ['$user_operations[3].$unset[1]'] },
  { rule: 'tenant_id is a string', changes: { tenant_id: 7 }, paths: ['tenant_id'] },
  { rule: '$idempotency_key is not blank', changes: { $idempotency_key: ' ' }, paths: ['$idempotency_key'] },
];

const passing: PassingCase[] = [
  { rule: 'the SDK sample', changes: {} },
  { rule: 'no operations (a bare save)', changes: { $user_operations: [] } },
  { rule: 'a tenant and an idempotency key', changes: { tenant_id: 'acme', $idempotency_key: 'k-1' } },
  { rule: 'channels as lists, and removed', changes: { '$user_operations[1]': { $append: { $email: ['a@example.com', 'b@example.com'] }, $remove: { $sms: '+15555550100' } } } },
  { rule: 'a slack entry and a whole channel unset', changes: { '$user_operations[1]': { $append: { $slack: { email: 'a@example.com', access_token: 'xoxb-1' } }, $unset: ['$email'] } } },
  { rule: 'slack entries without access_token (Java addSlackEmail/addSlackUserid, Node add_slack)', changes: { '$user_operations[1]': { $append: { $slack: { email: 'a@example.com' } } }, '$user_operations[2]': { $append: { $slack: { user_id: 'U0123' } } } } },
  { rule: 'an ios token with provider and bundle id', changes: { '$user_operations[2]': { $append: { $iospush: 'apns-token', $id_provider: 'apns', $bundle_id: 'com.example' } } } },
  { rule: 'a single $unset name', changes: { '$user_operations[3].$unset': 'legacy' } },
];

describe('validateIdentityEvent', () => {
  it.each(failing)('rejects: $rule → $paths', ({ changes, paths }) => {
    expect(pathsAfter(validateIdentityEvent, sampleIdentityEvent, changes)).toEqual([...paths].sort());
  });

  it.each(passing)('accepts: $rule', ({ changes }) => {
    expect(pathsAfter(validateIdentityEvent, sampleIdentityEvent, changes)).toEqual([]);
  });

  it('requires $user_operations when routed here without one', () => {
    expect(validateIdentityEvent({ distinct_id: 'u' })).toEqual({ ok: false, errors: [{ path: '$user_operations', message: 'is required' }] });
  });

  it('normalises what the SDKs send into the forms inline recipients use', () => {
    expect(validateIdentityEvent(sampleIdentityEvent())).toEqual({
      ok: true,
      value: {
        distinct_id: 'u-1',
        operations: [
          { $set: { name: 'Ada', $locale: 'en', $timezone: 'Europe/London' } },
          { $append: { $email: ['ada@example.com'] } },
          { $append: { $androidpush: [{ token: 'fcm-token', provider: 'fcm' }] } },
          { $set_once: { first_seen: '2024-01-01' }, $add: { logins: 1 }, $remove: { tags: 'old' }, $unset: ['legacy'] },
        ],
      },
    });
  });
});

describe('event records', () => {
  it(`accepts ${PROFILE_LIMITS.maxChangesPerRequest} profile changes in one identity event and refuses one more, as preference-service would`, () => {
    const withChanges = (n: number) => ({ distinct_id: 'u-1', $user_operations: [{ $set: Object.fromEntries(Array.from({ length: n - 1 }, (_, i) => [`p${i}`, i])) }, { $unset: ['legacy'] }] });
    expect(validateIdentityEvent(withChanges(PROFILE_LIMITS.maxChangesPerRequest)).ok).toBe(true);
    expect(validateIdentityEvent(withChanges(PROFILE_LIMITS.maxChangesPerRequest + 1))).toEqual({
      ok: false,
      errors: [{ path: '$user_operations', message: expect.stringContaining(`holds ${PROFILE_LIMITS.maxChangesPerRequest + 1} changes`) }],
    });
  });

  it('routes by $user_operations', () => {
    expect(isIdentityEvent(sampleIdentityEvent())).toBe(true);
    expect(isIdentityEvent({ distinct_id: 'u', event: 'e' })).toBe(false);
    expect(validateEventRecord(sampleIdentityEvent())).toMatchObject({ ok: true, value: { kind: 'identity' } });
    expect(validateEventRecord({ distinct_id: 'u', event: 'signed_up' })).toMatchObject({ ok: true, value: { kind: 'track', event: { event: 'signed_up' } } });
    expect(validateEventRecord({ distinct_id: 'u' })).toMatchObject({ ok: false, errors: [{ path: 'event' }] });
  });

  it('allows 400 records in a bulk, of which at most 100 track events', () => {
    const identity = sampleIdentityEvent();
    const track = { distinct_id: 'u', event: 'e' };
    expect(eventBulkSizeErrors(Array.from({ length: 400 }, () => identity))).toEqual([]);
    expect(eventBulkSizeErrors([...Array.from({ length: 100 }, () => track), ...Array.from({ length: 300 }, () => identity)])).toEqual([]);
    expect(eventBulkSizeErrors(Array.from({ length: 401 }, () => identity))).toEqual([{ path: '', message: 'must hold at most 400 records (it holds 401)' }]);
    expect(eventBulkSizeErrors(Array.from({ length: 101 }, () => track))).toEqual([{ path: '', message: 'must hold at most 100 track events (it holds 101)' }]);
    expect(eventBulkSizeErrors([])).toEqual([{ path: '', message: 'must hold at least 1 record' }]);
  });
});
