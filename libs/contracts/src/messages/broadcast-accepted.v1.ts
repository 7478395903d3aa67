import { Channel } from '../channels';
import { ParseResult } from '../envelope';
import { PayloadChecks } from './message-fields';
import { JsonRecord } from './trigger-payload';

/**
 * `notify.broadcast.accepted.v1`, keyed `workspace:list_id`: a broadcast to a subscriber
 * list (reference `trigger-broadcast`), accepted by ingest-api. preference-service, which
 * knows the list's members, fans it out as one `trigger.accepted` per member, each
 * carrying the broadcast's inline workflow (an optional delay, then the template on
 * every channel the member has, or on `channels`).
 */
export const BROADCAST_ACCEPTED_TYPE = 'broadcast.accepted';
export const BROADCAST_ACCEPTED_VERSION = 1;

export interface BroadcastAccepted {
  readonly message_id: string;
  readonly workspace_slug: string;
  readonly list_id: string;
  readonly template: string;
  readonly notification_category: string;
  readonly channels?: readonly Channel[];
  readonly data: JsonRecord;
  /** A fixed duration (`XXdXXhXXmXXs`) before sending. */
  readonly delay?: string;
  /** ISO 8601: send then. */
  readonly trigger_at?: string;
  readonly tenant_id?: string;
  readonly idempotency_key?: string;
  readonly accepted_at: string;
}

export function parseBroadcastAccepted(payload: unknown): ParseResult<BroadcastAccepted> {
  const checks = PayloadChecks.of(payload);
  ['message_id', 'workspace_slug', 'list_id', 'template', 'notification_category', 'accepted_at'].forEach((f) => checks.string(f));
  ['delay', 'trigger_at', 'tenant_id', 'idempotency_key'].forEach((f) => checks.string(f, { optional: true }));
  checks.object('data');
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value: payload as BroadcastAccepted };
}
