import { LIST_BODIES, MAX_IDS_PER_CALL } from './request-bodies';

describe('list bodies', () => {
  it('takes a list_id with an optional name and description, null counting as absent', () => {
    expect(LIST_BODIES.upsert.parse({ list_id: ' beta ', list_name: null, list_description: 'd', extra: 1 })).toMatchObject({ ok: true });
  });

  it('refuses a blank or too long list_id (after trimming) and a name that is not a string, by path', () => {
    expect(LIST_BODIES.upsert.parse({ list_id: '  ', list_name: 5 })).toEqual({
      ok: false,
      errors: [
        { path: 'list_id', message: 'must be a non-empty string' },
        { path: 'list_name', message: 'must be a string' },
      ],
    });
    expect(LIST_BODIES.upsert.parse({ list_id: ` ${'x'.repeat(255)} ` })).toMatchObject({ ok: true });
    expect(LIST_BODIES.upsert.parse({ list_id: 'x'.repeat(256) })).toEqual({ ok: false, errors: [{ path: 'list_id', message: 'must hold at most 255 characters (it holds 256)' }] });
    expect(LIST_BODIES.upsert.parse({})).toEqual({ ok: false, errors: [{ path: 'list_id', message: 'must be a non-empty string' }] });
    expect(LIST_BODIES.upsert.parse({ list_id: 7 })).toEqual({ ok: false, errors: [{ path: 'list_id', message: 'must be a non-empty string' }] });
    expect(LIST_BODIES.upsert.parse(null)).toEqual({ ok: false, errors: [{ path: '', message: 'a JSON body is required' }] });
  });

  it('takes up to 10,000 distinct_ids, each a non-empty string a path can hold', () => {
    expect(LIST_BODIES.members.parse({ distinct_ids: ['a', ' '] })).toMatchObject({ ok: true });
    expect(LIST_BODIES.members.parse({ distinct_ids: ['ok', '', 7, 'x'.repeat(256)] })).toEqual({
      ok: false,
      errors: [
        { path: 'distinct_ids[1]', message: 'must be a non-empty string' },
        { path: 'distinct_ids[2]', message: 'must be a non-empty string' },
        { path: 'distinct_ids[3]', message: 'must hold at most 255 characters (it holds 256)' },
      ],
    });
    expect(LIST_BODIES.members.parse({ distinct_ids: 'a' })).toEqual({ ok: false, errors: [{ path: 'distinct_ids', message: 'must be an array of distinct_ids' }] });
    expect(LIST_BODIES.members.parse({})).toEqual({ ok: false, errors: [{ path: 'distinct_ids', message: 'must be an array of distinct_ids' }] });
    const tooMany = Array.from({ length: MAX_IDS_PER_CALL + 1 }, (_, i) => `u${i}`);
    expect(LIST_BODIES.members.parse({ distinct_ids: tooMany })).toEqual({ ok: false, errors: [{ path: 'distinct_ids', message: `must have at most ${MAX_IDS_PER_CALL} entries` }] });
  });
});
