import { Recipient } from './trigger-payload';

/**
 * The partition key of everything about one recipient (architecture brief, "Ordering
 * without locks"): `workspace:distinct_id` for users, `workspace:object_type:id` for
 * objects. A transient user has no identity, so each one is its own key.
 */
export function recipientKey(workspaceId: string, recipient: Recipient, transientId: string): string {
  if (recipient.kind === 'object') return `${workspaceId}:${recipient.object_type}:${recipient.id}`;
  return recipient.distinct_id === null ? `${workspaceId}:~transient:${transientId}` : `${workspaceId}:${recipient.distinct_id}`;
}

export function userKey(workspaceId: string, distinctId: string): string {
  return `${workspaceId}:${distinctId}`;
}
