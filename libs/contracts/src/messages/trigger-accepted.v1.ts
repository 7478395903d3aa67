import { ParseResult } from '../envelope';
import { PayloadChecks } from './message-fields';
import { Attachment, JsonRecord, Recipient, UserRecipient } from './trigger-payload';

/**
 * `notify.trigger.accepted.v1`: one validated trigger for ONE recipient, published by
 * ingest-api (REST and the Kafka ingress) and keyed `workspace:recipient`. A trigger
 * of 100 recipients is 100 of these, each an independent run. The envelope's
 * message_id is `deterministicUuid(message_id, recipient_index)`, so a republished
 * trigger (a retried idempotent request, a redelivered ingress message) carries the
 * same ids and starts nothing twice.
 */
export const TRIGGER_ACCEPTED_TYPE = 'trigger.accepted';
export const TRIGGER_ACCEPTED_VERSION = 1;

export type AcceptedVia = 'api' | 'kafka';

export interface TriggerAccepted {
  /** The trigger's id, as returned to the client (`message_id`). */
  readonly message_id: string;
  readonly recipient_index: number;
  readonly recipient_count: number;
  readonly workspace_slug: string;
  readonly workflow: string;
  readonly recipient: Recipient;
  readonly actor?: UserRecipient;
  readonly data: JsonRecord;
  readonly attachments: readonly Attachment[];
  readonly tenant_id?: string;
  readonly idempotency_key?: string;
  readonly accepted_via: AcceptedVia;
  readonly accepted_at: string;
  /**
   * Set by the engine for a run it starts on behalf of another: one recipient of an
   * object's subscribers, or of a `override_recipients_*` expression. Such a run does not
   * apply the workflow's overrides again (and does not fan out again).
   */
  readonly parent_run_id?: string;
  /**
   * Set by preference-service for a broadcast to a list: the run follows this definition
   * instead of a live workflow (a broadcast names a template, not a workflow).
   */
  readonly inline_workflow?: { readonly slug: string; readonly version: number; readonly definition: JsonRecord };
}

export function parseTriggerAccepted(payload: unknown): ParseResult<TriggerAccepted> {
  const checks = PayloadChecks.of(payload);
  ['message_id', 'workspace_slug', 'workflow', 'accepted_at'].forEach((f) => checks.string(f));
  checks.string('tenant_id', { optional: true });
  checks.string('idempotency_key', { optional: true });
  checks.string('parent_run_id', { optional: true });
  checks.object('inline_workflow', { optional: true });
  checks.integer('recipient_index', 0);
  checks.integer('recipient_count', 1);
  checks.object('recipient');
  checks.object('actor', { optional: true });
  checks.object('data');
  checks.oneOf('accepted_via', ['api', 'kafka']);
  const value = payload as TriggerAccepted;
  if (checks.errors.length === 0 && !['user', 'object'].includes(value.recipient.kind)) {
    checks.errors.push({ path: 'payload.recipient.kind', message: 'must be user or object' });
  }
  if (checks.errors.length === 0 && !Array.isArray(value.attachments)) checks.errors.push({ path: 'payload.attachments', message: 'must be an array' });
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value };
}
