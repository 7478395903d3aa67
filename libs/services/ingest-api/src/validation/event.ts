import { NormalisedEvent, ParseResult } from '@herald/contracts';
import { readAttachments } from './attachments';
import { Issues } from './issues';
import { ObjectReader, withoutUndefined } from './json-reader';
import { readIdempotencyKey, readTenantId } from './shared-fields';

/**
 * Interface section 6 caps the event name a wait-until node waits for at 255 characters;
 * a longer event could never be matched, so it is refused up front.
 */
export const MAX_EVENT_NAME_LENGTH = 255;

/**
 * Validates one `POST /event/` body: `{distinct_id, event, properties?, tenant_id?,
 * $idempotency_key?}` (reference `/event/`). Unknown fields are ignored: the SDKs add
 * `$insert_id`, `$time`, `env` and `brand_id`. Names and ids are kept exactly as sent,
 * because an event matches `trigger_events` and wait-until names by equality.
 */
export function validateEvent(body: unknown): ParseResult<NormalisedEvent> {
  const issues = new Issues();
  const root = ObjectReader.of(body, '', issues);
  if (root === undefined) return { ok: false, errors: issues.list() };

  const distinct_id = root.string('distinct_id', { required: true, nonBlank: true });
  const event = root.string('event', { required: true, nonBlank: true });
  if (event !== undefined && event.length > MAX_EVENT_NAME_LENGTH) {
    root.report('event', `must be at most ${MAX_EVENT_NAME_LENGTH} characters`);
  }
  const properties = root.object('properties');
  const attachments = properties === undefined ? [] : readAttachments(properties);
  const { tenant_id } = readTenantId(root);
  const idempotency_key = readIdempotencyKey(root);

  if (!issues.isEmpty || distinct_id === undefined || event === undefined) return { ok: false, errors: issues.list() };
  return {
    ok: true,
    value: withoutUndefined({ distinct_id, event, properties: { ...properties?.source }, attachments, tenant_id, idempotency_key }),
  };
}
