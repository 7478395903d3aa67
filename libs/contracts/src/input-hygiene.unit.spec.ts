import { INPUT_LIMITS, inputHygieneProblems, jsonTextNestingProblem, storableText } from './input-hygiene';

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

describe('jsonTextNestingProblem', () => {
  const deepAt = (shape: (inner: unknown) => unknown, levels: number): unknown => {
    let value: unknown = 1;
    for (let level = 0; level < levels; level += 1) value = shape(value);
    return value;
  };
  const cases: Array<[string, unknown]> = [
    ['arrays under a key', { data: deepAt((v) => [v], 80) }],
    ['objects with odd keys', { 'a b': deepAt((v) => ({ 'k"\\': v }), 80) }],
    ['after other items', { list: ['x', 2, { y: 'a,]}' }, deepAt((v) => ['s', v], 80)] }],
    ['mixed', [1, { a: [true, null, deepAt((v) => ({ n: [v] }), 40)] }]],
  ];

  it.each(cases)('names the same path as the walk over the parsed value (%s)', (_, value) => {
    const walked = inputHygieneProblems(value).find((p) => p.message.includes('nested too deeply'));
    expect(walked).toBeDefined();
    expect(jsonTextNestingProblem(JSON.stringify(value))).toEqual(walked);
  });

  it('accepts the limits exactly, and ignores brackets inside strings', () => {
    expect(jsonTextNestingProblem(JSON.stringify(deepAt((v) => [v], INPUT_LIMITS.maxDepth)))).toBeUndefined();
    expect(jsonTextNestingProblem(JSON.stringify({ s: '[[[[{{{{'.repeat(100), t: '\\"[[[' }))).toBeUndefined();
    const keys = (n: number): string => JSON.stringify({ data: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, { a: [i] }])) });
    expect(jsonTextNestingProblem(keys(INPUT_LIMITS.maxKeysPerObject))).toBeUndefined();
    expect(jsonTextNestingProblem(keys(INPUT_LIMITS.maxKeysPerObject + 1))).toEqual({ path: 'data', message: expect.stringContaining('keys per object') });
  });

  it('refuses a megabyte of brackets at once, and leaves malformed text to the parser', () => {
    expect(jsonTextNestingProblem('['.repeat(1_000_000))).toEqual({ path: expect.stringMatching(/^(\[0\]){64}$/), message: expect.stringContaining('nested too deeply') });
    expect(jsonTextNestingProblem('{"a":1,,,]]]}')).toBeUndefined();
    expect(jsonTextNestingProblem('{"unterminated')).toBeUndefined();
  });
});

describe('storableText', () => {
  it('replaces a NUL and a lone surrogate with U+FFFD, and keeps whole pairs and everything else', () => {
    expect(storableText('a\u0000b')).toBe('a\uFFFDb');
    expect(storableText('cut 😀'.slice(0, 5))).toBe('cut \uFFFD');
    expect(storableText('\uDE00 low first')).toBe('\uFFFD low first');
    expect(storableText('whole 😀, ünïcode')).toBe('whole 😀, ünïcode');
    // What it returns, a client's input check accepts.
    expect(inputHygieneProblems({ reason: storableText('x\u0000\uD83D') })).toEqual([]);
  });
});
