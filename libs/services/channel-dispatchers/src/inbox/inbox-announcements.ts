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
  outboxMessageOf,
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
  return onInboxTopic(INBOX_UPDATED_TYPE, INBOX_UPDATED_VERSION, update);
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
  return onInboxTopic(INBOX_BULK_UPDATED_TYPE, INBOX_BULK_UPDATED_VERSION, update);
}

/** An inbox announcement for the outbox, on the inbox's topic keyed by recipient, with a random id (each change is news). */
function onInboxTopic(type: string, version: number, update: { readonly workspace_id: string; readonly distinct_id: string }): OutboxMessage {
  return outboxMessageOf(TOPICS.inboxUpdated.name, userKey(update.workspace_id, update.distinct_id), envelopeOf(type, version, randomUUID(), update.workspace_id, new Date(), update));
}
