import {
  AUDIENCE_CHANGED_TYPE,
  AUDIENCE_CHANGED_VERSION,
  AcceptedVia,
  BROADCAST_ACCEPTED_TYPE,
  BROADCAST_ACCEPTED_VERSION,
  BroadcastAccepted,
  EVENT_ACCEPTED_TYPE,
  EVENT_ACCEPTED_VERSION,
  EventAccepted,
  InlineProfileUpdate,
  MAX_CHUNK_RECIPIENTS,
  NormalisedEvent,
  NormalisedTrigger,
  Recipient,
  TRIGGER_CHUNK_ACCEPTED_TYPE,
  TRIGGER_CHUNK_ACCEPTED_VERSION,
  TriggerChunkAccepted,
  UserOperationsUpdate,
  deterministicUuid,
  envelopeMessage,
  envelopeOf,
  recipientKey,
  triggerChunkId,
  triggerRecipientId,
  userKey,
} from '@herald/contracts';
import { OutgoingMessage, RECORD_BATCH_OVERHEAD, partitionFor, recordBytes } from '@herald/bus';
import type { AuthenticatedWorkspace } from '@herald/runtime';
import type { NormalisedBroadcast, NormalisedIdentityEvent } from '../validation';

/** What one accepted request puts on the bus, topic by topic. Pure: ids and time are inputs. */
export interface AcceptedMessages {
  /** `notify.audience.changed.v1`: inline profile data (published first, see TriggerAcceptance). */
  readonly audience: OutgoingMessage[];
  /** `notify.trigger.chunk_accepted.v1`, `notify.event.accepted.v1` or `notify.broadcast.accepted.v1`. */
  readonly accepted: OutgoingMessage[];
}

/** What bounds a chunk besides `MAX_CHUNK_RECIPIENTS`: the topic's partitions and the bus's message size. */
export interface ChunkLimits {
  /** Partitions of the chunk topic (`HERALD_KAFKA_PARTITIONS`): a chunk holds recipients of one partition. */
  readonly partitions: number;
  /** `HERALD_BUS_MAX_MESSAGE_BYTES`: a chunk is closed before it would be larger. */
  readonly maxMessageBytes: number;
}

interface OpenChunk {
  readonly key: string;
  readonly id: string;
  readonly entries: string[];
  /** Bytes the chunk's record takes with its entries so far. */
  bytes: number;
}

/**
 * The trigger's recipients in chunks (`notify.trigger.chunk_accepted.v1`): grouped by
 * the partition of each recipient's own key, in recipient order, a new chunk when one
 * would exceed `MAX_CHUNK_RECIPIENTS` or the bus's message size. Each chunk is keyed by
 * its first recipient's key, so it lands on the partition each of its recipients
 * would have had alone (ordering per recipient is kept; see the contract).
 *
 * Hot path: chunks differ only in their id and recipients, so the rest of the JSON is
 * serialised once per trigger and each value is spliced together. Each value is byte
 * for byte `JSON.stringify(envelopeOf(TRIGGER_CHUNK_ACCEPTED_TYPE, ..., payload))` with
 * the payload's fields in TriggerChunkAccepted's order (accepted-messages.unit.spec.ts
 * holds it to that). A recipient's run id (a SHA-256) is left to the engine, but for a
 * transient user, whose key is made of it.
 */
export function triggerMessages(
  workspace: AuthenticatedWorkspace,
  trigger: NormalisedTrigger,
  messageId: string,
  via: AcceptedVia,
  now: Date,
  limits: ChunkLimits,
): AcceptedMessages {
  const at = now.toISOString();
  // The payload's fields after `recipients`; JSON.stringify leaves out the undefined ones.
  const rest: Omit<TriggerChunkAccepted, 'message_id' | 'recipient_count' | 'workspace_slug' | 'workflow' | 'recipients'> = {
    actor: trigger.actor,
    data: trigger.data,
    attachments: trigger.attachments,
    tenant_id: trigger.tenant_id,
    idempotency_key: trigger.idempotency_key,
    accepted_via: via,
    accepted_at: at,
    inline_workflow: trigger.inline_workflow,
  };
  const beforeId = `{"type":${JSON.stringify(TRIGGER_CHUNK_ACCEPTED_TYPE)},"schema_version":${JSON.stringify(TRIGGER_CHUNK_ACCEPTED_VERSION)},"message_id":`;
  const beforeRecipients =
    `,"workspace_id":${JSON.stringify(workspace.id)},"produced_at":${JSON.stringify(at)},` +
    `"payload":{"message_id":${JSON.stringify(messageId)},"recipient_count":${trigger.recipients.length},` +
    `"workspace_slug":${JSON.stringify(workspace.slug)},"workflow":${JSON.stringify(trigger.workflow)},"recipients":[`;
  // `rest` always holds accepted_via, so its JSON is never `{}`: drop its `{`, close payload and envelope.
  const afterRecipients = `],${JSON.stringify(rest).slice(1)}}`;
  // Every chunk id is a UUID: the envelope around the entries has the same size in every chunk.
  const envelopeBytes = Buffer.byteLength(beforeId) + 38 + Buffer.byteLength(beforeRecipients) + Buffer.byteLength(afterRecipients);

  const accepted: OutgoingMessage[] = [];
  const close = (chunk: OpenChunk): void => {
    accepted.push({
      key: chunk.key,
      value: `${beforeId}"${chunk.id}"${beforeRecipients}${chunk.entries.join(',')}${afterRecipients}`,
      headers: { 'message-id': chunk.id, 'trigger-message-id': messageId },
    });
  };
  const open = new Map<number, OpenChunk>();
  trigger.recipients.forEach((recipient, index) => {
    const transient = recipient.kind === 'user' && recipient.distinct_id === null;
    const key = recipientKey(workspace.id, recipient, transient ? triggerRecipientId(messageId, index) : '');
    const partition = partitionFor('', key, limits.partitions);
    const entry = `{"index":${index},"recipient":${JSON.stringify(recipient)}}`;
    const entryBytes = Buffer.byteLength(entry) + 1;
    let chunk = open.get(partition);
    if (chunk && (chunk.entries.length >= MAX_CHUNK_RECIPIENTS || chunk.bytes + entryBytes > limits.maxMessageBytes)) {
      close(chunk);
      chunk = undefined;
    }
    if (!chunk) {
      const id = triggerChunkId(messageId, index);
      const headers = { 'message-id': id, 'trigger-message-id': messageId };
      chunk = { key, id, entries: [], bytes: RECORD_BATCH_OVERHEAD + recordBytes({ key, value: '', headers }) + envelopeBytes };
      open.set(partition, chunk);
    }
    // A first entry too large alone still goes: the bus refuses it as a per-recipient message would have been.
    chunk.entries.push(entry);
    chunk.bytes += entryBytes;
  });
  for (const chunk of open.values()) close(chunk);
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
      envelopeMessage(userKey(workspace.id, event.distinct_id), envelopeOf(EVENT_ACCEPTED_TYPE, EVENT_ACCEPTED_VERSION, messageId, workspace.id, now, payload)),
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
      envelopeMessage(userKey(workspace.id, identity.distinct_id), envelopeOf(AUDIENCE_CHANGED_TYPE, AUDIENCE_CHANGED_VERSION, id, workspace.id, now, update)),
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
  return envelopeMessage(key, envelopeOf(AUDIENCE_CHANGED_TYPE, AUDIENCE_CHANGED_VERSION, id, workspace.id, now, update));
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
      envelopeMessage(`${workspace.id}:${broadcast.list_id}`, envelopeOf(BROADCAST_ACCEPTED_TYPE, BROADCAST_ACCEPTED_VERSION, messageId, workspace.id, now, payload)),
    ],
  };
}
