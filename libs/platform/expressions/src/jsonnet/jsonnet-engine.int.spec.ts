import { JsonnetEngine, createJsonnetEngine } from './jsonnet-engine';

/** A run payload as webhook and fetch nodes see it (decisions.md, "Workflow nodes"). */
const DATA = {
  order_id: 'ord_42',
  name: 'Ada',
  count: 3,
  total: 129.5,
  currency: 'EUR',
  flag: false,
  tags: ['vip', 'beta'],
  items: [
    { sku: 'A1', qty: 2, price: 10 },
    { sku: 'B2', qty: 1, price: 109.5 },
  ],
  city: 'Zürich',
  $recipient: { distinct_id: 'r-1', email: 'grace@example.com' },
  $actor: { distinct_id: 'a-9', name: 'Linus' },
  $tenant: { tenant_id: 'acme' },
  $batched_events: [{ type: 'comment' }, { type: 'like' }],
  $batched_events_count: 2,
};

const CASES: ReadonlyArray<readonly [string, string, unknown]> = [
  [
    'an object of payload fields',
    '{ url: "https://api.example.com/users/" + data["$recipient"].distinct_id, tenant: data["$tenant"].tenant_id, actor: data["$actor"].name }',
    { url: 'https://api.example.com/users/r-1', tenant: 'acme', actor: 'Linus' },
  ],
  ['the % operator', '"Hello %s, %d new %s" % [data.name, data.count, if data.count == 1 then "message" else "messages"]', 'Hello Ada, 3 new messages'],
  ['std.format', 'std.format("%s %.2f %05d %x", [data.currency, data.total, 42, 255])', 'EUR 129.50 00042 ff'],
  ['std.join', 'std.join(", ", data.tags)', 'vip, beta'],
  ['std.length', '[std.length(data.tags), std.length(data.name), std.length(data.items[0]), std.length(data.city)]', [2, 3, 3, 6]],
  ['std.toString', 'std.toString(data.count) + "/" + std.toString(data.total) + "/" + std.toString(data.tags)', '3/129.5/["vip", "beta"]'],
  ['conditionals', '{ state: if data.flag then "on" else "off", big: data.total > 100 }', { state: 'off', big: true }],
  ['locals and functions', 'local greet(who, punct="!") = "Hi " + who + punct; local who = data["$actor"].name; greet(who)', 'Hi Linus!'],
  ['an array comprehension', '[item.sku for item in data.items if item.qty > 1]', ['A1']],
  ['an object comprehension', '{ [item.sku]: item.qty * item.price for item in data.items }', { A1: 20, B2: 109.5 }],
  ['hidden fields and self', '{ base:: "https://hooks.example.com", url: self.base + "/orders/" + data.order_id }', { url: 'https://hooks.example.com/orders/ord_42' }],
  ['std.map, std.filter and std.foldl', 'std.foldl(function(sum, x) sum + x, std.map(function(i) i.qty * i.price, std.filter(function(i) i.qty > 0, data.items)), 0)', 129.5],
  ['the batched events', '{ n: data["$batched_events_count"], types: std.map(function(e) e.type, data["$batched_events"]) }', { n: 2, types: ['comment', 'like'] }],
  ['string functions', '[std.asciiUpper(data.name), std.split("a,b", ","), std.strReplace(data.order_id, "_", "-"), std.startsWith(data.order_id, "ord"), std.substr(data.order_id, 4, 2)]', ['ADA', ['a', 'b'], 'ord-42', true, '42']],
  ['std.base64 and std.md5', '[std.base64("user:pass"), std.md5("abc")]', ['dXNlcjpwYXNz', '900150983cd24fb0d6963f7d28e17f72']],
  ['std.objectHas and defaults', '{ has: std.objectHas(data, "missing"), value: if std.objectHas(data, "missing") then data.missing else "fallback" }', { has: false, value: 'fallback' }],
  ['a JSON body made with std.manifestJsonEx', 'std.manifestJsonEx({ id: data.order_id, n: [1, 2] }, "  ")', '{\n  "id": "ord_42",\n  "n": [\n    1,\n    2\n  ]\n}'],
  ['unicode', 'data.city + " ✓"', 'Zürich ✓'],
  ['object inheritance', 'local base = { method: "POST", headers: { "Content-Type": "application/json" } }; base + { headers+: { "X-Order": data.order_id } }', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Order': 'ord_42' } }],
];

describe('jsonnet engine', () => {
  let engine: JsonnetEngine;

  beforeAll(() => {
    engine = createJsonnetEngine();
  });

  afterAll(() => engine.close());

  describe('evaluates real Jsonnet with the payload as `data`', () => {
    it('holds enough cases', () => {
      expect(CASES.length).toBeGreaterThanOrEqual(15);
    });

    it.each(CASES)('%s', (_name, source, expected) => {
      expect(engine.check(source)).toBeUndefined();
      expect(engine.evaluate(source, DATA)).toEqual({ ok: true, value: expected });
    });

    it('binds data to null when there is no payload', () => {
      expect(engine.evaluate('data == null', undefined)).toEqual({ ok: true, value: true });
    });
  });

  describe('errors', () => {
    it('returns an error statement as a clean runtime error with its position', () => {
      const result = engine.evaluate('local who = data.name;\n\nerror "cannot notify " + who', DATA);
      expect(result).toMatchObject({ ok: false, error: { kind: 'runtime', line: 3, column: 1 } });
      expect(!result.ok && result.error.message).toMatch(/^runtime error: cannot notify Ada/);
    });

    it.each([
      ['a missing field', 'data.missing', /no such field: missing/],
      ['a type error', '1 + {}', /./],
      ['a division by zero', '1 / 0', /divide by zero/],
      ['a failed assertion', 'assert data.count > 5 : "too few"; data.count', /too few/],
      ['an unknown variable', 'dat.name', /variable is not defined: dat/],
      ['a function as the result', 'function(x) x', /function/],
    ])('returns %s as a runtime error', (_name, source, message) => {
      const result = engine.evaluate(source, DATA);
      expect(result).toMatchObject({ ok: false, error: { kind: 'runtime' } });
      expect(!result.ok && result.error.message).toMatch(message);
    });

    it('reports syntax errors with line and column, in check and in evaluate', () => {
      const source = '{\n  url: "https://x/" + data.id,\n  headers: ,\n}';
      expect(engine.check(source)).toMatchObject({ kind: 'jsonnet-syntax-error', line: 3, column: 12, message: expect.stringMatching(/^syntax error/) });
      expect(engine.evaluate(source, DATA)).toMatchObject({ ok: false, error: { kind: 'syntax', line: 3, column: 12 } });
      expect(engine.check('"a" +')).toMatchObject({ line: 1, column: 6 });
      expect(engine.check('')).toMatchObject({ kind: 'jsonnet-syntax-error', line: 1, column: 1 });
      expect(engine.check('local x = 1;')).toMatchObject({ kind: 'jsonnet-syntax-error', line: 1 });
    });

    it('checks without running the script', () => {
      expect(engine.check('error "would fail when run"')).toBeUndefined();
      expect(engine.check('std.foldl(function(a, b) a + b, std.range(1, 100000000), 0)')).toBeUndefined();
    });

    it('reads no files: imports fail', () => {
      for (const source of ['importstr "/etc/hostname"', 'import "/etc/passwd"', 'importbin "/proc/self/environ"']) {
        const result = engine.evaluate(source, DATA);
        expect(result).toMatchObject({ ok: false, error: { kind: 'runtime' } });
        expect(JSON.stringify(result)).not.toMatch(/root:|PATH=/);
      }
    });

    it('shows no process environment', () => {
      process.env.HERALD_TEST_SECRET = 'do-not-leak';
      try {
        expect(engine.evaluate('std.extVar("HERALD_TEST_SECRET")', DATA)).toMatchObject({ ok: false, error: { kind: 'runtime' } });
      } finally {
        delete process.env.HERALD_TEST_SECRET;
      }
    });

    it('returns errors for arguments it cannot use', () => {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      expect(engine.evaluate('data', cyclic)).toMatchObject({ ok: false, error: { kind: 'invalid-arguments' } });
      expect(engine.evaluate(42 as unknown as string, DATA)).toMatchObject({ ok: false, error: { kind: 'invalid-arguments' } });
    });
  });

  describe('bounds', () => {
    let bounded: JsonnetEngine & { readonly workersStarted: number };

    beforeAll(() => {
      bounded = createJsonnetEngine({ timeoutMs: 300, maxOutputBytes: 10_000 }) as JsonnetEngine & { readonly workersStarted: number };
    });

    afterAll(() => bounded.close());

    it.each([
      ['a long fold', 'std.foldl(function(a, b) a + b, std.range(1, 100000000), 0)'],
      ['a tail-strict loop', 'local f(n) = if n == 0 then 0 else f(n - 1) tailstrict; f(1e12)'],
      ['deep recursion', 'local f(n) = if n == 0 then 0 else 1 + f(n - 1); f(1e7)'],
      ['a huge array', 'std.length(std.makeArray(1e9, function(i) i))'],
      ['an infinite object', 'local o = { next: o { n: 1 } }; std.length(std.manifestJson(o))'],
    ])('stops %s and goes on working', (_name, source) => {
      const started = performance.now();
      const result = bounded.evaluate(source, DATA);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(result).toMatchObject({ ok: false, error: { kind: expect.stringMatching(/^(timeout|runtime)$/) } });
      expect(bounded.evaluate('data.count + 1', DATA)).toEqual({ ok: true, value: 4 });
    });

    it('refuses outputs larger than the byte limit', () => {
      expect(bounded.evaluate('std.makeArray(5000, function(i) i)', DATA)).toMatchObject({ ok: false, error: { kind: 'output-too-large' } });
    });

    it('replaces its worker when jrsonnet memory passes the limit', async () => {
      const small = createJsonnetEngine({ maxWasmBytes: 1 }) as JsonnetEngine & { readonly workersStarted: number };
      try {
        for (let i = 0; i < 3; i += 1) expect(small.evaluate('data.count * 2', DATA)).toEqual({ ok: true, value: 6 });
        expect(small.workersStarted).toBeGreaterThanOrEqual(3);
      } finally {
        await small.close();
      }
    });
  });

  describe('template values (url, header and query values)', () => {
    it.each([
      ['https://example.com/hook'],
      ['https://example.com/hook?x=(1)&y={id}'],
      ['application/json'],
      ['text/plain; charset=utf-8'],
      ['Bearer sk_live_abc123'],
      ['no-cache'],
      ['gzip, deflate'],
      ['2024-01-01'],
      ['+33612345678'],
      ['1e3'],
      ['42'],
      ['true'],
      ['metadata-v2'],
      ['  spaced  '],
      [''],
      ['https://x/{{data.id}}'],
      ['if'],
    ])('uses the literal %j as written', (value) => {
      expect(engine.evaluateTemplateValue(value, DATA)).toEqual({ ok: true, value, literal: true });
    });

    it.each([
      ['"https://x/" + data.order_id', 'https://x/ord_42'],
      ['data["$recipient"].email', 'grace@example.com'],
      ['"Bearer " + std.base64("user:pass")', 'Bearer dXNlcjpwYXNz'],
      ['std.toString(data.count)', '3'],
      ["'data-center'", 'data-center'],
      ['"%s-%s" % [data["$tenant"].tenant_id, data.order_id]', 'acme-ord_42'],
      ['data.count', 3],
      ['|||\n  text block\n|||', 'text block\n'],
    ])('evaluates the Jsonnet %j', (value, expected) => {
      expect(engine.evaluateTemplateValue(value, DATA)).toEqual({ ok: true, value: expected, literal: false });
    });

    it('fails a value written as Jsonnet that fails when run', () => {
      expect(engine.evaluateTemplateValue('"https://x/" + data.missing', DATA)).toMatchObject({ ok: false, error: { kind: 'runtime' } });
      expect(engine.evaluateTemplateValue('data-center', DATA)).toMatchObject({ ok: false, error: { kind: 'runtime' } });
    });
  });
});
