import { validateBulk } from './bulk';
import { validateEvent } from './event';
import { validateTrigger } from './trigger';

describe('validateBulk', () => {
  const trigger = { workflow: 'w', recipients: ['u'] };

  it.each([
    { rule: 'no records', size: 0, message: 'must hold at least 1 record' },
    { rule: 'more than 100 records', size: 101, message: 'must hold at most 100 records (it holds 101)' },
  ])('fails the whole request at path "": $rule', ({ size, message }) => {
    expect(validateBulk(Array.from({ length: size }, () => trigger), validateTrigger)).toEqual({ ok: false, errors: [{ path: '', message }] });
  });

  it('accepts exactly 100 records', () => {
    const result = validateBulk(Array.from({ length: 100 }, () => trigger), validateTrigger);
    expect(result.ok && result.records.every((record) => record.ok)).toBe(true);
  });

  it('gives one result per record, in order, with paths relative to the record', () => {
    const result = validateBulk([trigger, { workflow: 'w', recipients: [5] }, 'junk', trigger], validateTrigger);
    if (!result.ok) throw new Error('whole request failed');
    expect(result.records.map((record) => (record.ok ? 'ok' : record.errors.map((error) => error.path)))).toEqual([
      'ok',
      ['recipients[0]'],
      [''],
      'ok',
    ]);
  });

  it('works for events too', () => {
    const result = validateBulk([{ distinct_id: 'u', event: 'e' }, { event: 'e' }], validateEvent);
    expect(result.ok && result.records.map((record) => record.ok)).toEqual([true, false]);
  });
});
