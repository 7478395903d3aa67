import {
  AUDIENCE_CHANGED_TYPE,
  BROADCAST_ACCEPTED_TYPE,
  BROADCAST_ACCEPTED_VERSION,
  BroadcastAccepted,
  AUDIENCE_CHANGED_VERSION,
  AcceptedVia,
  EVENT_ACCEPTED_TYPE,
  EVENT_ACCEPTED_VERSION,
  EventAccepted,
  InlineProfileUpdate,
  NormalisedEvent,
  NormalisedTrigger,
  Recipient,
  TRIGGER_ACCEPTED_TYPE,
  TRIGGER_ACCEPTED_VERSION,
  TriggerAccepted,
  UserOperationsUpdate,
  deterministicUuid,
  envelopeOf,
  recipientKey,
  userKey,
} from '@herald/contracts';
import type { OutgoingMessage } from '@herald/bus';
import type { AuthenticatedWorkspace } from '@herald/runtime';
import type { NormalisedBroadcast, NormalisedIdentityEvent } from '../validation';

/** What one accepted request puts on the bus, topic by topic. Pure: ids and time are inputs. */
export interface AcceptedMessages {
  /** `notify.audience.changed.v1`: inline profile data (published first, see TriggerAcceptance). */
  readonly audience: OutgoingMessage[];
  /** `notify.trigger.accepted.v1` or `notify.event.accepted.v1`. */
  readonly accepted: OutgoingMessage[];
}

/**
 * One message per recipient, keyed `workspace:recipient`, each with an id derived from the trigger's.
 *
 * Hot path (a 100-recipient trigger builds 100 of these): the messages differ only in
 * their id, `recipient_index` and `recipient`, so the rest of the JSON is serialised
 * once per trigger and each value is spliced together. Each value is byte for byte
 * `JSON.stringify(envelopeOf(TRIGGER_ACCEPTED_TYPE, ..., payload))` with the payload's
 * fields in TriggerAccepted's order (accepted-messages.unit.spec.ts holds it to that).
 */
export function triggerMessages(
  workspace: AuthenticatedWorkspace,
  trigger: NormalisedTrigger,
  messageId: string,
  via: AcceptedVia,
  now: Date,
): AcceptedMessages {
  const at = now.toISOString();
  // The payload's fields after `recipient`; JSON.stringify leaves out the undefined ones.
  const rest: Omit<TriggerAccepted, 'message_id' | 'recipient_index' | 'recipient_count' | 'workspace_slug' | 'workflow' | 'recipient'> = {
    actor: trigger.actor,
    data: trigger.data,
    attachments: trigger.attachments,
    tenant_id: trigger.tenant_id,
    idempotency_key: trigger.idempotency_key,
    accepted_via: via,
    accepted_at: at,
    inline_workflow: trigger.inline_workflow,
  };
  const beforeId = `{"type":${JSON.stringify(TRIGGER_ACCEPTED_TYPE)},"schema_version":${JSON.stringify(TRIGGER_ACCEPTED_VERSION)},"message_id":`;
  const beforeIndex =
    `,"workspace_id":${JSON.stringify(workspace.id)},"produced_at":${JSON.stringify(at)},` +
    `"payload":{"message_id":${JSON.stringify(messageId)},"recipient_index":`;
  const beforeRecipient =
    `,"recipient_count":${trigger.recipients.length},"workspace_slug":${JSON.stringify(workspace.slug)},` +
    `"workflow":${JSON.stringify(trigger.workflow)},"recipient":`;
  // `rest` always holds accepted_via, so its JSON is never `{}`: drop its `{`, close payload and envelope.
  const afterRecipient = `,${JSON.stringify(rest).slice(1)}}`;
  const accepted = trigger.recipients.map((recipient, index): OutgoingMessage => {
    const id = deterministicUuid(messageId, String(index));
    return {
      key: recipientKey(workspace.id, recipient, id),
      value: `${beforeId}${JSON.stringify(id)}${beforeIndex}${index}${beforeRecipient}${JSON.stringify(recipient)}${afterRecipient}`,
      headers: { 'message-id': id, 'trigger-message-id': messageId },
    };
  });
  const profiles = [...trigger.recipients, ...(trigger.actor ? [trigger.actor] : [])];
  const audience = profiles.flatMap((recipient, index) => {
    const update = inlineProfileUpdate(workspace, recipient, messageId);
    return update ? [audienceMessage(workspace, update, deterministicUuid(messageId, 'profile', String(index)), now)] : [];
  });
  return { audience, accepted };
}

export function eventMessages(workspace: AuthenticatedWorkspace, event: NormalisedEvent, messageId: string, via: AcceptedVia, now: Date): AcceptedMessages {
  const payload: EventAccepted = withoutUndefined({
    message_id: messageId,
    workspace_slug: workspace.slug,
    distinct_id: event.distinct_id,
    event: event.event,
    properties: event.properties,
    attachments: event.attachments,
    tenant_id: event.tenant_id,
    idempotency_key: event.idempotency_key,
    accepted_via: via,
    accepted_at: now.toISOString(),
  });
  return {
    audience: [],
    accepted: [
      {
        key: userKey(workspace.id, event.distinct_id),
        value: JSON.stringify(envelopeOf(EVENT_ACCEPTED_TYPE, EVENT_ACCEPTED_VERSION, messageId, workspace.id, now, payload)),
        headers: { 'message-id': messageId },
      },
    ],
  };
}

/**
 * An identity event is only a profile change: one `user_operations` message keyed by the
 * user, with an id derived from the request's, so a republish carries the same id and
 * `source_message_id` and preference-service applies it once.
 */
export function identityMessages(workspace: AuthenticatedWorkspace, identity: NormalisedIdentityEvent, messageId: string, now: Date): AcceptedMessages {
  const update: UserOperationsUpdate = withoutUndefined({
    kind: 'user_operations' as const,
    workspace_slug: workspace.slug,
    distinct_id: identity.distinct_id,
    tenant_id: identity.tenant_id,
    operations: identity.operations,
    source_message_id: messageId,
  });
  const id = deterministicUuid(messageId, 'user_operations');
  return {
    audience: [
      {
        key: userKey(workspace.id, identity.distinct_id),
        value: JSON.stringify(envelopeOf(AUDIENCE_CHANGED_TYPE, AUDIENCE_CHANGED_VERSION, id, workspace.id, now, update)),
        headers: { 'message-id': id },
      },
    ],
    accepted: [],
  };
}

/**
 * The profile update a recipient sent inline (interface 2.1.1), or undefined when it
 * carries nothing to store: a bare distinct_id, a transient user, an object with no
 * data beyond its identity.
 */
export function inlineProfileUpdate(workspace: AuthenticatedWorkspace, recipient: Recipient, messageId: string): InlineProfileUpdate | undefined {
  if (!recipient.inline) return undefined;
  const hasData =
    Object.keys(recipient.channels).length > 0 ||
    Object.keys(recipient.properties).length > 0 ||
    recipient.timezone !== undefined ||
    recipient.locale !== undefined;
  if (!hasData) return undefined;
  let subject: InlineProfileUpdate['subject'];
  if (recipient.kind === 'object') subject = { type: 'object', object_type: recipient.object_type, id: recipient.id };
  else if (recipient.distinct_id !== null && !recipient.is_transient) subject = { type: 'user', distinct_id: recipient.distinct_id };
  else return undefined;
  return withoutUndefined({
    kind: 'inline_profile' as const,
    workspace_slug: workspace.slug,
    subject,
    tenant_id: recipient.context_tenant_id,
    channels: recipient.channels,
    properties: recipient.properties,
    timezone: recipient.timezone,
    locale: recipient.locale,
    source_message_id: messageId,
  });
}

function audienceMessage(workspace: AuthenticatedWorkspace, update: InlineProfileUpdate, id: string, now: Date): OutgoingMessage {
  const key =
    update.subject.type === 'user' ? userKey(workspace.id, update.subject.distinct_id) : `${workspace.id}:${update.subject.object_type}:${update.subject.id}`;
  return {
    key,
    value: JSON.stringify(envelopeOf(AUDIENCE_CHANGED_TYPE, AUDIENCE_CHANGED_VERSION, id, workspace.id, now, update)),
    headers: { 'message-id': id },
  };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** One message for the whole broadcast, keyed by its list: the fan-out happens where the members are known. */
export function broadcastMessages(workspace: AuthenticatedWorkspace, broadcast: NormalisedBroadcast, messageId: string, now: Date): AcceptedMessages {
  const payload: BroadcastAccepted = withoutUndefined({
    message_id: messageId,
    workspace_slug: workspace.slug,
    ...broadcast,
    accepted_at: now.toISOString(),
  });
  return {
    audience: [],
    accepted: [
      {
        key: `${workspace.id}:${broadcast.list_id}`,
        value: JSON.stringify(envelopeOf(BROADCAST_ACCEPTED_TYPE, BROADCAST_ACCEPTED_VERSION, messageId, workspace.id, now, payload)),
        headers: { 'message-id': messageId },
      },
    ],
  };
}
