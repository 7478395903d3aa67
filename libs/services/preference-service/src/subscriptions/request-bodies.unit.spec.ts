import { SUBSCRIPTION_BODIES } from './request-bodies';
import { subscribeRequest, unsubscribeSubjects } from './subscription-request';

const ANY_FORM = 'must be a distinct_id, a user {distinct_id, ...} or an object {id, object_type, ...}';
const parent = { object_type: 'teams', id: 'devs' };

describe('subscription bodies', () => {
  it('takes distinct_ids, users and child objects, carrying the rest as their profile', () => {
    const parsed = SUBSCRIPTION_BODIES.add.parse({
      recipients: ['u1', { distinct_id: 'u2', id: 'x', $email: 'u2@example.com' }, { id: 'ops', object_type: 'teams', name: 'Ops' }, 'u1'],
      properties: { role: 'lead' },
    });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(subscribeRequest(parsed.value, parent)).toEqual({
      ok: true,
      value: {
        subscribers: [
          { subject: { type: 'user', distinct_id: 'u1' }, profile: {} },
          { subject: { type: 'user', distinct_id: 'u2' }, profile: { id: 'x', $email: 'u2@example.com' } },
          { subject: { type: 'object', object_type: 'teams', id: 'ops' }, profile: { name: 'Ops' } },
        ],
        properties: { role: 'lead' },
      },
    });
  });

  it('names each bad subscriber by its path, in the hand reader\'s words', () => {
    const parsed = SUBSCRIPTION_BODIES.add.parse({
      recipients: [' ', 7, { distinct_id: '' }, { distinct_id: 'u', object_type: 't' }, { id: 'x' }, { id: 'x', object_type: ' ' }, { distinct_id: 'u', $sms: [''] }],
      properties: 'p',
    });
    expect(parsed).toEqual({
      ok: false,
      errors: [
        { path: 'recipients[0]', message: ANY_FORM },
        { path: 'recipients[1]', message: ANY_FORM },
        { path: 'recipients[2].distinct_id', message: 'must be a non-empty string' },
        { path: 'recipients[3]', message: 'must be either a user (distinct_id) or an object (id, object_type), not both' },
        { path: 'recipients[4]', message: 'an object needs a non-empty id and object_type' },
        { path: 'recipients[5]', message: 'an object needs a non-empty id and object_type' },
        { path: 'recipients[6].$sms[0]', message: 'must be a non-empty string' },
        { path: 'properties', message: 'must be an object' },
      ],
    });
    const listRefused = { ok: false, errors: [{ path: 'recipients', message: 'must be an array of 1 to 100 recipients' }] };
    expect(SUBSCRIPTION_BODIES.add.parse({})).toEqual(listRefused);
    expect(SUBSCRIPTION_BODIES.add.parse({ recipients: [] })).toEqual(listRefused);
    expect(SUBSCRIPTION_BODIES.add.parse({ recipients: Array.from({ length: 101 }, (_, i) => `u${i}`) })).toEqual(listRefused);
  });

  it('refuses an object subscribing to itself, in the same answer as what the schema refuses', () => {
    const selfSubscription = { path: 'recipients[1]', message: 'an object cannot subscribe to itself' };
    expect(subscribeRequest({ recipients: ['u1', { id: 'devs', object_type: 'teams' }] }, parent)).toEqual({ ok: false, errors: [selfSubscription] });
    expect(subscribeRequest({ recipients: ['', { id: 'devs', object_type: 'teams' }] }, parent)).toEqual({ ok: false, errors: [{ path: 'recipients[0]', message: ANY_FORM }, selfSubscription] });
    expect(subscribeRequest({ recipients: [{ distinct_id: 'devs', id: 'devs', object_type: 'teams' }] }, parent)).toMatchObject({ ok: false, errors: [{ path: 'recipients[0]', message: expect.stringContaining('not both') }] });
  });

  it('takes the subscribers to remove from the body, else from the recipients query', () => {
    const body = { recipients: ['u1', { id: 'ops', object_type: 'teams', $email: 5 }] };
    expect(SUBSCRIPTION_BODIES.remove.parse(body)).toMatchObject({ ok: true });
    expect(unsubscribeSubjects(body, 'ignored')).toEqual({ ok: true, value: [{ type: 'user', distinct_id: 'u1' }, { type: 'object', object_type: 'teams', id: 'ops' }] });
    for (const none of [undefined, null, [], 'text', {}]) {
      expect(SUBSCRIPTION_BODIES.remove.parse(none)).toMatchObject({ ok: true });
      expect(unsubscribeSubjects(none, 'a, b')).toEqual({ ok: true, value: [{ type: 'user', distinct_id: 'a' }, { type: 'user', distinct_id: 'b' }] });
      expect(unsubscribeSubjects(none, undefined)).toEqual({ ok: false, errors: [{ path: 'recipients', message: 'must be an array of 1 to 100 recipients' }] });
    }
    expect(SUBSCRIPTION_BODIES.remove.parse({ recipients: null })).toEqual({ ok: false, errors: [{ path: 'recipients', message: 'must be an array of 1 to 100 recipients' }] });
    expect(SUBSCRIPTION_BODIES.remove.parse({ recipients: [{ id: 'x' }] })).toEqual({ ok: false, errors: [{ path: 'recipients[0]', message: 'an object needs a non-empty id and object_type' }] });
  });
});
