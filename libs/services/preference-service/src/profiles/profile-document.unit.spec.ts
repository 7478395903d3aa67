import { PROFILE_LIMITS } from '@herald/contracts';
import { applyOperations, applyUpsert, applyUserOperations, channelView, emptyProfile, profileLimitProblem } from './profile-document';
import { PROFILE_BODIES } from './request-bodies';

const props = (n: number): Record<string, number> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, i]));

describe('profile changes', () => {
  it('applies operations in order: lists keep their first-seen order, removes drop every copy, increments add', () => {
    const start = { properties: { tags: ['a', 'b', 'a'], n: 1, s: 'text' }, channels: { email: ['x@example.com'] } };
    const result = applyOperations(start, {
      operations: [
        { $append: { tags: ['c', 'a'], $email: ['y@example.com', 'x@example.com'] } },
        { $remove: { tags: 'a', $email: 'x@example.com' } },
        { $set: { n: 5 }, $increment: { n: 2 } },
        { $set_once: { s: 'ignored', constructor: 'kept as a plain key' } },
        { $unset: ['gone', '$sms'] },
      ],
    });
    expect(result).toEqual({
      ok: true,
      value: { properties: { tags: ['b', 'c'], n: 7, s: 'text', constructor: 'kept as a plain key' }, channels: { email: ['y@example.com'] } },
    });
  });

  it('refuses, by path, what the shape of an edit does not allow', () => {
    expect(PROFILE_BODIES.operations.parse({ operations: [{ $add: { s: 'x' } }, { $nope: {} }, 'x', { $set: { $email: [''] } }, { $unset: ['a', 1] }, { $append: { $slack: [5] } }] })).toEqual({
      ok: false,
      errors: [
        { path: 'operations[0].$add.s', message: 'must be a number added to a numeric property' },
        { path: 'operations[1].$nope', message: 'must be one of $set, $set_once, $unset, $append, $remove, $increment, $add' },
        { path: 'operations[2]', message: 'must be an object' },
        { path: 'operations[3].$set.$email[0]', message: 'must be a non-empty string' },
        { path: 'operations[4].$unset', message: 'must be an array of property or channel names' },
        { path: 'operations[5].$append.$slack[0]', message: 'must be a string or an object' },
      ],
    });
    expect(PROFILE_BODIES.operations.parse({ operations: [] })).toEqual({ ok: false, errors: [{ path: 'operations', message: 'must be a non-empty array' }] });
    expect(PROFILE_BODIES.operations.parse({})).toEqual({ ok: false, errors: [{ path: 'operations', message: 'must be a non-empty array' }] });
    expect(PROFILE_BODIES.operations.parse(undefined)).toEqual({ ok: false, errors: [{ path: '', message: 'a JSON body is required' }] });
    expect(PROFILE_BODIES.upsert.parse({ name: 'x', $sms: '', $webpush: [{ endpoint: 'e' }, []], $timezone: 5 })).toEqual({
      ok: false,
      errors: [
        { path: '$sms', message: 'must be a non-empty string' },
        { path: '$webpush[1]', message: 'must be a string or an object' },
      ],
    });
    expect(PROFILE_BODIES.upsert.parse(['x'])).toEqual({ ok: false, errors: [{ path: '', message: 'must be a JSON object' }] });
  });

  it('refuses an increment of a property that will not hold a number, and changes nothing', () => {
    const start = { properties: { s: 'text' }, channels: {} };
    expect(applyOperations(start, { operations: [{ $add: { s: 1 } }, { $set: { n: 'x' }, $increment: { n: 1 } }, { $set: { m: 1 }, $add: { m: 2 } }] })).toEqual({
      ok: false,
      errors: [
        { path: 'operations[0].$add.s', message: 'must be a number added to a numeric property' },
        { path: 'operations[1].$increment.n', message: 'must be a number added to a numeric property' },
      ],
    });
  });

  it('skips an identity event operation that cannot apply, keeping the others', () => {
    const { profile, errors } = applyUserOperations({ properties: { s: 'text' }, channels: {} }, [
      { $set: { a: 1 } },
      { $set: { b: 2 }, $add: { s: 1 } },
      { $add: { a: 1 } },
      { $append: { $email: [''] }, $set: { c: 3 } },
    ]);
    expect(profile.properties).toEqual({ s: 'text', a: 2 });
    expect(errors).toEqual([
      { path: 'operations[1].$add.s', message: expect.any(String) },
      { path: 'operations[3].$append.$email[0]', message: 'must be a non-empty string' },
    ]);
  });

  it(`accepts ${PROFILE_LIMITS.maxChangesPerRequest} changes in one request and refuses one more, before applying any`, () => {
    const atLimit = { operations: [{ $set: props(PROFILE_LIMITS.maxChangesPerRequest - 1) }, { $unset: ['p0'] }] };
    expect(applyOperations(emptyProfile(), atLimit).ok).toBe(true);
    const past = { operations: [{ $set: props(PROFILE_LIMITS.maxChangesPerRequest) }, { $unset: ['p0'] }] };
    expect(applyOperations(emptyProfile(), past)).toEqual({ ok: false, errors: [{ path: 'operations', message: expect.stringContaining(`holds ${PROFILE_LIMITS.maxChangesPerRequest + 1} changes`) }] });
    expect(applyUpsert(emptyProfile(), props(PROFILE_LIMITS.maxChangesPerRequest)).ok).toBe(true);
    expect(applyUpsert(emptyProfile(), props(PROFILE_LIMITS.maxChangesPerRequest + 1))).toMatchObject({ ok: false, errors: [{ path: '' }] });
  });

  it(`refuses more than ${PROFILE_LIMITS.maxProperties} properties or ${PROFILE_LIMITS.maxBytes} bytes with a 413 error`, () => {
    expect(profileLimitProblem({ properties: props(PROFILE_LIMITS.maxProperties), channels: {} }, 10)).toBeUndefined();
    expect(profileLimitProblem({ properties: props(PROFILE_LIMITS.maxProperties + 1), channels: {} }, 10)).toMatchObject({ code: 'payload_too_large' });
    const big = { properties: { blob: 'x'.repeat(PROFILE_LIMITS.maxBytes - 20) }, channels: {} };
    expect(profileLimitProblem(big, PROFILE_LIMITS.maxBytes)).toBeUndefined();
    expect(profileLimitProblem(big, PROFILE_LIMITS.maxBytes + 1)).toMatchObject({ code: 'payload_too_large', message: expect.stringContaining('256 KiB') });
  });
});

describe('channelView', () => {
  it('shows channel identities without their credentials or Herald’s form tag', () => {
    const view = channelView({
      email: ['a@example.com'],
      slack: [
        { form: 'email', email: 'a@example.com', access_token: 'xoxb-secret' },
        { form: 'incoming_webhook', incoming_webhook: { url: 'https://hooks.slack.com/services/T/B/secret' } },
      ],
      webpush: [{ endpoint: 'https://push.example.com/sub/1', keys: { p256dh: 'p', auth: 'secret' } }],
    });
    expect(view).toEqual({
      $email: [{ value: 'a@example.com', status: 'active', perma_status: 'active' }],
      $slack: [
        { value: { email: 'a@example.com' }, status: 'active', perma_status: 'active' },
        { value: {}, status: 'active', perma_status: 'active' },
      ],
      $webpush: [{ value: { endpoint: 'https://push.example.com/sub/1' }, status: 'active', perma_status: 'active' }],
    });
    expect(JSON.stringify(view)).not.toContain('secret');
  });
});
