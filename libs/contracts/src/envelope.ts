/**
 * Every message on an internal topic is a JSON envelope: what it is (`type`,
 * `schema_version`), which workspace it belongs to, a unique id consumers
 * dedupe by, and the payload. Consumers parse before they act.
 */
export interface Envelope<TPayload = unknown> {
  readonly type: string;
  readonly schema_version: number;
  readonly message_id: string;
  readonly workspace_id: string;
  readonly produced_at: string;
  readonly payload: TPayload;
}

export interface FieldError {
  readonly path: string;
  readonly message: string;
}

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly FieldError[] };

export function parseEnvelope(raw: Buffer | string, expectedType?: string): ParseResult<Envelope> {
  let json: unknown;
  try {
    json = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch (error) {
    return { ok: false, errors: [{ path: '', message: `not JSON: ${(error as Error).message}` }] };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, errors: [{ path: '', message: 'must be a JSON object' }] };
  }
  const candidate = json as Record<string, unknown>;
  const errors: FieldError[] = [];
  const requireString = (field: string): void => {
    if (typeof candidate[field] !== 'string' || (candidate[field] as string).length === 0) {
      errors.push({ path: field, message: 'must be a non-empty string' });
    }
  };
  requireString('type');
  requireString('message_id');
  requireString('workspace_id');
  requireString('produced_at');
  if (!Number.isInteger(candidate.schema_version) || (candidate.schema_version as number) < 1) {
    errors.push({ path: 'schema_version', message: 'must be a positive integer' });
  }
  if (!('payload' in candidate)) errors.push({ path: 'payload', message: 'is required' });
  if (expectedType !== undefined && typeof candidate.type === 'string' && candidate.type !== expectedType) {
    errors.push({ path: 'type', message: `must be ${expectedType}` });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: candidate as unknown as Envelope };
}

/**
 * Why a message was dead-lettered, as a stable code: not a valid envelope or payload,
 * of a `schema_version` its consumer does not read (a producer newer than the
 * consumer), rejected by its handler as invalid, failed with an error retrying cannot
 * fix (a Postgres data exception, a message too large), or failed the same message
 * past the bounded number of attempts.
 */
export type DeadLetterReasonCode =
  | 'invalid_envelope'
  | 'unknown_schema_version'
  | 'invalid_payload'
  | 'rejected'
  | 'unprocessable'
  | 'attempts_exhausted';

/** What a consumer publishes to the dead-letter topic instead of crashing. */
export interface DeadLetterPayload {
  /** The topic and consumer group as the broker names them (with `HERALD_KAFKA_NAMESPACE`'s prefix). */
  readonly source_topic: string;
  readonly source_partition: number;
  readonly source_offset: string;
  readonly consumer_group: string;
  readonly key: string;
  readonly reason_code: DeadLetterReasonCode;
  readonly reason: string;
  /** Deliveries of the message to this consumer that failed, this one included. */
  readonly attempts: number;
  readonly errors: readonly FieldError[];
  /** The original bytes, as UTF-8 when they were text, else base64. */
  readonly original: string;
  readonly original_encoding: 'utf8' | 'base64';
  readonly failed_at: string;
}
