import { Catch, Inject } from '@nestjs/common';
import { HeraldLogger } from '../logging/logger';
import { HERALD_LOGGER } from '../nest/tokens';
import { ApiExceptionFilter, ExtendedErrorBody } from './api-exception.filter';

/**
 * Errors of the routes SuprSend's browser SDK calls (`/v2/event`, `/v1/feed/`,
 * `/v2/subscriber/`): Herald's error body plus `error: {type, message}`, the nested form
 * the SDK reads (`response.error.type`, `.message`). The type is the error code in
 * capitals (`VALIDATION_ERROR`, `PERMISSION_DENIED`, `NOT_FOUND`: the SDK's own names);
 * the message is the detail, which names every failing field.
 */
/** The short error bodies (`{code, message}`, reference-shaped 404s) carry no error code: their type comes from the status. */
const SHORT_ERROR_TYPES: Readonly<Record<number, string>> = { 400: 'VALIDATION_ERROR', 401: 'AUTHENTICATION_FAILED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 409: 'CONFLICT' };

@Catch()
export class SuprSendClientErrorFilter extends ApiExceptionFilter {
  constructor(@Inject(HERALD_LOGGER) logger: HeraldLogger) {
    super(logger);
  }

  protected override answer(body: ExtendedErrorBody | { code: number; message: string }): unknown {
    const type = 'error_code' in body ? body.error_code.toUpperCase() : (SHORT_ERROR_TYPES[body.code] ?? 'UNKNOWN_ERROR');
    const message = 'detail' in body ? body.detail : body.message;
    return { ...body, error: { type, message } };
  }
}
