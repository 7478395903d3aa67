import { Type } from '@sinclair/typebox';
import { ParseResult } from '../envelope';
import { ChannelSchema, Contract, JsonRecordSchema, NonEmptyString, OptionalString, messageSchemas } from './message-schemas';

/**
 * `notify.broadcast.accepted.v1`, keyed `workspace:list_id`: a broadcast to a subscriber
 * list (reference `trigger-broadcast`), accepted by ingest-api. preference-service, which
 * knows the list's members, fans it out as one `trigger.accepted` per member, each
 * carrying the broadcast's inline workflow (an optional delay, then the template on
 * every channel the member has, or on `channels`).
 */
export const BROADCAST_ACCEPTED_TYPE = 'broadcast.accepted';
export const BROADCAST_ACCEPTED_VERSION = 1;

export const BroadcastAcceptedMessage = Type.Object({
  message_id: NonEmptyString(),
  workspace_slug: NonEmptyString(),
  list_id: NonEmptyString(),
  template: NonEmptyString(),
  notification_category: NonEmptyString(),
  channels: Type.Optional(Type.Array(ChannelSchema)),
  data: JsonRecordSchema,
  /** A fixed duration (`XXdXXhXXmXXs`) before sending. */
  delay: OptionalString(),
  /** ISO 8601: send then. */
  trigger_at: OptionalString(),
  tenant_id: OptionalString(),
  idempotency_key: OptionalString(),
  accepted_at: NonEmptyString(),
});
export type BroadcastAccepted = Contract<typeof BroadcastAcceptedMessage>;

const broadcastAcceptedParser = messageSchemas.parser(BroadcastAcceptedMessage, 'payload');

export function parseBroadcastAccepted(payload: unknown): ParseResult<BroadcastAccepted> {
  return broadcastAcceptedParser.parse(payload);
}
