import { randomUUID } from 'node:crypto';
import { AUDIENCE_CHANGED_TYPE, AUDIENCE_CHANGED_VERSION, AudienceChanged, AudienceSubject, TOPICS, envelopeOf } from '@herald/contracts';
import { OutboxMessage, eventStoreTables } from '@herald/event-store';

/** The audience outbox table, as the event store names it. */
export const AUDIENCE_OUTBOX = eventStoreTables('audience').outbox;

/** The partition key of a change: the recipient's for users and objects, the workspace's for tenants and lists. */
export function audienceKey(workspaceId: string, change: AudienceChanged): string {
  switch (change.kind) {
    case 'inline_profile':
    case 'profile':
    case 'preferences':
      return subjectKey(workspaceId, change.subject);
    case 'object_subscriptions':
      return subjectKey(workspaceId, { type: 'object', ...change.object });
    case 'tenant':
    case 'list':
    case 'list_subscribers':
      return workspaceId;
  }
}

export function subjectKey(workspaceId: string, subject: AudienceSubject): string {
  return subject.type === 'user' ? `${workspaceId}:${subject.distinct_id}` : `${workspaceId}:${subject.object_type}:${subject.id}`;
}

/** The outbox row announcing a committed change on `notify.audience.changed.v1`. */
export function audienceChangedMessage(workspaceId: string, change: AudienceChanged, now: Date): OutboxMessage {
  const messageId = randomUUID();
  return {
    messageId,
    topic: TOPICS.audienceChanged.name,
    key: audienceKey(workspaceId, change),
    value: JSON.stringify(envelopeOf(AUDIENCE_CHANGED_TYPE, AUDIENCE_CHANGED_VERSION, messageId, workspaceId, now, change)),
    headers: { 'message-id': messageId },
  };
}
