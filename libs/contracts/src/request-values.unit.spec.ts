import { FieldError } from './envelope';
import { BIGINT_MAX, MAX_ID_LENGTH, idLengthProblem, readQueryBigint, readQueryDate } from './request-values';

describe('readQueryDate', () => {
  const read = (value: unknown): { at: string | undefined; errors: FieldError[] } => {
    const errors: FieldError[] = [];
    return { at: readQueryDate(value, 'created_at_gte', errors)?.toISOString(), errors };
  };

  it('reads RFC 3339 date-times and dates from year 1 to 9999, as Postgres reads them back', () => {
    expect(read('2024-02-29T10:00:00+02:00')).toEqual({ at: '2024-02-29T08:00:00.000Z', errors: [] });
    expect(read('0001-01-01T00:00:00Z').at).toBe('0001-01-01T00:00:00.000Z');
    expect(read('9999-12-31T23:59:59.999Z').at).toBe('9999-12-31T23:59:59.999Z');
    expect(read('2024-06-01').at).toBe('2024-06-01T00:00:00.000Z');
  });

  it.each([
    ['+275760-09-13T00:00:00.000Z', /0001-01-01 to 9999-12-31/],
    ['-271821-04-20T00:00:00.000Z', /0001-01-01 to 9999-12-31/],
    ['0000-01-01T00:00:00Z', /0001-01-01 to 9999-12-31/],
    ['+010000-01-01T00:00:00Z', /0001-01-01 to 9999-12-31/],
    ['2024-02-30T00:00:00Z', /no such day: 2024-02-30/],
    ['2023-02-29', /no such day/],
    ['2024-04-31T00:00:00Z', /no such day/],
    ['yesterday', /RFC 3339/],
  ])('refuses %s naming the parameter', (value, message) => {
    const { at, errors } = read(value);
    expect(at).toBeUndefined();
    expect(errors).toEqual([{ path: 'created_at_gte', message: expect.stringMatching(message) }]);
  });

  it('refuses a parameter given more than once', () => {
    expect(read(['2024-01-01', '2024-01-02']).errors).toEqual([{ path: 'created_at_gte', message: 'must be given once' }]);
  });
});

describe('readQueryBigint', () => {
  const read = (value: unknown): bigint | undefined => readQueryBigint(value, 'after', [], 'must be a cursor');

  it('reads positive integers up to Postgres bigint', () => {
    expect(read('1')).toBe(1n);
    expect(read(BIGINT_MAX.toString())).toBe(BIGINT_MAX);
  });

  it.each(['0', '-1', '9223372036854775808', '99999999999999999999', '1e3', '', ' 1', '0x10'])('refuses %p', (value) => {
    const errors: FieldError[] = [];
    expect(readQueryBigint(value, 'after', errors, 'must be a cursor')).toBeUndefined();
    expect(errors).toEqual([{ path: 'after', message: 'must be a cursor' }]);
  });
});

describe('idLengthProblem', () => {
  it(`takes ids of up to ${MAX_ID_LENGTH} characters`, () => {
    expect(idLengthProblem('a'.repeat(MAX_ID_LENGTH))).toBeUndefined();
    expect(idLengthProblem('a'.repeat(MAX_ID_LENGTH + 1))).toBe(`must hold at most ${MAX_ID_LENGTH} characters (it holds ${MAX_ID_LENGTH + 1})`);
  });
});
