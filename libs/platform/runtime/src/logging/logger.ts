import { LoggerService } from '@nestjs/common';
import { LogLevel } from '../config/herald-config';

export type LogFields = Record<string, unknown>;

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const NEST_CHATTER = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);
const SECRET_FIELD = /secret|password|passwd|token|authorization|api_?key|credential|cookie|signature/i;

export interface LogSink {
  write(line: string): void;
}

/**
 * Structured JSON logs, one object a line: time, level, service, msg, then fields
 * (run_id, message_id, workspace, ...). Fields whose names look secret are
 * redacted here, so a careless call site cannot leak a credential.
 * Also serves as Nest's logger.
 */
export class HeraldLogger implements LoggerService {
  constructor(
    private readonly service: string,
    private readonly level: LogLevel = 'info',
    private readonly sink: LogSink = process.stdout,
    private readonly bound: LogFields = {},
  ) {}

  child(fields: LogFields): HeraldLogger {
    return new HeraldLogger(this.service, this.level, this.sink, { ...this.bound, ...fields });
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
    this.sink.write(`${safeJson(redact(entry))}\n`);
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
