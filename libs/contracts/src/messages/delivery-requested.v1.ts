import { ParseResult } from '../envelope';
import { CHANNELS, Channel } from '../channels';
import { PayloadChecks } from './message-fields';
import { Attachment, JsonRecord } from './trigger-payload';

/**
 * `notify.delivery.<channel>.requested.v1`: one message to one recipient on one
 * channel, decided by a run's send node and published through the engine's outbox,
 * keyed `workspace:recipient`. It is self-contained: the template variant's content
 * and the data to render it with travel in it, so a dispatcher needs no read model and
 * renders exactly what the engine chose, even if the template changed since.
 *
 * `delivery_id` is deterministic (run, node, channel), and a dispatcher sends at most
 * once per delivery_id however often Kafka redelivers the command.
 */
export const DELIVERY_REQUESTED_TYPE = 'delivery.requested';
export const DELIVERY_REQUESTED_VERSION = 1;

/** Where the message goes on its channel: addresses, tokens or chat identities as the profile holds them. */
export interface DeliveryDestination {
  /** Email addresses, phone numbers, inbox ids, push tokens (string or `{token, ...}`), web push subscriptions, Slack or MS Teams identities. */
  readonly identities: readonly unknown[];
}

export interface DeliveryRequested {
  readonly delivery_id: string;
  readonly run_id: string;
  /** The trigger's message_id, as the client got it. */
  readonly message_id: string;
  readonly workspace_slug: string;
  readonly workflow: { readonly slug: string; readonly version: number };
  readonly node_name: string;
  readonly channel: Channel;
  readonly recipient: {
    readonly kind: 'user' | 'object';
    readonly distinct_id?: string;
    readonly object_type?: string;
    readonly id?: string;
    readonly locale?: string;
    readonly timezone?: string;
  };
  readonly destination: DeliveryDestination;
  readonly template: {
    readonly slug: string;
    readonly variant_id: string;
    readonly tenant_id?: string;
    readonly locale?: string;
    /** The variant's channel content (subject, html, text, title, body, blocks, ...), uncompiled Handlebars. */
    readonly content: JsonRecord;
    /** The template's strict rendering: a variable the content uses and render_data lacks fails the delivery (not retried). */
    readonly strict?: boolean;
  };
  /** What the content renders with: the run's data plus `$recipient`, `$actor`, `$tenant`, `$batched_events`, `$batched_events_count`. */
  readonly render_data: JsonRecord;
  readonly tenant_id?: string;
  readonly category?: string;
  /**
   * The recipient may opt out of `category` on this channel (its effective default is not
   * `cant_unsubscribe`, the channel not mandatory): an email then carries List-Unsubscribe.
   */
  readonly unsubscribable?: boolean;
  readonly attachments: readonly Attachment[];
  readonly requested_at: string;
}

export function parseDeliveryRequested(payload: unknown): ParseResult<DeliveryRequested> {
  const checks = PayloadChecks.of(payload);
  ['delivery_id', 'run_id', 'message_id', 'workspace_slug', 'node_name', 'requested_at'].forEach((f) => checks.string(f));
  checks.oneOf('channel', CHANNELS);
  checks.object('workflow');
  checks.object('recipient');
  checks.object('destination');
  checks.object('template');
  checks.object('render_data');
  const value = payload as DeliveryRequested;
  if (checks.errors.length === 0) {
    if (!Array.isArray(value.destination.identities)) checks.errors.push({ path: 'payload.destination.identities', message: 'must be an array' });
    if (typeof value.template.content !== 'object' || value.template.content === null) checks.errors.push({ path: 'payload.template.content', message: 'must be an object' });
    if (!Array.isArray(value.attachments)) checks.errors.push({ path: 'payload.attachments', message: 'must be an array' });
  }
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value };
}
