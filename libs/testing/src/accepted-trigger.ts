import { randomUUID } from 'node:crypto';
import {
  JsonRecord,
  Recipient,
  TRIGGER_ACCEPTED_TYPE,
  TRIGGER_CHUNK_ACCEPTED_TYPE,
  TRIGGER_CHUNK_ACCEPTED_VERSION,
  TriggerAccepted,
  TriggerChunkAccepted,
  deterministicUuid,
  envelopeOf,
  recipientKey,
  triggerChunkId,
  triggerRecipientId,
} from '@herald/contracts';

export interface AcceptedTriggerOptions {
  /** The trigger's message_id, as the client got it; a fresh one unless given. */
  readonly messageId?: string;
  readonly acceptedAt?: Date;
  readonly workspaceSlug?: string;
}

/**
 * A `trigger.accepted` message for one recipient, as ingest-api publishes it (the run id
 * derives from the message id and the recipient's index 0), for tests and benches that
 * feed the engine without ingest.
 */
export function acceptedTrigger(
  workspaceId: string,
  workflow: string,
  recipient: Recipient,
  data: JsonRecord,
  { messageId = randomUUID(), acceptedAt = new Date(), workspaceSlug = 'staging' }: AcceptedTriggerOptions = {},
): { readonly runId: string; readonly message: { readonly key: string; readonly value: string } } {
  const runId = deterministicUuid(messageId, '0');
  const payload: TriggerAccepted = {
    message_id: messageId,
    recipient_index: 0,
    recipient_count: 1,
    workspace_slug: workspaceSlug,
    workflow,
    recipient,
    data,
    attachments: [],
    accepted_via: 'api',
    accepted_at: acceptedAt.toISOString(),
  };
  return { runId, message: { key: recipientKey(workspaceId, recipient, runId), value: JSON.stringify(envelopeOf(TRIGGER_ACCEPTED_TYPE, 1, runId, workspaceId, acceptedAt, payload)) } };
}

/**
 * A `trigger.chunk_accepted` message: one trigger for all `recipients`, as ingest-api
 * publishes a chunk (keyed by its first recipient's key; run ids derive from the
 * message id and each recipient's index), for tests and benches that feed the engine
 * without ingest.
 */
export function acceptedTriggerChunk(
  workspaceId: string,
  workflow: string,
  recipients: readonly Recipient[],
  data: JsonRecord,
  { messageId = randomUUID(), acceptedAt = new Date(), workspaceSlug = 'staging' }: AcceptedTriggerOptions = {},
): { readonly runIds: readonly string[]; readonly message: { readonly key: string; readonly value: string } } {
  const runIds = recipients.map((_, index) => triggerRecipientId(messageId, index));
  const payload: TriggerChunkAccepted = {
    message_id: messageId,
    recipient_count: recipients.length,
    workspace_slug: workspaceSlug,
    workflow,
    recipients: recipients.map((recipient, index) => ({ index, recipient })),
    data,
    attachments: [],
    accepted_via: 'api',
    accepted_at: acceptedAt.toISOString(),
  };
  const id = triggerChunkId(messageId, 0);
  return {
    runIds,
    message: { key: recipientKey(workspaceId, recipients[0], runIds[0]), value: JSON.stringify(envelopeOf(TRIGGER_CHUNK_ACCEPTED_TYPE, TRIGGER_CHUNK_ACCEPTED_VERSION, id, workspaceId, acceptedAt, payload)) },
  };
}
