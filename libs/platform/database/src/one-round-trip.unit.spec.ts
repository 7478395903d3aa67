import { NulInText, inlineParameters, literal } from './one-round-trip';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

/** The text of a literal in single quotes (holding none) or in dollar quotes. */
function quotedText(literal: string): string {
  const tag = /^\$[a-z0-9]*\$/.exec(literal)?.[0] ?? "'";
  expect(literal.endsWith(tag)).toBe(true);
  return literal.slice(tag.length, literal.length - tag.length);
}

describe('inlining parameters for one round trip', () => {
  it('quotes values as Postgres literals: plain text in single quotes, text with a quote or backslash in dollar quotes as it is, null as NULL', () => {
    expect(literal('plain')).toBe("'plain'");
    expect(literal("it's")).toBe("$v$it's$v$");
    expect(literal('a\\b')).toBe('$v$a\\b$v$');
    expect(literal(null)).toBe('NULL');
    expect(literal(undefined)).toBe('NULL');
    expect(literal(42)).toBe("'42'");
    expect(literal({ a: "o'k" })).toBe('$v$' + '{"a":"o\'k"}' + '$v$');
    expect(literal(['x', 'y"z'])).toBe('$v$' + '{"x","y\\"z"}' + '$v$');
    expect(literal(Buffer.from([1, 255]))).toBe("E'\\\\x01ff'");
  });

  it('picks a dollar-quote tag the text neither holds nor completes with its end', () => {
    expect(literal("it's $v$")).toBe("$v1$it's $v$$v1$");
    expect(literal("it's $v")).toBe("$v1$it's $v$v1$");
    expect(literal("it's $v$ and $v1$ and $v2")).toBe("$v3$it's $v$ and $v1$ and $v2$v3$");
    expect(literal("it's $")).toBe("$v$it's $$v$");
  });

  it('writes an array as the same text node-postgres binds for it, element for element', () => {
    const arrays: unknown[][] = [
      ['plain', "it's", 'say "hi"', 'back\\slash', 'both \\ and "', '', 'NULL', null, undefined],
      [1, 2.5, -3, true, false],
      [new Date('2026-11-29T21:00:00.123Z'), { a: 'o"k', b: ["it's"] }, Buffer.from([0, 1, 255])],
      [['nested', 'x"y'], [null, 'a\\b'], []],
      [],
    ];
    for (const array of arrays) expect(quotedText(literal(array))).toBe(String(prepareValue(array)));
  });

  it('refuses text holding a NUL with the data error Postgres gives such a bound parameter, not a broken query', () => {
    for (const value of ['a\u0000b', ['ok', 'n\u0000ul']]) {
      expect(() => literal(value)).toThrow(NulInText);
      expect(new NulInText().code).toBe('22021');
    }
    expect(() => inlineParameters('SELECT $1', ['\u0000'])).toThrow(NulInText);
    // JSON carries a NUL escaped, as node-postgres sends it too.
    expect(literal({ text: '\u0000' })).toBe('$v$' + '{"text":"\\u0000"}' + '$v$');
  });

  it('replaces each placeholder, as often as it appears, and nothing inside strings, identifiers, comments or dollar quotes', () => {
    const sql = `SELECT $1::text, '$1', "$2", $2 -- $1\n /* $2 */ , $$ $1 $$, $tag$ $2 $tag$, $1, $10, 4-$3, 6/$4, $, $ 1`;
    const parameters = ['one', 'two', 3, 4, 5, 6, 7, 8, 9, 'ten'];
    expect(inlineParameters(sql, parameters)).toBe(`SELECT 'one'::text, '$1', "$2", 'two' -- $1\n /* $2 */ , $$ $1 $$, $tag$ $2 $tag$, 'one', 'ten', 4-'3', 6/'4', $, $ 1`);
    expect(inlineParameters('SELECT 1', [])).toBe('SELECT 1');
  });

  it('refuses a placeholder without its parameter, as Postgres would', () => {
    expect(() => inlineParameters('SELECT $2', ['only one'])).toThrow('refers to $2 but has 1 parameter(s)');
  });
});
