import { Static, Type } from '@sinclair/typebox';
import { FormattedString, NormalisedEvent, Nullable, ParseResult, Present } from '@herald/contracts';
import { ingestSchemas } from './ingest-checks';
import { AttachmentHolder, IdString, attachmentsOf, withoutUndefined } from './recipient-schemas';

export { MAX_EVENT_NAME_LENGTH } from './ingest-checks';

/**
 * One `POST /event/` track event: `{distinct_id, event, properties?, tenant_id?,
 * $idempotency_key?}` (reference `/event/`). Unknown fields are allowed: the SDKs add
 * `$insert_id`, `$time`, `env` and `brand_id`.
 */
export const EventSchema = ingestSchemas.named(
  'Event',
  Type.Object({
  distinct_id: Present(IdString),
  event: Present(FormattedString('event_name', { description: 'At most 255 characters' })),
  properties: Nullable(AttachmentHolder),
  tenant_id: Nullable(IdString),
  $idempotency_key: Nullable(FormattedString('idempotency_key', { description: '1 to 255 characters after trimming' })),
  }),
);
export type EventBody = Static<typeof EventSchema>;

const eventParser = ingestSchemas.parser(EventSchema);

/**
 * Validates and normalises one event. Names and ids are kept exactly as sent, because an
 * event matches `trigger_events` and wait-until names by equality.
 */
export function validateEvent(body: unknown): ParseResult<NormalisedEvent> {
  const parsed = eventParser.parse(body);
  if (!parsed.ok) return parsed;
  const event = parsed.value;
  return {
    ok: true,
    value: withoutUndefined({
      distinct_id: event.distinct_id,
      event: event.event,
      properties: { ...event.properties },
      attachments: attachmentsOf(event.properties),
      tenant_id: event.tenant_id ?? undefined,
      idempotency_key: event.$idempotency_key?.trim(),
    }),
  };
}
