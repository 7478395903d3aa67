import { randomUUID } from 'node:crypto';
import { JsonRecord, Recipient, TRIGGER_ACCEPTED_TYPE, TriggerAccepted, deterministicUuid, envelopeOf, recipientKey } from '@herald/contracts';

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
