import { randomUUID } from 'node:crypto';
import { AUDIENCE_CHANGED_TYPE, AUDIENCE_CHANGED_VERSION, AudienceChanged, AudienceSubject, JsonRecord, TOPICS, envelopeOf, outboxMessageOf } from '@herald/contracts';
import { OutboxMessage, eventStoreTables } from '@herald/event-store';
import { recordAnnounced } from './audience-write-visibility';

/** The audience outbox table, as the event store names it. */
export const AUDIENCE_OUTBOX = eventStoreTables('audience').outbox;

/** The partition key of a change: the recipient's for users and objects, the workspace's for tenants and lists. */
export function audienceKey(workspaceId: string, change: AudienceChanged): string {
  switch (change.kind) {
    case 'inline_profile':
    case 'profile':
    case 'preferences':
      return subjectKey(workspaceId, change.subject);
    case 'user_operations':
      return subjectKey(workspaceId, { type: 'user', distinct_id: change.distinct_id });
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
  recordAnnounced(messageId, change);
  return outboxMessageOf(TOPICS.audienceChanged.name, audienceKey(workspaceId, change), envelopeOf(AUDIENCE_CHANGED_TYPE, AUDIENCE_CHANGED_VERSION, messageId, workspaceId, now, change));
}

/** Subjects per `object_subscriptions` announcement, so that dropping an object with many subscribers stays within the broker's message size. */
export const SUBJECTS_PER_ANNOUNCEMENT = 1000;

/** The announcements of subscriptions added to or removed from one object, in chunks of SUBJECTS_PER_ANNOUNCEMENT. */
export function subscriptionMessages(
  workspace: { readonly id: string; readonly slug: string },
  object: { readonly object_type: string; readonly id: string },
  change: { readonly added?: readonly AudienceSubject[]; readonly removed?: readonly AudienceSubject[]; readonly properties?: JsonRecord },
  now: Date,
): OutboxMessage[] {
  const chunks = (subjects: readonly AudienceSubject[] = []): AudienceSubject[][] =>
    Array.from({ length: Math.ceil(subjects.length / SUBJECTS_PER_ANNOUNCEMENT) }, (_, i) => subjects.slice(i * SUBJECTS_PER_ANNOUNCEMENT, (i + 1) * SUBJECTS_PER_ANNOUNCEMENT));
  const base = { kind: 'object_subscriptions' as const, workspace_slug: workspace.slug, object: { object_type: object.object_type, id: object.id } };
  return [
    ...chunks(change.added).map((added) => audienceChangedMessage(workspace.id, { ...base, added, removed: [], ...(change.properties ? { properties: change.properties } : {}) }, now)),
    ...chunks(change.removed).map((removed) => audienceChangedMessage(workspace.id, { ...base, added: [], removed }, now)),
  ];
}
