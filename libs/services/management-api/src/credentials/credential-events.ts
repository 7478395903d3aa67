import { randomUUID } from 'node:crypto';
import {
  CREDENTIALS_CHANGED_TYPE,
  CREDENTIALS_CHANGED_VERSION,
  CredentialsChanged,
  TOPICS,
  envelopeOf,
} from '@herald/contracts';
import { OutboxMessage } from '@herald/event-store';

/** The outbox row announcing a credentials change, keyed by workspace so changes of one workspace stay in order. */
export function credentialsChangedMessage(change: CredentialsChanged, now: Date): OutboxMessage {
  const messageId = randomUUID();
  const envelope = envelopeOf(CREDENTIALS_CHANGED_TYPE, CREDENTIALS_CHANGED_VERSION, messageId, change.workspace_id, now, change);
  return {
    messageId,
    topic: TOPICS.credentialsChanged.name,
    key: change.workspace_id,
    value: JSON.stringify(envelope),
    headers: { 'message-id': messageId },
  };
}

export const MANAGEMENT_OUTBOX = '"management".outbox';
