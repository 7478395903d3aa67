/**
 * Whether retrying a failed handler or publish can help. Consumers and outbox relays
 * use it to tell a poison message (set it aside, go on) from an outage (retry without
 * a bound, lose nothing):
 *
 * - `transient`: the infrastructure failed, not the message (a database or broker that
 *   is unreachable or restarting, a dropped connection, a pool timeout, a serialization
 *   failure or deadlock). Retried for as long as it takes.
 * - `permanent`: the same input fails the same way every time (Postgres data exceptions
 *   such as a NUL byte in text, program limits, a message larger than the broker takes,
 *   unparseable JSON). Set aside at once.
 * - `unknown`: anything else (a bug, an unexpected answer). Retried a bounded number
 *   of times, then set aside.
 *
 * Errors are recognised by their fields (SQLSTATE `code`, Node's system error codes,
 * kafkajs's names and types), so this needs neither pg nor kafkajs. Wrapped errors
 * (TypeORM's `driverError`, `cause`, kafkajs's retry wrappers) are looked into; the
 * outermost error with a verdict decides.
 */
export type FailureKind = 'transient' | 'permanent' | 'unknown';

export interface FailureClassification {
  readonly kind: FailureKind;
  /** A short, stable description of why (a SQLSTATE, an error type), for logs and dead letters. */
  readonly because: string;
}

/** Thrown by both bus adapters, before anything is sent, for a message the broker would refuse. */
export class MessageTooLargeError extends Error {
  constructor(
    readonly topic: string,
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`message of about ${bytes} bytes for ${topic} is larger than the ${maxBytes} bytes a message may have`);
    this.name = 'MessageTooLargeError';
  }
}

/**
 * Thrown by the journaled in-process bus, before anything is stored, for a message its
 * journal cannot hold (a NUL character in the key or a header: Postgres text cannot
 * store it). Refused alone, so it cannot fail the other publishes of a journal write.
 */
export class UnstorableMessageError extends Error {
  constructor(
    readonly topic: string,
    readonly field: string,
  ) {
    super(`message for ${topic} has a NUL character in its ${field}, which the bus journal cannot store`);
    this.name = 'UnstorableMessageError';
  }
}

/** Postgres SQLSTATE classes (the first two characters) that retrying cannot fix. */
const PERMANENT_SQLSTATE_CLASSES: Readonly<Record<string, string>> = {
  '22': 'data exception',
  '54': 'program limit exceeded',
};

/** SQLSTATEs of an outage or a contended moment, never of the message. */
const TRANSIENT_SQLSTATE_CLASSES = new Set(['08', '53', '57', '58']);
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '55P03', '55006']);
/** 57014 (query_canceled, e.g. a statement timeout) can be the message's fault: it is left bounded. */
const BOUNDED_SQLSTATES = new Set(['57014']);

const TRANSIENT_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ERR_SOCKET_CLOSED',
]);

/** kafkajs errors of a broker that cannot be reached or answered late. */
const TRANSIENT_KAFKA_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSLockTimeout',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSGroupCoordinatorNotFound',
]);

/** Broker answers about the record itself. */
const PERMANENT_KAFKA_TYPES = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD']);

/** Messages of pg, pg-pool, TypeORM and our buses when a connection is gone or cannot be had. */
const TRANSIENT_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /client has encountered a connection error/i,
  /connection is not established/i,
  /cannot use a pool after calling end/i,
  /query read timeout/i,
  /the (kafka|in-process) bus is closed/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

export function classifyFailure(error: unknown): FailureClassification {
  for (const candidate of causeChain(error)) {
    const verdict = classifyOne(candidate);
    if (verdict) return verdict;
  }
  return { kind: 'unknown', because: describe(error) };
}

function classifyOne(error: unknown): FailureClassification | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const name = stringField(error, 'name');
  const code = stringField(error, 'code');
  if (error instanceof MessageTooLargeError) return { kind: 'permanent', because: 'message too large' };
  if (error instanceof UnstorableMessageError) return { kind: 'permanent', because: 'message not storable' };
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) {
    const sqlClass = code.slice(0, 2);
    if (PERMANENT_SQLSTATE_CLASSES[sqlClass]) return { kind: 'permanent', because: `SQLSTATE ${code} (${PERMANENT_SQLSTATE_CLASSES[sqlClass]})` };
    if (BOUNDED_SQLSTATES.has(code)) return { kind: 'unknown', because: `SQLSTATE ${code}` };
    if (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SQLSTATE_CLASSES.has(sqlClass)) return { kind: 'transient', because: `SQLSTATE ${code}` };
  }
  if (code !== undefined && TRANSIENT_SYSTEM_CODES.has(code)) return { kind: 'transient', because: code };
  if (name !== undefined && TRANSIENT_KAFKA_NAMES.has(name)) return { kind: 'transient', because: name };
  const kafkaType = stringField(error, 'type');
  if (name === 'KafkaJSProtocolError' && kafkaType !== undefined) {
    if (PERMANENT_KAFKA_TYPES.has(kafkaType)) return { kind: 'permanent', because: kafkaType };
    if ((error as { retriable?: unknown }).retriable === true) return { kind: 'transient', because: kafkaType };
  }
  // HeraldError: `unavailable` is an outage by definition; `rate_limited` (a RetryLaterError:
  // Herald saturated) and a `conflict` (a concurrent claim) pass with time;
  // `validation_error` is the message's fault.
  if (name === 'HeraldError' || name === 'RetryLaterError') {
    if (code === 'unavailable' || code === 'rate_limited' || code === 'conflict') return { kind: 'transient', because: `${name} ${code}` };
    if (code === 'validation_error') return { kind: 'permanent', because: 'HeraldError validation_error' };
  }
  if (name === 'StreamConflictError') return { kind: 'transient', because: name };
  // JSON.parse, and what only a pathological value causes (nesting past the stack, a string past the heap limit).
  if (error instanceof SyntaxError || error instanceof RangeError) return { kind: 'permanent', because: error.name };
  const message = stringField(error, 'message');
  if (message !== undefined && TRANSIENT_MESSAGES.some((pattern) => pattern.test(message))) {
    return { kind: 'transient', because: 'connection unavailable' };
  }
  return undefined;
}

/** The error, then what it wraps, breadth first, each once, at most a few levels deep. */
function causeChain(error: unknown): unknown[] {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  const chain: unknown[] = [];
  while (queue.length > 0 && chain.length < 16) {
    const next = queue.shift();
    if (next === undefined || next === null || seen.has(next)) continue;
    seen.add(next);
    chain.push(next);
    if (typeof next !== 'object') continue;
    const fields = next as { driverError?: unknown; cause?: unknown; originalError?: unknown; errors?: unknown };
    queue.push(fields.driverError, fields.cause, fields.originalError);
    if (Array.isArray(fields.errors)) queue.push(...fields.errors);
  }
  return chain;
}

function stringField(value: object, name: string): string | undefined {
  const field = (value as Record<string, unknown>)[name];
  return typeof field === 'string' ? field : undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.name;
  return typeof error;
}
