import { ComparisonOp } from '../definition';
import { asInstant, compare } from './comparison';

describe('comparison operators', () => {
  const cases: readonly (readonly [ComparisonOp, unknown, unknown, boolean])[] = [
    ['==', 'admin', 'admin', true],
    ['==', 'admin', 'Admin', false],
    ['==', 5, '5', true],
    ['==', 5, '5.0', true],
    ['==', true, 'true', true],
    ['==', { a: 1, b: 2 }, { b: 2, a: 1 }, true],
    ['==', undefined, 'x', false],
    ['!=', 'a', 'b', true],
    ['!=', 3, '3', false],
    ['>', 10, '9', true],
    ['>', '10', '9', true],
    ['>', 'b', 'a', true],
    ['>', undefined, '1', false],
    ['>', { a: 1 }, '1', false],
    ['<', 2, '10', true],
    ['<', 'a', 'b', true],
    ['>=', 5, '5', true],
    ['>=', 4, '5', false],
    ['<=', 5, '5', true],
    ['<=', 6, '5', false],
    ['EMPTY', undefined, undefined, true],
    ['EMPTY', null, undefined, true],
    ['EMPTY', '', undefined, true],
    ['EMPTY', [], undefined, true],
    ['EMPTY', {}, undefined, true],
    ['EMPTY', 0, undefined, false],
    ['NON_EMPTY', 'x', undefined, true],
    ['NON_EMPTY', [], undefined, false],
    ['CONTAINS', 'hello world', 'world', true],
    ['CONTAINS', ['a', 'b'], 'b', true],
    ['CONTAINS', [1, 2], '2', true],
    ['CONTAINS', { vip: true }, 'vip', true],
    ['CONTAINS', 'hello', 'x', false],
    ['CONTAINS', undefined, 'x', false],
    ['NOT_CONTAINS', ['a'], 'b', true],
    ['NOT_CONTAINS', 'abc', 'b', false],
    ['NOT_CONTAINS', undefined, 'b', true],
    ['DATETIME_EQUALS', '2025-03-01T10:00:00Z', '2025-03-01T11:00:00+01:00', true],
    ['DATETIME_EQUALS', 1740823200, '2025-03-01T10:00:00Z', true],
    ['DATETIME_LT', '2025-03-01T09:00:00Z', '2025-03-01T10:00:00Z', true],
    ['DATETIME_LT', '2025-03-01T11:00:00Z', '2025-03-01T10:00:00Z', false],
    ['DATETIME_GT', '2025-03-02', '2025-03-01T10:00:00Z', true],
    ['DATETIME_GT', 'tomorrow', '2025-03-01T10:00:00Z', false],
    ['ARRAY_INTERSECTS', ['a', 'b'], ['b', 'c'], true],
    ['ARRAY_INTERSECTS', ['a'], 'a', true],
    ['ARRAY_INTERSECTS', ['a'], ['c'], false],
    ['NOT_ARRAY_INTERSECTS', ['a'], ['c'], true],
    ['NOT_ARRAY_INTERSECTS', undefined, ['c'], true],
  ];

  it.each(cases)('given %s with left %j and right %j, then %s', (op, left, right, expected) => {
    expect(compare(op, left, right)).toBe(expected);
  });

  it('reads ISO texts and epoch seconds as instants, and nothing else', () => {
    expect(asInstant('2025-03-01T10:00:00Z')).toBe(Date.UTC(2025, 2, 1, 10));
    expect(asInstant(1740823200)).toBe(Date.UTC(2025, 2, 1, 10));
    expect(asInstant('1740823200')).toBe(Date.UTC(2025, 2, 1, 10));
    expect(asInstant('next week')).toBeUndefined();
    expect(asInstant({})).toBeUndefined();
    expect(asInstant(1e20)).toBeUndefined();
  });
});
