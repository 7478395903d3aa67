import { MAX_BULK_DELETE_IDS, SDK_COMPAT_BODIES } from './request-bodies';

describe('merge and bulk delete bodies', () => {
  it('takes a non-blank from_user_id and names it otherwise', () => {
    expect(SDK_COMPAT_BODIES.merge.parse({ from_user_id: 'u-2' })).toMatchObject({ ok: true });
    for (const body of [{}, { from_user_id: 5 }, { from_user_id: ' ' }, { from_user_id: null }]) {
      expect(SDK_COMPAT_BODIES.merge.parse(body)).toEqual({ ok: false, errors: [{ path: 'from_user_id', message: 'must be the distinct_id of the user to merge into this one' }] });
    }
    expect(SDK_COMPAT_BODIES.merge.parse(undefined)).toEqual({ ok: false, errors: [{ path: '', message: 'a JSON body is required' }] });
  });

  it('takes 1 to 1,000 non-blank ids, naming the list or each bad id', () => {
    expect(SDK_COMPAT_BODIES.bulkUserDelete.parse({ distinct_ids: ['a', 'a'] })).toMatchObject({ ok: true });
    const listRefused = { ok: false, errors: [{ path: 'object_ids', message: `must be an array of 1 to ${MAX_BULK_DELETE_IDS} ids` }] };
    expect(SDK_COMPAT_BODIES.bulkObjectDelete.parse({ distinct_ids: ['o1'] })).toEqual(listRefused);
    expect(SDK_COMPAT_BODIES.bulkObjectDelete.parse({ object_ids: [] })).toEqual(listRefused);
    expect(SDK_COMPAT_BODIES.bulkObjectDelete.parse({ object_ids: 'o1' })).toEqual(listRefused);
    expect(SDK_COMPAT_BODIES.bulkUserDelete.parse({ distinct_ids: ['ok', '', null] })).toEqual({
      ok: false,
      errors: [
        { path: 'distinct_ids[1]', message: 'must be a non-empty string' },
        { path: 'distinct_ids[2]', message: 'must be a non-empty string' },
      ],
    });
  });
});
