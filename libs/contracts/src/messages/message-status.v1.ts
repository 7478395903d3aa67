import { ParseResult } from '../envelope';
import { CHANNELS, Channel } from '../channels';
import { DELIVERY_STATUSES, DeliveryOutcome, DeliveryStatus } from './delivery-outcome.v1';
import { PayloadChecks } from './message-fields';

/**
 * `notify.status.v1` (public), keyed like the outcome it reports (`workspace:recipient`):
 * one message per status change of a message, and the body of the status webhooks
 * management-api sends. Its fields keep SuprSend's outbound webhook payload where one
 * exists (`channel`, `distinct_id`, `event_type`, `reference`, `suprsend_status`,
 * `template`, `vendor_name`, `version`, `workflow_name`), add Standard Webhooks' `type`
 * and `timestamp`, and carry Herald's own ids and filters beside them.
 */
export const MESSAGE_STATUS_TYPE = 'message.status';
export const MESSAGE_STATUS_VERSION = 1;

/** The statuses an endpoint can subscribe to: every status the outcome contract carries. */
export const MESSAGE_STATUSES: readonly DeliveryStatus[] = DELIVERY_STATUSES;

export interface MessageStatusEvent {
  /** Standard Webhooks' event type: `message.<status>`. */
  readonly type: string;
  /** When the status happened (ISO 8601). */
  readonly timestamp: string;
  /** Unique per status change; the `webhook-id` of its webhooks, the `message-id` header on the topic. */
  readonly event_id: string;
  readonly version: '1.0';
  readonly event_type: 'status';
  readonly status: DeliveryStatus;
  readonly channel: Channel;
  /** The user recipient (absent for an object recipient, see `recipient`). */
  readonly distinct_id?: string;
  readonly recipient?: DeliveryOutcome['recipient'];
  /** The template's slug. */
  readonly template?: string;
  /** The workflow's slug (SuprSend puts its name here). */
  readonly workflow_name?: string;
  readonly category?: string;
  readonly tenant_id?: string;
  /** The vendor that handled it, without the channel (`sendgrid`, `herald_inbox`). */
  readonly vendor_name?: string;
  readonly suprsend_status: { readonly status: DeliveryStatus; readonly timestamp: number };
  readonly reference: {
    readonly workspace_name: string;
    readonly workspace_uid: string;
    /** The run. */
    readonly supr_execution_id: string;
    /** The trigger's message id, shared by the deliveries of one run. */
    readonly supr_ngid: string;
    /** The delivery. */
    readonly supr_nid: string;
    readonly vendor_ack_id?: string;
  };
  readonly message_id: string;
  readonly delivery_id: string;
  readonly run_id: string;
  readonly error?: DeliveryOutcome['error'];
  readonly attempts?: number;
  readonly next_attempt_at?: string;
}

/**
 * The status event of one outcome. `eventId` is the outcome message's own id (derived
 * from the delivery and the fact reported), so a republished outcome maps to the same event.
 */
export function messageStatusOf(outcome: DeliveryOutcome, workspaceId: string, eventId: string): MessageStatusEvent {
  const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
    (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;
  const vendorName = outcome.vendor?.slice(outcome.vendor.indexOf('/') + 1);
  return {
    type: `message.${outcome.status}`,
    timestamp: outcome.at,
    event_id: eventId,
    version: '1.0',
    event_type: 'status',
    status: outcome.status,
    channel: outcome.channel,
    ...optional('distinct_id', outcome.recipient?.distinct_id),
    ...optional('recipient', outcome.recipient),
    ...optional('template', outcome.template_slug),
    ...optional('workflow_name', outcome.workflow_slug),
    ...optional('category', outcome.category),
    ...optional('tenant_id', outcome.tenant_id),
    ...optional('vendor_name', vendorName),
    suprsend_status: { status: outcome.status, timestamp: Date.parse(outcome.at) },
    reference: {
      workspace_name: outcome.workspace_slug,
      workspace_uid: workspaceId,
      supr_execution_id: outcome.run_id,
      supr_ngid: outcome.message_id,
      supr_nid: outcome.delivery_id,
      ...optional('vendor_ack_id', outcome.vendor_message_id),
    },
    message_id: outcome.message_id,
    delivery_id: outcome.delivery_id,
    run_id: outcome.run_id,
    ...optional('error', outcome.error),
    ...optional('attempts', outcome.attempts),
    ...optional('next_attempt_at', outcome.next_attempt_at),
  };
}

export function parseMessageStatus(payload: unknown): ParseResult<MessageStatusEvent> {
  const checks = PayloadChecks.of(payload);
  ['type', 'timestamp', 'event_id', 'message_id', 'delivery_id', 'run_id'].forEach((f) => checks.string(f));
  checks.oneOf('channel', CHANNELS);
  checks.oneOf('status', DELIVERY_STATUSES);
  checks.object('reference');
  checks.object('suprsend_status');
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value: payload as MessageStatusEvent };
}
