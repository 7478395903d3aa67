import { spawnSync } from 'node:child_process';
import { CORPUS_INPUT, CORPUS_VARIABLES, JQ_CORPUS } from './jq-corpus';
import { CompiledJq, JqEngine, JqResult, JqSyntaxError, createJqEngine, isJqSyntaxError } from './jq-engine';

/**
 * The jq port against the real jq: every corpus filter is run by the port and by
 * Debian's /usr/bin/jq (1.6), spawned with --argjson for the variables and an empty
 * environment, and the two must agree: the same outputs, both a runtime error (with
 * the same message), or both a compile error.
 */
const ORACLE = process.env.HERALD_JQ_ORACLE ?? '/usr/bin/jq';
const oracleVersion = spawnSync(ORACLE, ['--version'], { encoding: 'utf8' });
const oracleRuns = !oracleVersion.error && oracleVersion.status === 0;
/**
 * CI sets HERALD_TEST_REQUIRE_JQ=1 (and installs Debian's jq): there a missing oracle
 * fails. A developer machine with only Node skips the differential corpus, saying so.
 */
const requireOracle = process.env.HERALD_TEST_REQUIRE_JQ === '1';
if (!oracleRuns && !requireOracle) {
  console.warn(`jq differential corpus skipped: ${ORACLE} does not run (install Debian's jq, or set HERALD_JQ_ORACLE)`);
}

type Outcome =
  | { readonly kind: 'outputs'; readonly outputs: unknown[] }
  | { readonly kind: 'runtime-error'; readonly message: string }
  | { readonly kind: 'compile-error' };

function oracle(filter: string, input: unknown, variables: Record<string, unknown>): Outcome {
  const args = ['-c', ...Object.entries(variables).flatMap(([name, value]) => ['--argjson', name, JSON.stringify(value)]), filter];
  const run = spawnSync(ORACLE, args, { input: JSON.stringify(input), env: {}, encoding: 'utf8', timeout: 10_000 });
  // jq stops at a compile error before it reads its input: writing the input then fails with EPIPE.
  if (run.error && (run.error as NodeJS.ErrnoException).code !== 'EPIPE') throw run.error;
  if (run.status === null) throw new Error(`${ORACLE} did not finish: ${String(run.signal)}`);
  if (run.status === 0) {
    return { kind: 'outputs', outputs: run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown) };
  }
  if (run.status === 3) return { kind: 'compile-error' };
  return { kind: 'runtime-error', message: run.stderr.trim().replace(/^jq: error \(at [^)]*\)(?: \(not a string\))?: /, '') };
}

function port(engine: JqEngine, filter: string, input: unknown, variables: Record<string, unknown>): Outcome {
  const compiled = engine.compile(filter);
  if (isJqSyntaxError(compiled)) return { kind: 'compile-error' };
  const result = compiled.evaluate(input, variables);
  if (result.ok) return { kind: 'outputs', outputs: [...result.outputs] };
  expect(result.error.kind).toBe('runtime');
  return { kind: 'runtime-error', message: result.error.message };
}

function compiled(engine: JqEngine, filter: string): CompiledJq {
  const result = engine.compile(filter);
  if (isJqSyntaxError(result)) throw new Error(`${filter}: ${result.message}`);
  return result;
}

function outputsOf(result: JqResult): readonly unknown[] {
  if (!result.ok) throw new Error(`${result.error.kind}: ${result.error.message}`);
  return result.outputs;
}

describe('jq engine', () => {
  let engine: JqEngine;

  beforeAll(() => {
    engine = createJqEngine();
  });

  afterAll(() => engine.close());

  (oracleRuns || requireOracle ? describe : describe.skip)(`differential corpus against ${ORACLE}`, () => {
    beforeAll(() => {
      if (!oracleRuns) {
        throw new Error(`the jq oracle ${ORACLE} does not run (install Debian's jq, or set HERALD_JQ_ORACLE): ${String(oracleVersion.error ?? oracleVersion.stderr)}`);
      }
    });

    it('holds enough filters', () => {
      expect(JQ_CORPUS.length).toBeGreaterThanOrEqual(40);
    });

    it.each(JQ_CORPUS.map((entry) => [entry.filter, entry]))('%s', (_name, entry) => {
      const input = entry.input ?? CORPUS_INPUT;
      const expected = oracle(entry.filter, input, CORPUS_VARIABLES);
      const actual = port(engine, entry.filter, input, CORPUS_VARIABLES);
      if (expected.kind === 'runtime-error' && actual.kind === 'runtime-error' && !entry.sameMessage) {
        return; // both failed; jq's own wording differs between versions (see CorpusCase.sameMessage)
      }
      expect(actual).toEqual(expected);
    });
  });

  describe('compiling', () => {
    it('caches compiled filters', () => {
      expect(engine.compile('.order.id')).toBe(engine.compile('.order.id'));
    });

    it('keeps a bounded number of compiled filters, least recently used out first', async () => {
      const small = createJqEngine({ cacheSize: 2 });
      try {
        const a = small.compile('.a');
        const b = small.compile('.b');
        expect(small.compile('.a')).toBe(a); // a hit: .a is now the most recent
        small.compile('.c'); // evicts .b, the least recently used
        expect(small.compile('.a')).toBe(a);
        expect(small.compile('.b')).not.toBe(b); // compiled again
      } finally {
        await small.close();
      }
    });

    it('reports a syntax error with its position in the filter', () => {
      const error = engine.compile('.user |\n  map(') as JqSyntaxError;
      expect(error.kind).toBe('jq-syntax-error');
      expect(error.message).toMatch(/syntax error/);
      expect(error.line).toBe(2);
      expect(error.column).toBeGreaterThan(0);

      const first = engine.compile('.a |') as JqSyntaxError;
      expect(first).toMatchObject({ kind: 'jq-syntax-error', line: 1, column: 4 });
    });

    it('reports unknown functions and variables', () => {
      expect(engine.compile('nope(1)')).toMatchObject({ kind: 'jq-syntax-error', message: expect.stringMatching(/nope\/1 is not defined/) });
      expect(engine.compile('$foo')).toMatchObject({ kind: 'jq-syntax-error', message: expect.stringMatching(/\$foo is not defined/) });
      expect(engine.compile('')).toMatchObject({ kind: 'jq-syntax-error' });
    });

    it('refuses modules: nothing is read from the file system', () => {
      for (const filter of ['import "a" as a; .', 'include "a"; .', 'import "data" as $d; $d']) {
        expect(engine.compile(filter)).toMatchObject({ kind: 'jq-syntax-error' });
      }
    });
  });

  describe('evaluating', () => {
    it('binds $recipient, $actor and $tenant, to null when not given', () => {
      const filter = compiled(engine, '[$recipient.name, $actor, $tenant.tenant_id]');
      expect(outputsOf(filter.evaluate({}, { recipient: { name: 'Grace' }, tenant: { tenant_id: 'acme' } }))).toEqual([['Grace', null, 'acme']]);
      expect(outputsOf(filter.evaluate({}))).toEqual([[null, null, null]]);
    });

    it('accepts any JSON input, a bare string included', () => {
      const filter = compiled(engine, '.');
      for (const input of ['text', 42, null, true, [1, { a: 'b' }], { 'unicode ✓': 'é' }]) {
        expect(outputsOf(filter.evaluate(input))).toEqual([input]);
      }
      expect(outputsOf(filter.evaluate(undefined))).toEqual([null]);
    });

    it('never shows the process environment', () => {
      process.env.HERALD_TEST_SECRET = 'do-not-leak';
      try {
        const filter = compiled(engine, '[env, $ENV, ($ENV | tostring), (env | keys)]');
        expect(outputsOf(filter.evaluate(null))).toEqual([[{}, {}, '{}', []]]);
        expect(outputsOf(compiled(engine, '$__loc__').evaluate(null))).toEqual([{ file: '<top-level>', line: 1 }]);
      } finally {
        delete process.env.HERALD_TEST_SECRET;
      }
    });

    it('returns errors instead of throwing', () => {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const filter = compiled(engine, '.');
      expect(filter.evaluate(cyclic)).toMatchObject({ ok: false, error: { kind: 'invalid-arguments' } });
      expect(filter.evaluate(1n)).toMatchObject({ ok: false, error: { kind: 'invalid-arguments' } });
      expect(filter.evaluate(null, { 'not-a-name': 1 })).toMatchObject({ ok: false, error: { kind: 'invalid-arguments' } });
      expect(compiled(engine, '"bye" | halt_error').evaluate(null)).toEqual({ ok: false, error: { kind: 'runtime', message: 'bye' } });
      expect(compiled(engine, 'halt').evaluate(null)).toEqual({ ok: true, outputs: [] });
      expect(compiled(engine, 'input').evaluate(null)).toMatchObject({ ok: false, error: { kind: 'runtime' } });
    });
  });

  describe('bounds', () => {
    let bounded: JqEngine;

    beforeAll(() => {
      bounded = createJqEngine({ timeoutMs: 300, maxOutputs: 50, maxOutputBytes: 10_000 });
    });

    afterAll(() => bounded.close());

    it.each([['def f: f; f'], ['last(range(1e12))'], ['[range(1e9)] | length'], ['def f: [f]; f']])(
      'stops %s after the time limit, and goes on working',
      (filter) => {
        const started = performance.now();
        const result = compiled(bounded, filter).evaluate(null);
        const elapsed = performance.now() - started;
        expect(result).toMatchObject({ ok: false, error: { kind: expect.stringMatching(/^(timeout|engine|runtime)$/) } });
        expect(elapsed).toBeLessThan(2_000);
        expect(outputsOf(compiled(bounded, '.a + 1').evaluate({ a: 1 }))).toEqual([2]);
      },
    );

    it('stops generators after the output limit', () => {
      expect(compiled(bounded, 'repeat(1)').evaluate(null)).toMatchObject({ ok: false, error: { kind: 'too-many-outputs' } });
      expect(outputsOf(compiled(bounded, 'range(50)').evaluate(null))).toHaveLength(50);
      expect(compiled(bounded, 'range(51)').evaluate(null)).toMatchObject({ ok: false, error: { kind: 'too-many-outputs' } });
    });

    it('refuses outputs larger than the byte limit', () => {
      expect(compiled(bounded, '[range(5000)]').evaluate(null)).toMatchObject({ ok: false, error: { kind: 'output-too-large' } });
    });
  });
});
