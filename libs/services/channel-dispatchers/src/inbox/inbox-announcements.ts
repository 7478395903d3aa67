import { randomUUID } from 'node:crypto';
import {
  INBOX_BULK_UPDATED_TYPE,
  INBOX_BULK_UPDATED_VERSION,
  INBOX_UPDATED_TYPE,
  INBOX_UPDATED_VERSION,
  InboxBulkUpdated,
  InboxUpdated,
  TOPICS,
  envelopeOf,
  userKey,
} from '@herald/contracts';
import { OutboxMessage } from '@herald/event-store';
import { InboxOwner } from './inbox-owner';

/**
 * The inbox's announcements on notify.inbox.updated.v1 (for open event streams and
 * sockets), built for the outbox: keyed by recipient, so one recipient's changes stay in
 * order; a random id, since each change is news.
 */
export function inboxUpdatedMessage(update: InboxUpdated): OutboxMessage {
  const messageId = randomUUID();
  return {
    messageId,
    topic: TOPICS.inboxUpdated.name,
    key: userKey(update.workspace_id, update.distinct_id),
    value: JSON.stringify(envelopeOf(INBOX_UPDATED_TYPE, INBOX_UPDATED_VERSION, messageId, update.workspace_id, new Date(), update)),
    headers: { 'message-id': messageId },
  };
}

export function bulkUpdateOf(owner: InboxOwner, change: InboxBulkUpdated['change'], notificationIds?: readonly string[]): InboxBulkUpdated {
  return {
    workspace_id: owner.workspaceId,
    distinct_id: owner.distinctId,
    ...(owner.tenantId === undefined ? {} : { tenant_id: owner.tenantId }),
    change,
    ...(notificationIds === undefined ? {} : { notification_ids: notificationIds }),
  };
}

/** On the inbox's topic and key, after the updates of the change it sums up. */
export function inboxBulkUpdatedMessage(update: InboxBulkUpdated): OutboxMessage {
  const messageId = randomUUID();
  return {
    messageId,
    topic: TOPICS.inboxUpdated.name,
    key: userKey(update.workspace_id, update.distinct_id),
    value: JSON.stringify(envelopeOf(INBOX_BULK_UPDATED_TYPE, INBOX_BULK_UPDATED_VERSION, messageId, update.workspace_id, new Date(), update)),
    headers: { 'message-id': messageId },
  };
}
