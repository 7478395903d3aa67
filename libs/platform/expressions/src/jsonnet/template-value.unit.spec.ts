import { hasJsonnetOnlySyntax } from './template-value';

describe('hasJsonnetOnlySyntax (condition 1 of the template value rule)', () => {
  it.each([
    '"https://x/" + data.id',
    "'quoted'",
    'data.id',
    'data["$recipient"].email',
    'std.toString(1)',
    'local x = 1; x',
    'if true then 1 else 2',
    'function(x) x',
    '[1, 2]',
    '{ a: 1 }',
    '(1)',
    '|||\n  text\n|||',
    'self.a',
    'error "x"',
    'data-center',
  ])('%j is written as Jsonnet', (value) => {
    expect(hasJsonnetOnlySyntax(value)).toBe(true);
  });

  it.each([
    'https://example.com/hook',
    'application/json',
    'no-cache',
    'Bearer abc123',
    '2024-01-01',
    '+33612345678',
    '42',
    'true',
    'metadata',
    'data_id',
    'mydata',
    'stdout',
    'iframe',
    'localhost:8080',
    '',
  ])('%j is not', (value) => {
    expect(hasJsonnetOnlySyntax(value)).toBe(false);
  });
});
