import { randomUUID } from 'node:crypto';
import {
  CREDENTIALS_CHANGED_TYPE,
  CREDENTIALS_CHANGED_VERSION,
  CredentialsChanged,
  DEFINITION_CHANGED_TYPE,
  DEFINITION_CHANGED_VERSION,
  DefinitionChanged,
  TOPICS,
  envelopeOf,
  outboxMessageOf,
} from '@herald/contracts';
import { OutboxMessage, eventStoreTables } from '@herald/event-store';
import { recordAnnounced } from './announced-changes';
import { recordAnnouncedCredentials } from './credentials-visibility';

/** management's outbox table, as the event store names it. */
export const MANAGEMENT_OUTBOX = eventStoreTables('management').outbox;

/** The outbox row announcing a credentials change, keyed by workspace so changes of one workspace stay in order. */
export function credentialsChangedMessage(change: CredentialsChanged, now: Date): OutboxMessage {
  const message = outboxMessage(TOPICS.credentialsChanged.name, CREDENTIALS_CHANGED_TYPE, CREDENTIALS_CHANGED_VERSION, change.workspace_id, change, now);
  recordAnnouncedCredentials(message.messageId, change);
  return message;
}

/** The outbox row announcing that a workflow, template, category set or vendor changed. */
export function definitionChangedMessage(change: DefinitionChanged, now: Date): OutboxMessage {
  recordAnnounced(change);
  return outboxMessage(TOPICS.definitionChanged.name, DEFINITION_CHANGED_TYPE, DEFINITION_CHANGED_VERSION, change.workspace_id, change, now);
}

function outboxMessage(topic: string, type: string, version: number, workspaceId: string, payload: unknown, now: Date): OutboxMessage {
  return outboxMessageOf(topic, workspaceId, envelopeOf(type, version, randomUUID(), workspaceId, now, payload));
}
