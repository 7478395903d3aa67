import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LruCache } from '../lru-cache';
import { SyncWorker, errorMessage } from '../sandbox/sync-worker';

/**
 * jq behind a port. Herald evaluates workspace-written jq filters (delay durations,
 * batch keys, conditions over `$recipient`, `$actor`, `$tenant`); callers depend on
 * this interface only, so the implementation can change when measurements say so.
 *
 * The implementation is jq itself (jq 1.8.2 compiled to WebAssembly, the `jq-wasm`
 * package), checked against Debian's `/usr/bin/jq` 1.6 by the differential corpus in
 * jq-engine.int.spec.ts. Why this one and not the others: README.md of this library.
 */
export interface JqEngine {
  /** Checks a filter; the compiled form is cached (bounded LRU), so compiling again is cheap. */
  compile(filter: string): CompiledJq | JqSyntaxError;
  /** Stops the engine's worker. */
  close(): Promise<void>;
}

export interface CompiledJq {
  readonly kind: 'jq-compiled';
  readonly filter: string;
  /**
   * All outputs of the filter for this input, or an error. `variables` are bound as
   * jq `$name` variables; the declared names (JqEngineOptions.variables) are always
   * bound, to null when not given. Never throws; bounded in time and output size.
   */
  evaluate(input: unknown, variables?: Readonly<Record<string, unknown>>): JqResult;
}

export interface JqSyntaxError {
  readonly kind: 'jq-syntax-error';
  readonly filter: string;
  /** jq's own words, with the position in the filter, e.g. "syntax error, unexpected end of file at line 1, column 5". */
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

export type JqErrorKind =
  /** jq raised an error (`error(...)`, a type error, `halt_error`). */
  | 'runtime'
  /** The evaluation ran past JqEngineOptions.timeoutMs. */
  | 'timeout'
  | 'too-many-outputs'
  | 'output-too-large'
  /** A variable name that is not a jq identifier, or an input or variable that is not JSON. */
  | 'invalid-arguments'
  /** The engine itself failed (it could not start, or jq misbehaved). */
  | 'engine';

export interface JqEvaluationError {
  readonly kind: JqErrorKind;
  readonly message: string;
}

export type JqResult =
  | { readonly ok: true; readonly outputs: readonly unknown[] }
  | { readonly ok: false; readonly error: JqEvaluationError };

export interface JqEngineOptions {
  /** Variable names every filter may use; Herald binds `$recipient`, `$actor` and `$tenant`. */
  readonly variables?: readonly string[];
  /** Compiled filters kept (LRU). Default 1000. */
  readonly cacheSize?: number;
  /** Longest a single compile or evaluation may run. Default 1000 ms. */
  readonly timeoutMs?: number;
  /** Most outputs one evaluation may produce. Default 1000. */
  readonly maxOutputs?: number;
  /** Largest total output (compact JSON text) of one evaluation. Default 1 MiB. */
  readonly maxOutputBytes?: number;
  /** V8 heap cap of the worker thread. Default 256 MiB. */
  readonly maxHeapMb?: number;
  /** Longest the worker may take to start. Default 30 s. */
  readonly startupTimeoutMs?: number;
}

export const HERALD_JQ_VARIABLES: readonly string[] = ['recipient', 'actor', 'tenant'];

export function isJqSyntaxError(value: CompiledJq | JqSyntaxError): value is JqSyntaxError {
  return value.kind === 'jq-syntax-error';
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Compile check: `empty | FILTER` parses and binds the whole filter (so syntax errors,
 * unknown functions and unknown `$variables` are reported) without running it. Module
 * directives (`import`, `include`) cannot follow a pipe, so they are refused here.
 * The prefix sits on the filter's first line: jq's line numbers stay right, and the
 * columns of line 1 are shifted back by its length.
 */
const CHECK_PREFIX = 'empty | ';

/**
 * What an evaluation runs. `env` and `$ENV` are shadowed by empty objects: jq's own
 * `env` would show the environment of the process running it (jq-wasm shows a stand-in
 * environment; a native jq would show the server's), and workspaces must never read
 * server secrets. `limit` stops generators such as `repeat(1)` after one output more
 * than allowed. The two newlines end a trailing comment even when it ends with a
 * backslash (a continued comment in jq 1.7+).
 */
function evaluationProgram(filter: string, maxOutputs: number): string {
  return `def env: {}; {} as $ENV | limit(${maxOutputs + 1}; (${filter}\n\n))`;
}

interface JqWorkerRequest {
  readonly input: string;
  readonly program: string;
  readonly flags: readonly string[];
}

interface JqWorkerReply {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The project's TypeScript libs hold no WebAssembly types (they come with lib.dom): the one call needed. */
const WasmModule = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object } }).WebAssembly.Module;

/** jq.wasm compiled once per process; each worker instantiates it (a WebAssembly.Module crosses to workers). */
let jqWasmModule: object | undefined;

function loadJqWasmModule(): object {
  jqWasmModule ??= new WasmModule(readFileSync(require.resolve('jq-wasm/jq.wasm')));
  return jqWasmModule;
}

export function createJqEngine(options: JqEngineOptions = {}): JqEngine {
  return new WasmJqEngine(options);
}

class WasmJqEngine implements JqEngine {
  private readonly variables: readonly string[];
  private readonly cache: LruCache<string, CompiledJq | JqSyntaxError>;
  private readonly timeoutMs: number;
  private readonly maxOutputs: number;
  private readonly maxOutputBytes: number;
  private readonly sandbox: SyncWorker;

  constructor(options: JqEngineOptions) {
    this.variables = options.variables ?? HERALD_JQ_VARIABLES;
    for (const name of this.variables) {
      if (!IDENTIFIER.test(name)) throw new RangeError(`not a jq variable name: ${name}`);
    }
    this.cache = new LruCache(options.cacheSize ?? 1000);
    this.timeoutMs = options.timeoutMs ?? 1000;
    this.maxOutputs = options.maxOutputs ?? 1000;
    this.maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024;
    this.sandbox = new SyncWorker({
      script: join(__dirname, 'jq-worker.js'),
      workerData: { jqWasmPath: require.resolve('jq-wasm'), wasmModule: loadJqWasmModule() },
      startupTimeoutMs: options.startupTimeoutMs ?? 30_000,
      maxHeapMb: options.maxHeapMb ?? 256,
    });
  }

  /** Workers started so far; a timeout or a crash replaces the worker. */
  get workersStarted(): number {
    return this.sandbox.started;
  }

  compile(filter: string): CompiledJq | JqSyntaxError {
    try {
      return this.compileOrThrow(filter);
    } catch (error) {
      return { kind: 'jq-syntax-error', filter: String(filter), message: `the filter could not be checked: ${errorMessage(error)}` };
    }
  }

  private compileOrThrow(filter: string): CompiledJq | JqSyntaxError {
    const cached = this.cache.get(filter);
    if (cached) return cached;
    if (typeof filter !== 'string' || filter.trim() === '') {
      return { kind: 'jq-syntax-error', filter: String(filter), message: 'the filter is empty' };
    }
    const outcome = this.sandbox.call<JqWorkerReply>(
      { input: 'null', program: CHECK_PREFIX + filter, flags: ['-n', ...this.variables.flatMap((name) => ['--argjson', name, 'null'])] },
      this.timeoutMs,
    );
    if (outcome.kind !== 'done') {
      // Most likely not the filter's fault: not cached, the next compile tries again.
      const reason = outcome.kind === 'timeout' ? `timed out after ${outcome.afterMs} ms` : outcome.message;
      return { kind: 'jq-syntax-error', filter, message: `the filter could not be checked: ${reason}` };
    }
    const compiled: CompiledJq | JqSyntaxError =
      outcome.value.exitCode === 0 ? this.compiled(filter) : syntaxError(filter, outcome.value.stderr);
    this.cache.set(filter, compiled);
    return compiled;
  }

  close(): Promise<void> {
    return this.sandbox.close();
  }

  private compiled(filter: string): CompiledJq {
    const program = evaluationProgram(filter, this.maxOutputs);
    const path = plainPathOf(filter);
    return {
      kind: 'jq-compiled',
      filter,
      evaluate: (input, variables = {}) => {
        try {
          return (path && this.evaluatePlainPath(path, input, variables)) || this.evaluate(program, input, variables);
        } catch (error) {
          return failure('engine', errorMessage(error));
        }
      },
    };
  }

  /**
   * A plain path on this thread (see plainPathOf), with jq's answer: the value of each
   * key of an object, null for a missing key or on null. Undefined (so jq runs it) when
   * jq would fail (indexing anything else) or the arguments are not JSON, so errors keep
   * jq's own words. The value is read from the JSON form jq would be given.
   */
  private evaluatePlainPath(path: PlainPath, input: unknown, variables: Readonly<Record<string, unknown>>): JqResult | undefined {
    const names = new Set([...this.variables, ...Object.keys(variables)]);
    if (path.variable !== undefined && !names.has(path.variable)) return undefined;
    for (const name of names) {
      if (!IDENTIFIER.test(name) || toJson(variables[name]) === undefined) return undefined;
    }
    const json = toJson(path.variable === undefined ? input : variables[path.variable]);
    if (json === undefined) return undefined;
    let value = JSON.parse(json) as unknown;
    for (const key of path.keys) {
      if (value === null) continue;
      if (typeof value !== 'object' || Array.isArray(value)) return undefined;
      value = Object.prototype.hasOwnProperty.call(value, key) ? (value as Record<string, unknown>)[key] : null;
    }
    if ((toJson(value) ?? '').length > this.maxOutputBytes) return failure('output-too-large', `the output is larger than ${this.maxOutputBytes} bytes`);
    return { ok: true, outputs: [value] };
  }

  private evaluate(program: string, input: unknown, variables: Readonly<Record<string, unknown>>): JqResult {
    const flags = ['-c'];
    const names = new Set([...this.variables, ...Object.keys(variables)]);
    for (const name of names) {
      if (!IDENTIFIER.test(name)) return failure('invalid-arguments', `not a jq variable name: ${JSON.stringify(name)}`);
      const json = toJson(variables[name]);
      if (json === undefined) return failure('invalid-arguments', `$${name} is not a JSON value`);
      flags.push('--argjson', name, json);
    }
    const inputJson = toJson(input);
    if (inputJson === undefined) return failure('invalid-arguments', 'the input is not a JSON value');

    const outcome = this.sandbox.call<JqWorkerReply>({ input: inputJson, program, flags } satisfies JqWorkerRequest, this.timeoutMs);
    if (outcome.kind === 'timeout') return failure('timeout', `the filter ran longer than ${outcome.afterMs} ms`);
    if (outcome.kind === 'crashed') return failure('runtime', `the filter exhausted the engine (${outcome.message})`);
    if (outcome.kind === 'failed') return failure('engine', outcome.message);
    const { exitCode, stdout, stderr } = outcome.value;
    if (exitCode !== 0) {
      return exitCode === 3 ? failure('engine', compileMessages(stderr).join('; ')) : failure('runtime', runtimeMessage(stderr, exitCode));
    }
    if (stdout.length > this.maxOutputBytes) {
      return failure('output-too-large', `the output is larger than ${this.maxOutputBytes} bytes`);
    }
    const outputs = stdout === '' ? [] : stdout.replace(/\n$/, '').split('\n').map((line) => JSON.parse(line) as unknown);
    if (outputs.length > this.maxOutputs) return failure('too-many-outputs', `the filter produced more than ${this.maxOutputs} outputs`);
    return { ok: true, outputs };
  }
}

/** `.`, `.a.b`, `$name` or `$name.a.b`: what most of Herald's filters are (batch and digest keys, delay fields). */
interface PlainPath {
  readonly variable?: string;
  readonly keys: readonly string[];
}

const PLAIN_PATH = /^\s*(?:\$([A-Za-z_][A-Za-z0-9_]*))?((?:\.[A-Za-z_][A-Za-z0-9_]*)*|\.)\s*$/;

/**
 * The path a filter is, if it is a plain one. Such a filter is evaluated on the
 * caller's thread: in the worker every evaluation is a whole run of jq's command line
 * (the program parsed and compiled, the input serialized and parsed), about 2 ms of a
 * blocked event loop, which made a batch key cost several times a plain run (issue 15).
 * `$ENV` is shadowed in the evaluation program, and `$__loc__` is not a variable: jq
 * keeps those.
 */
function plainPathOf(filter: string): PlainPath | undefined {
  const match = PLAIN_PATH.exec(filter);
  if (!match || (match[1] === undefined && match[2] === '')) return undefined;
  const variable = match[1];
  if (variable === 'ENV' || variable === '__loc__') return undefined;
  const keys = match[2] === '.' ? [] : match[2].split('.').slice(1);
  return variable === undefined ? { keys } : { variable, keys };
}

function failure(kind: JqErrorKind, message: string): JqResult {
  return { ok: false, error: { kind, message } };
}

/** Compact JSON text of a value, or undefined when it has none (a function, a cycle, a BigInt). */
function toJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value === undefined ? null : value);
  } catch {
    return undefined;
  }
}

const COMPILE_ERROR = /^jq: error: (.*?)(?: at <top-level>, line (\d+)(?:, column (\d+))?:?)?$/;

interface CompileMessage {
  readonly text: string;
  readonly line?: number;
  readonly column?: number;
}

function parseCompileErrors(stderr: string): CompileMessage[] {
  const messages: CompileMessage[] = [];
  for (const raw of stderr.split('\n')) {
    const match = COMPILE_ERROR.exec(raw);
    if (!match) continue;
    const line = match[2] === undefined ? undefined : Number(match[2]);
    let column = match[3] === undefined ? undefined : Number(match[3]);
    if (line === 1 && column !== undefined) column = Math.max(1, column - CHECK_PREFIX.length);
    const where = line === undefined ? '' : column === undefined ? ` at line ${line}` : ` at line ${line}, column ${column}`;
    messages.push({ text: `${match[1]}${where}`, line, column });
  }
  return messages;
}

function compileMessages(stderr: string): string[] {
  const parsed = parseCompileErrors(stderr);
  return parsed.length > 0 ? parsed.map((m) => m.text) : [stderr.trim() || 'the filter does not compile'];
}

function syntaxError(filter: string, stderr: string): JqSyntaxError {
  const [first] = parseCompileErrors(stderr);
  return {
    kind: 'jq-syntax-error',
    filter,
    message: compileMessages(stderr).join('; '),
    ...(first?.line === undefined ? {} : { line: first.line }),
    ...(first?.column === undefined ? {} : { column: first.column }),
  };
}

function runtimeMessage(stderr: string, exitCode: number): string {
  const text = stderr.trim();
  if (text === '') return `jq stopped with exit status ${exitCode}`;
  // "jq: error (at /dev/stdin:0): Cannot index string with "x"" -> the part after the location
  return text.replace(/^jq: error \(at [^)]*\)(?: \(not a string\))?: /, '');
}
