import { FieldError } from './envelope';

/**
 * Failures with a stable code. Domain and service code throws these and never an
 * HTTP exception; each transport maps the code to its own outcome (an HTTP status
 * and the extended error body, a dead letter, a retry).
 */
export type ErrorCode =
  | 'validation_error'
  | 'authentication_failed'
  | 'permission_denied'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  /** Herald cannot take the request now (the broker or the database is unreachable); the client may retry. */
  | 'unavailable';

export class HeraldError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fieldErrors: readonly FieldError[] = [],
    /** Short-shape errors of interface section 7 (code + message only). */
    readonly shape: 'extended' | 'short' = 'extended',
  ) {
    super(message);
    this.name = 'HeraldError';
  }

  static validation(fieldErrors: readonly FieldError[]): HeraldError {
    return new HeraldError('validation_error', 'invalid request', fieldErrors);
  }

  /** A validation_result's `path: message` strings as a validation error. */
  static fromValidationMessages(messages: readonly string[]): HeraldError {
    return HeraldError.validation(
      messages.map((text) => {
        const at = text.indexOf(': ');
        return at < 0 ? { path: '', message: text } : { path: text.slice(0, at), message: text.slice(at + 2) };
      }),
    );
  }

  static notFound(message: string, shape: 'extended' | 'short' = 'extended'): HeraldError {
    return new HeraldError('not_found', message, [], shape);
  }
}

/**
 * Herald is too busy to take the request now (its backlog passed its bound, or every
 * database connection is busy): 429 with `Retry-After`, nothing of the request
 * accepted, so the client sends it again later.
 */
export class RetryLaterError extends HeraldError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', message);
    this.name = 'RetryLaterError';
  }
}
