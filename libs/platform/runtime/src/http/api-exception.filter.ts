import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, HeraldError, RetryLaterError } from '@herald/contracts';
import { HeraldLogger } from '../logging/logger';
import { databaseRefusal } from './database-refusal';

const STATUS: Record<ErrorCode, number> = {
  validation_error: 400,
  authentication_failed: 401,
  permission_denied: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

const TYPE: Record<ErrorCode, string> = {
  validation_error: 'ValidationError',
  authentication_failed: 'AuthenticationFailed',
  permission_denied: 'PermissionDenied',
  not_found: 'NotFound',
  conflict: 'ConflictError',
  payload_too_large: 'PayloadTooLarge',
  rate_limited: 'Throttled',
  unavailable: 'ServiceUnavailable',
};

/** The HTTP status and error `type` of a HeraldError (also used for the records of a 207). */
export function httpStatusOf(error: HeraldError): { readonly status: number; readonly type: string } {
  return { status: STATUS[error.code], type: TYPE[error.code] };
}

export interface ExtendedErrorBody {
  readonly code: number;
  readonly error_code: string;
  readonly type: string;
  readonly message: string;
  readonly detail: string;
}

export function errorBody(error: HeraldError): ExtendedErrorBody | { code: number; message: string } {
  const status = STATUS[error.code];
  if (error.shape === 'short') return { code: status, message: error.message };
  const detail =
    error.fieldErrors.length > 0
      ? error.fieldErrors.map((f) => (f.path ? `${f.path}: ${f.message}` : f.message)).join('; ')
      : error.message;
  return { code: status, error_code: error.code, type: TYPE[error.code], message: error.message, detail };
}

/**
 * Maps every failure to the interface's error bodies. What a client sent can only
 * produce a 4xx; a 500 means a bug in Herald, and is logged with its stack.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: HeraldLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const error = this.toHeraldError(exception);
    if (error) {
      if (error instanceof RetryLaterError) void reply.header('retry-after', String(error.retryAfterSeconds));
      void reply.status(STATUS[error.code]).send(this.answer(errorBody(error)));
      return;
    }
    this.logger.error('unhandled error', {
      method: request.method,
      url: request.url,
      err: exception instanceof Error ? { type: exception.name, message: exception.message, stack: exception.stack } : String(exception),
    });
    void reply.status(500).send(
      this.answer({
        code: 500,
        error_code: 'internal_error',
        type: 'InternalError',
        message: 'internal error',
        detail: 'internal error',
      }),
    );
  }

  /** The body sent for an error; a route family that speaks another client's error shape overrides it (SuprSendClientErrorFilter). */
  protected answer(body: ExtendedErrorBody | { code: number; message: string }): unknown {
    return body;
  }

  private toHeraldError(exception: unknown): HeraldError | undefined {
    if (exception instanceof HeraldError) return exception;
    const fastifyCode = (exception as { code?: unknown } | null)?.code;
    switch (fastifyCode) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return new HeraldError('payload_too_large', 'request body too large');
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return new HeraldError('validation_error', 'request body is not valid JSON', [
          { path: '', message: (exception as Error).message },
        ]);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return new HeraldError('validation_error', 'unsupported content type', [
          { path: 'Content-Type', message: 'must be application/json' },
        ]);
    }
    if (exception instanceof SyntaxError) {
      return new HeraldError('validation_error', 'request body is not valid JSON', [{ path: '', message: exception.message }]);
    }
    // The database failed, not the request: saturated is a 429 push-back, unreachable a 503; never a 500.
    const refusal = databaseRefusal(exception);
    if (refusal) return refusal;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) return HeraldError.notFound('no such endpoint');
      if (status === 413) return new HeraldError('payload_too_large', 'request body too large');
      if (status >= 400 && status < 500) {
        return new HeraldError('validation_error', exception.message, [{ path: '', message: exception.message }]);
      }
    }
    return undefined;
  }
}
