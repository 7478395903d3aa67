import { Type } from '@sinclair/typebox';
import { ParseResult } from '../envelope';
import { AcceptedViaSchema, Contract, JsonRecordSchema, NonEmptyString, OptionalString, messageSchemas } from './message-schemas';
import { AttachmentMessage } from './trigger-payload';

/**
 * `notify.event.accepted.v1`: a validated event of one user, keyed
 * `workspace:distinct_id`. The engine starts every live workflow whose
 * `trigger_events` holds the name and resumes wait-until nodes waiting for it.
 */
export const EVENT_ACCEPTED_TYPE = 'event.accepted';
export const EVENT_ACCEPTED_VERSION = 1;

export const EventAcceptedMessage = Type.Object({
  message_id: NonEmptyString(),
  workspace_slug: NonEmptyString(),
  distinct_id: NonEmptyString(),
  event: NonEmptyString(),
  properties: JsonRecordSchema,
  attachments: Type.Array(AttachmentMessage),
  tenant_id: OptionalString(),
  idempotency_key: OptionalString(),
  accepted_via: AcceptedViaSchema,
  accepted_at: NonEmptyString(),
});
export type EventAccepted = Contract<typeof EventAcceptedMessage>;

const eventAcceptedParser = messageSchemas.parser(EventAcceptedMessage, 'payload');

export function parseEventAccepted(payload: unknown): ParseResult<EventAccepted> {
  return eventAcceptedParser.parse(payload);
}
