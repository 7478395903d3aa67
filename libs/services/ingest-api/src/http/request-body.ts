import { HeraldError } from '@herald/contracts';
import type { AuthenticatedRequest } from '@herald/runtime';

/** decisions.md: a trigger or event body (single or bulk) is at most 800 KB. */
export const MAX_INGEST_BODY_BYTES = 800 * 1024;

/** The parsed JSON body, after the size rule; an absent body is a validation error at path ''. */
export function ingestBody(request: AuthenticatedRequest): unknown {
  const size = request.rawBody?.length ?? 0;
  if (size > MAX_INGEST_BODY_BYTES) {
    throw new HeraldError('payload_too_large', `request body is ${size} bytes; at most ${MAX_INGEST_BODY_BYTES} bytes (800 KB) are accepted`);
  }
  if (request.body === undefined || request.body === null) {
    throw HeraldError.validation([{ path: '', message: 'a JSON body is required' }]);
  }
  return request.body;
}
