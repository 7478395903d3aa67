import { ParseResult } from '../envelope';
import { PayloadChecks } from './message-fields';
import { AcceptedVia } from './trigger-accepted.v1';
import { Attachment, JsonRecord } from './trigger-payload';

/**
 * `notify.event.accepted.v1`: a validated event of one user, keyed
 * `workspace:distinct_id`. The engine starts every live workflow whose
 * `trigger_events` holds the name and resumes wait-until nodes waiting for it.
 */
export const EVENT_ACCEPTED_TYPE = 'event.accepted';
export const EVENT_ACCEPTED_VERSION = 1;

export interface EventAccepted {
  readonly message_id: string;
  readonly workspace_slug: string;
  readonly distinct_id: string;
  readonly event: string;
  readonly properties: JsonRecord;
  readonly attachments: readonly Attachment[];
  readonly tenant_id?: string;
  readonly idempotency_key?: string;
  readonly accepted_via: AcceptedVia;
  readonly accepted_at: string;
}

export function parseEventAccepted(payload: unknown): ParseResult<EventAccepted> {
  const checks = PayloadChecks.of(payload);
  ['message_id', 'workspace_slug', 'distinct_id', 'event', 'accepted_at'].forEach((f) => checks.string(f));
  checks.string('tenant_id', { optional: true });
  checks.string('idempotency_key', { optional: true });
  checks.object('properties');
  checks.oneOf('accepted_via', ['api', 'kafka']);
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value: payload as EventAccepted };
}
