import { ParseResult } from '@herald/contracts';
import { insertIdIdempotency, withShapeErrors } from './browser-sdk-event';
import { EventRecord, validateEventRecord } from './event-records';
import { isRecord } from './ingest-checks';

/**
 * One record of a backend SDK's `POST /v2/event/` or `/v2/bulk/event/` (suprsend-py-sdk's
 * `track_event`, `track` and bulk events): exactly what `/event/` accepts (a track event,
 * or an identity event with `$user_operations`), with `$insert_id` (the SDK's fresh id of
 * each event) as the idempotency key unless `$idempotency_key` is given, so a retried
 * event is accepted once. Errors name the record's own paths. Pure.
 */
export function readServerSdkEvent(body: unknown): ParseResult<EventRecord> {
  if (!isRecord(body)) return { ok: false, errors: [{ path: '', message: 'must be a JSON object' }] };
  const { errors, shapeErrors, idempotency } = insertIdIdempotency(body);
  const record = validateEventRecord(idempotency === undefined ? body : { ...body, $idempotency_key: idempotency });
  if (!record.ok || errors.length > 0 || shapeErrors.length > 0) return { ok: false, errors: withShapeErrors(errors, record.ok ? [] : record.errors, shapeErrors) };
  return record;
}
