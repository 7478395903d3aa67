import { PROFILE_LIMITS } from '@herald/contracts';
import { applyOperations, applyUpsert, applyUserOperations, channelView, emptyProfile, profileLimitProblem } from './profile-document';

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

  it('reports every wrong operation by path and changes nothing', () => {
    expect(applyOperations({ properties: { s: 'text' }, channels: {} }, { operations: [{ $add: { s: 1 } }, { $nope: {} }, 'x', { $set: { $email: [''] } }] })).toEqual({
      ok: false,
      errors: [
        { path: 'operations[0].$add.s', message: 'must be a number added to a numeric property' },
        { path: 'operations[1].$nope', message: expect.stringContaining('must be one of') },
        { path: 'operations[2]', message: 'must be an object' },
        { path: 'operations[3].$set.$email[0]', message: 'must be a non-empty string' },
      ],
    });
  });

  it('skips an identity event operation that cannot apply, keeping the others', () => {
    const { profile, errors } = applyUserOperations({ properties: { s: 'text' }, channels: {} }, [{ $set: { a: 1 } }, { $set: { b: 2 }, $add: { s: 1 } }, { $add: { a: 1 } }]);
    expect(profile.properties).toEqual({ s: 'text', a: 2 });
    expect(errors).toEqual([{ path: 'operations[1].$add.s', message: expect.any(String) }]);
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
