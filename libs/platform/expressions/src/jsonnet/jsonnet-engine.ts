import { join } from 'node:path';
import { SyncWorker, errorMessage } from '../sandbox/sync-worker';
import { hasJsonnetOnlySyntax } from './template-value';

/**
 * Jsonnet behind a port: webhook and fetch nodes build their url, headers, query and
 * body with Jsonnet scripts that see the run's payload as `data` (decisions.md,
 * "Workflow nodes": `data["$recipient"]`, `data["$actor"]`, `data["$tenant"]`,
 * `data["$batched_events"]`... beside the trigger's own fields).
 *
 * The implementation is jrsonnet (a complete Jsonnet implementation in Rust) compiled to
 * WebAssembly, the `@arakoodev/jsonnet` package, run in a worker thread so that every
 * evaluation is bounded in time. WebAssembly has no file system here: `import`,
 * `importstr` and `importbin` fail, so scripts cannot read server files.
 */
export interface JsonnetEngine {
  /** Parses a script without running it; undefined when it is valid. */
  check(source: string): undefined | JsonnetSyntaxError;
  /** Runs a script with `data` bound to the payload. Never throws; bounded in time. */
  evaluate(source: string, data: unknown): JsonnetResult;
  /**
   * A url, header or query value: Jsonnet when it is written as Jsonnet, otherwise the
   * literal as written. The rule is in template-value.ts.
   */
  evaluateTemplateValue(value: string, data: unknown): JsonnetTemplateResult;
  /** Stops the engine's worker. */
  close(): Promise<void>;
}

export interface JsonnetSyntaxError {
  readonly kind: 'jsonnet-syntax-error';
  /** jrsonnet's words, positions given as line:column of the script. */
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

export type JsonnetErrorKind = 'syntax' | 'runtime' | 'timeout' | 'output-too-large' | 'invalid-arguments' | 'engine';

export interface JsonnetEvaluationError {
  readonly kind: JsonnetErrorKind;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

export type JsonnetResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: JsonnetEvaluationError };

export type JsonnetTemplateResult =
  | { readonly ok: true; readonly value: unknown; /** true when the value was used as written */ readonly literal: boolean }
  | { readonly ok: false; readonly error: JsonnetEvaluationError };

export interface JsonnetEngineOptions {
  /** Longest a single check or evaluation may run. Default 1000 ms. */
  readonly timeoutMs?: number;
  /** Largest output (JSON text) of one evaluation. Default 1 MiB. */
  readonly maxOutputBytes?: number;
  /** The worker is replaced once jrsonnet's WebAssembly memory is larger than this. Default 256 MiB. */
  readonly maxWasmBytes?: number;
  /** V8 heap cap of the worker thread. Default 256 MiB. */
  readonly maxHeapMb?: number;
  /** Longest the worker may take to start. Default 30 s. */
  readonly startupTimeoutMs?: number;
}

export function isJsonnetSyntaxError(value: undefined | JsonnetSyntaxError): value is JsonnetSyntaxError {
  return value?.kind === 'jsonnet-syntax-error';
}

/**
 * Parse-only check: the script becomes the body of a function that is never called
 * (jrsonnet reports the missing argument before it would run the body). `data` is the
 * parameter, so the script sees the same names as when it runs.
 */
const CHECK_PREFIX = 'function(data)\n';
const NOT_CALLED = /^function argument is not passed: data\b/;

/** What an evaluation runs: `data` is the payload, parsed from the external variable. */
const EVALUATION_PREFIX = 'local data = std.parseJson(std.extVar("__herald_data"));\n';

/** Both prefixes are one line of their own: the script's lines are reported one lower. */
const PREFIX_LINES = 1;

const MAX_MESSAGE_LINES = 12;

interface JsonnetWorkerReply {
  readonly output: string;
  readonly wasmBytes: number;
}

export function createJsonnetEngine(options: JsonnetEngineOptions = {}): JsonnetEngine {
  return new WasmJsonnetEngine(options);
}

class WasmJsonnetEngine implements JsonnetEngine {
  private readonly timeoutMs: number;
  private readonly maxOutputBytes: number;
  private readonly maxWasmBytes: number;
  private readonly sandbox: SyncWorker;

  constructor(options: JsonnetEngineOptions) {
    this.timeoutMs = options.timeoutMs ?? 1000;
    this.maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024;
    this.maxWasmBytes = options.maxWasmBytes ?? 256 * 1024 * 1024;
    this.sandbox = new SyncWorker({
      script: join(__dirname, 'jsonnet-worker.js'),
      workerData: { jsonnetPath: require.resolve('@arakoodev/jsonnet') },
      startupTimeoutMs: options.startupTimeoutMs ?? 30_000,
      maxHeapMb: options.maxHeapMb ?? 256,
    });
  }

  /** Workers started so far; a timeout, a crash or the memory limit replaces the worker. */
  get workersStarted(): number {
    return this.sandbox.started;
  }

  check(source: string): undefined | JsonnetSyntaxError {
    try {
      if (typeof source !== 'string') return { kind: 'jsonnet-syntax-error', message: 'the script is not a string' };
      const run = this.run(CHECK_PREFIX + source, 'null');
      if (!run.ok) {
        return { kind: 'jsonnet-syntax-error', message: `the script could not be checked: ${run.error.message}` };
      }
      if (NOT_CALLED.test(run.output)) return undefined;
      const { message, line, column } = describeFailure(run.output, source);
      return { kind: 'jsonnet-syntax-error', message, ...position(line, column) };
    } catch (error) {
      return { kind: 'jsonnet-syntax-error', message: `the script could not be checked: ${errorMessage(error)}` };
    }
  }

  evaluate(source: string, data: unknown): JsonnetResult {
    try {
      if (typeof source !== 'string') return failure('invalid-arguments', 'the script is not a string');
      const json = toJson(data);
      if (json === undefined) return failure('invalid-arguments', 'data is not a JSON value');
      const run = this.run(EVALUATION_PREFIX + source, json);
      if (!run.ok) return run;
      if (run.output.length > this.maxOutputBytes) {
        return failure('output-too-large', `the output is larger than ${this.maxOutputBytes} bytes`);
      }
      const value = parseManifest(run.output);
      if (value.parsed) return { ok: true, value: value.value };
      const { message, line, column } = describeFailure(run.output, source);
      return { ok: false, error: { kind: /^syntax error/.test(message) ? 'syntax' : 'runtime', message, ...position(line, column) } };
    } catch (error) {
      return failure('engine', errorMessage(error));
    }
  }

  evaluateTemplateValue(value: string, data: unknown): JsonnetTemplateResult {
    if (typeof value !== 'string') return failure('invalid-arguments', 'the value is not a string');
    if (!hasJsonnetOnlySyntax(value) || this.check(value) !== undefined) {
      return { ok: true, value, literal: true };
    }
    const result = this.evaluate(value, data);
    return result.ok ? { ok: true, value: result.value, literal: false } : result;
  }

  close(): Promise<void> {
    return this.sandbox.close();
  }

  private run(program: string, data: string): { ok: true; output: string } | { ok: false; error: JsonnetEvaluationError } {
    const outcome = this.sandbox.call<JsonnetWorkerReply>({ program, data }, this.timeoutMs);
    if (outcome.kind === 'timeout') return failure('timeout', `the script ran longer than ${outcome.afterMs} ms`);
    if (outcome.kind === 'crashed') return failure('runtime', `the script exhausted the engine (${outcome.message})`);
    if (outcome.kind === 'failed') return failure('engine', outcome.message);
    if (outcome.value.wasmBytes > this.maxWasmBytes) this.sandbox.recycle();
    return { ok: true, output: outcome.value.output };
  }
}

function failure(kind: JsonnetErrorKind, message: string): { ok: false; error: JsonnetEvaluationError } {
  return { ok: false, error: { kind, message } };
}

function position(line: number | undefined, column: number | undefined): { line?: number; column?: number } {
  return line === undefined ? {} : column === undefined ? { line } : { line, column };
}

function toJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value === undefined ? null : value);
  } catch {
    return undefined;
  }
}

/**
 * jrsonnet answers with the manifested JSON, or with an error trace ("runtime error:
 * ...", "syntax error: ...", "no such field: ..." and its stack): text that is never
 * JSON. So an answer that parses as JSON is the value.
 */
function parseManifest(output: string): { parsed: true; value: unknown } | { parsed: false } {
  try {
    return { parsed: true, value: JSON.parse(output) as unknown };
  } catch {
    return { parsed: false };
  }
}

/** `snippet:L:C`, `snippet:L:C-C2` or `snippet:L:C-L2:C2` in jrsonnet's traces. */
const TRACE_POSITION = /snippet:(\d+):(\d+)(?:-(\d+)(?::(\d+))?)?/g;

/**
 * The trace in the script's own coordinates: positions move up by the prefix line (and
 * stay within the script), the file is called `script`, and long stacks are cut.
 */
function describeFailure(output: string, source: string): { message: string; line?: number; column?: number } {
  const lines = source.split('\n');
  const clamp = (line: number, column: number): [number, number] => {
    if (line < 1) return [1, 1];
    if (line > lines.length) return [lines.length, (lines[lines.length - 1]?.length ?? 0) + 1];
    return [line, column];
  };
  let first: [number, number] | undefined;
  const rewritten = output.replace(TRACE_POSITION, (_all, l1: string, c1: string, a: string | undefined, b: string | undefined) => {
    const [line, column] = clamp(Number(l1) - PREFIX_LINES, Number(c1));
    first ??= [line, column];
    let text = `script:${line}:${column}`;
    if (a !== undefined && b !== undefined) text += `-${clamp(Number(a) - PREFIX_LINES, Number(b)).join(':')}`;
    else if (a !== undefined) text += `-${a}`;
    return text;
  });
  const traceLines = rewritten.trim().split('\n');
  const cut = traceLines.length > MAX_MESSAGE_LINES ? [...traceLines.slice(0, MAX_MESSAGE_LINES), `    ... ${traceLines.length - MAX_MESSAGE_LINES} more`] : traceLines;
  return { message: cut.join('\n'), line: first?.[0], column: first?.[1] };
}
