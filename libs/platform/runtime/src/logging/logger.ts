import { LoggerService } from '@nestjs/common';
import { LogFormat, LogLevel } from '../config/herald-config';

export type LogFields = Record<string, unknown>;

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const NEST_CHATTER = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestMicroservice']);
const SECRET_FIELD = /secret|password|passwd|token|authorization|api_?key|credential|cookie|signature/i;

export interface LogSink {
  write(line: string): void;
}

/**
 * The format of a process's logs: the one set (HERALD_LOG_FORMAT), else pretty for a
 * person at a terminal and JSON for whatever collects the output (a pipe, a file, a
 * container runtime).
 */
export function chooseLogFormat(setting: LogFormat | undefined, stdoutIsTty: boolean): LogFormat {
  return setting ?? (stdoutIsTty ? 'pretty' : 'json');
}

/** Fields shown right after the message in the pretty format, for following a run. */
const LEADING_FIELDS = ['run_id', 'message_id'];
const ENTRY_FIELDS = new Set(['time', 'level', 'service', 'msg', 'err', 'stack']);

/**
 * One entry for a person: `time level service: message run_id=.. message_id=.. key=value`
 * on one line (UTC time of day), an error's type and message in the line and its stack
 * on the lines after it, indented. Values are the JSON entry's, already redacted.
 */
export function formatPretty(entry: LogFields): string {
  const time = typeof entry.time === 'string' ? entry.time.slice(11) : '';
  const level = String(entry.level ?? '').toUpperCase().padEnd(5);
  const keys = Object.keys(entry).filter((key) => !ENTRY_FIELDS.has(key));
  const ordered = [...LEADING_FIELDS.filter((key) => keys.includes(key)), ...keys.filter((key) => !LEADING_FIELDS.includes(key))];
  const fields = ordered.filter((key) => entry[key] !== undefined).map((key) => `${key}=${prettyValue(entry[key])}`);
  const err = entry.err as { type?: string; message?: string; code?: unknown; stack?: string } | undefined;
  if (err) fields.push(`err=${prettyValue(`${err.type ?? 'Error'}: ${err.message ?? ''}${err.code !== undefined ? ` (${String(err.code)})` : ''}`)}`);
  const line = [time, level, `${String(entry.service)}:`, String(entry.msg ?? ''), ...fields].filter(Boolean).join(' ');
  const stack = err?.stack ?? (typeof entry.stack === 'string' ? entry.stack : undefined);
  const trace = stack ? stack.split('\n').slice(1).map((frame) => `    ${frame.trim()}`) : [];
  return [line, ...trace].join('\n');
}

function prettyValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return safeJson(value);
}

/**
 * Structured logs, one entry a line: time, level, service, msg, then fields
 * (run_id, message_id, workspace, ...), as JSON or, for a person, pretty (`formatPretty`).
 * Fields whose names look secret are redacted here, so a careless call site cannot
 * leak a credential. Also serves as Nest's logger.
 */
export class HeraldLogger implements LoggerService {
  constructor(
    private readonly service: string,
    private readonly level: LogLevel = 'info',
    private readonly sink: LogSink = process.stdout,
    private readonly bound: LogFields = {},
    // Before the configuration is read (a configuration error is itself logged): by the terminal alone.
    private readonly format: LogFormat = sink === process.stdout ? chooseLogFormat(undefined, process.stdout.isTTY === true) : 'json',
  ) {}

  child(fields: LogFields): HeraldLogger {
    return new HeraldLogger(this.service, this.level, this.sink, { ...this.bound, ...fields }, this.format);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.emit('debug', message, rest);
  }
  info(message: unknown, fields?: LogFields): void {
    this.emit('info', message, fields ? [fields] : []);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.emit('warn', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.emit('error', message, rest);
  }
  /** Nest's `log` is our info, except its start-up chatter (module and route listings). */
  log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    this.emit(typeof context === 'string' && NEST_CHATTER.has(context) ? 'debug' : 'info', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.emit('debug', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.emit('error', message, rest);
  }

  write(level: LogLevel, message: string, fields?: LogFields): void {
    this.emit(level, message, fields ? [fields] : []);
  }

  private emit(level: LogLevel, message: unknown, rest: unknown[]): void {
    if (LEVEL_RANK[level] < LEVEL_RANK[this.level]) return;
    const entry: LogFields = { time: new Date().toISOString(), level, service: this.service, ...this.bound };
    if (message instanceof Error) {
      entry.msg = message.message;
      entry.err = serializeError(message);
    } else {
      entry.msg = typeof message === 'string' ? message : safeJson(message);
    }
    for (const extra of rest) {
      if (extra === undefined) continue;
      if (extra instanceof Error) entry.err = serializeError(extra);
      else if (typeof extra === 'string') {
        // Nest passes (message, context) or (message, stack, context).
        if (extra.includes('\n    at ')) entry.stack = extra;
        else entry.context = extra;
      } else if (typeof extra === 'object' && extra !== null) Object.assign(entry, extra);
    }
    const redacted = redact(entry) as LogFields;
    this.sink.write(`${this.format === 'pretty' ? formatPretty(redacted) : safeJson(redacted)}\n`);
  }
}

function serializeError(error: Error): LogFields {
  const withCode = error as Error & { code?: unknown };
  return { type: error.name, message: error.message, code: withCode.code, stack: error.stack };
}

function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: LogFields = {};
  for (const [key, v] of Object.entries(value as LogFields)) {
    out[key] = SECRET_FIELD.test(key) && v !== undefined && v !== null ? '[redacted]' : redact(v, depth + 1);
  }
  return out;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  } catch {
    return String(value);
  }
}
