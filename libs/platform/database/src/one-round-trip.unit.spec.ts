import { NulInText, inlineParameters, literal } from './one-round-trip';

describe('inlining parameters for one round trip', () => {
  it('quotes values as Postgres literals: quotes doubled, backslashes in an E string, null as NULL', () => {
    expect(literal("it's")).toBe("'it''s'");
    expect(literal('a\\b')).toBe("E'a\\\\b'");
    expect(literal(null)).toBe('NULL');
    expect(literal(undefined)).toBe('NULL');
    expect(literal(42)).toBe("'42'");
    expect(literal({ a: "o'k" })).toBe(`'{"a":"o''k"}'`);
    expect(literal(['x', 'y"z'])).toBe(`E'{"x","y\\\\"z"}'`);
    expect(literal(Buffer.from([1, 255]))).toBe("E'\\\\x01ff'");
  });

  it('refuses text holding a NUL with the data error Postgres gives such a bound parameter, not a broken query', () => {
    for (const value of ['a\u0000b', ['ok', 'n\u0000ul']]) {
      expect(() => literal(value)).toThrow(NulInText);
      expect(new NulInText().code).toBe('22021');
    }
    expect(() => inlineParameters('SELECT $1', ['\u0000'])).toThrow(NulInText);
    // JSON carries a NUL escaped, as node-postgres sends it too.
    expect(literal({ text: '\u0000' })).toBe(`E'{"text":"\\\\u0000"}'`);
  });

  it('replaces each placeholder, as often as it appears, and nothing inside strings, identifiers, comments or dollar quotes', () => {
    const sql = `SELECT $1::text, '$1', "$2", $2 -- $1\n /* $2 */ , $$ $1 $$, $tag$ $2 $tag$, $1, $10`;
    const parameters = ['one', 'two', 3, 4, 5, 6, 7, 8, 9, 'ten'];
    expect(inlineParameters(sql, parameters)).toBe(`SELECT 'one'::text, '$1', "$2", 'two' -- $1\n /* $2 */ , $$ $1 $$, $tag$ $2 $tag$, 'one', 'ten'`);
  });

  it('refuses a placeholder without its parameter, as Postgres would', () => {
    expect(() => inlineParameters('SELECT $2', ['only one'])).toThrow('refers to $2 but has 1 parameter(s)');
  });
});
