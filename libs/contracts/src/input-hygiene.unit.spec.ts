import { INPUT_LIMITS, inputHygieneProblems } from './input-hygiene';

const nested = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { a: value };
  return value;
};

describe('inputHygieneProblems', () => {
  it('accepts ordinary JSON, emoji (surrogate pairs) included', () => {
    expect(inputHygieneProblems({ name: 'Zoë 🎉', tags: ['a', 1, null, true], nested: { deep: [{ x: 'é' }] } })).toEqual([]);
  });

  it('names the path of a NUL or a lone surrogate in a string', () => {
    expect(inputHygieneProblems({ data: { items: ['ok', 'a\u0000b'] }, $idempotency_key: '\ud800' })).toEqual([
      { path: 'data.items[1]', message: expect.stringContaining('NUL') },
      { path: '$idempotency_key', message: expect.stringContaining('lone UTF-16 surrogate') },
    ]);
    expect(inputHygieneProblems('\udc00x', 'distinct_id')).toEqual([{ path: 'distinct_id', message: expect.stringContaining('surrogate') }]);
  });

  it('names bad keys with the key quoted and escaped', () => {
    expect(inputHygieneProblems({ properties: { 'a\u0000b': 1, 'x\ud800': 2, 'plain key': 'ok' } })).toEqual([
      { path: 'properties["a\\u0000b"]', message: expect.stringMatching(/^key contains a NUL/) },
      { path: 'properties["x\\ud800"]', message: expect.stringMatching(/^key contains a lone/) },
    ]);
  });

  it(`accepts ${INPUT_LIMITS.maxDepth} levels and refuses one more, without overflowing on 100,000`, () => {
    expect(inputHygieneProblems(nested(INPUT_LIMITS.maxDepth))).toEqual([]);
    expect(inputHygieneProblems(nested(INPUT_LIMITS.maxDepth + 1))).toEqual([{ path: expect.any(String), message: expect.stringContaining('nested too deeply') }]);
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(inputHygieneProblems({ data: deep })).toEqual([{ path: `data${'[0]'.repeat(INPUT_LIMITS.maxDepth - 1)}`, message: expect.stringContaining('nested too deeply') }]);
  });

  it(`accepts ${INPUT_LIMITS.maxKeysPerObject} keys in an object and refuses one more`, () => {
    const keys = (n: number): Record<string, number> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(inputHygieneProblems({ data: keys(INPUT_LIMITS.maxKeysPerObject) })).toEqual([]);
    expect(inputHygieneProblems({ data: keys(INPUT_LIMITS.maxKeysPerObject + 1) })).toEqual([
      { path: 'data', message: `has ${INPUT_LIMITS.maxKeysPerObject + 1} keys: at most ${INPUT_LIMITS.maxKeysPerObject} keys per object are accepted` },
    ]);
  });

  it('lists 20 problems and counts the rest', () => {
    const problems = inputHygieneProblems(Array.from({ length: 1_000 }, () => '\u0000'));
    expect(problems).toHaveLength(21);
    expect(problems[20]).toEqual({ path: '', message: 'and 980 more problems of the same kinds' });
  });
});
