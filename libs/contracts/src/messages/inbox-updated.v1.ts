import { FieldError, ParseResult } from '../envelope';

/**
 * `notify.inbox.updated.v1`: an inbox message was stored for a recipient, or its seen,
 * read, archived or clicked state changed. channel-dispatchers publishes it (from its
 * outbox, in the transaction of the change) and every replica reads all of it (a group
 * per replica), so a browser's event stream gets the item on whichever replica holds
 * the connection.
 */
export const INBOX_UPDATED_TYPE = 'inbox.updated';
export const INBOX_UPDATED_VERSION = 1;

export interface InboxItemState {
  readonly id: string;
  readonly created_at: string;
  readonly title: string | null;
  readonly body: string;
  readonly avatar: string | null;
  readonly action_url: string | null;
  readonly seen_at: string | null;
  readonly read_at: string | null;
  readonly archived_at: string | null;
  readonly clicked_at: string | null;
}

export interface InboxUpdated {
  readonly workspace_id: string;
  readonly distinct_id: string;
  /** The message's tenant (absent: the trigger named none, the `default` tenant): a stream scoped to a tenant shows only its messages. */
  readonly tenant_id?: string;
  readonly change: 'added' | 'updated';
  readonly item: InboxItemState;
  /**
   * Set on each message's update of a bulk change (mark all read, bulk seen), which an
   * `inbox.bulk_updated` message announces as a whole after them: a reader that shows
   * bulk changes whole (the web SDK's socket) passes these over.
   */
  readonly bulk?: true;
}

/**
 * `inbox.bulk_updated`, on the same topic and key: a change of many of a recipient's
 * messages at once (`all_read`; `seen`, with the ids marked) or the badge reset
 * (`badge_reset`), published after the messages' own updates. A reader of
 * `inbox.updated` alone skips it by its type.
 */
export const INBOX_BULK_UPDATED_TYPE = 'inbox.bulk_updated';
export const INBOX_BULK_UPDATED_VERSION = 1;

export interface InboxBulkUpdated {
  readonly workspace_id: string;
  readonly distinct_id: string;
  /** The tenant the change was made in; absent: every tenant of the recipient (a caller who sees them all). */
  readonly tenant_id?: string;
  readonly change: 'all_read' | 'seen' | 'badge_reset';
  /** `seen` only: the messages marked. */
  readonly notification_ids?: readonly string[];
}

export function parseInboxBulkUpdated(payload: unknown): ParseResult<InboxBulkUpdated> {
  const value = (payload ?? {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const field of ['workspace_id', 'distinct_id']) {
    if (typeof value[field] !== 'string' || value[field] === '') errors.push({ path: `payload.${field}`, message: 'must be a non-empty string' });
  }
  if (value.tenant_id !== undefined && (typeof value.tenant_id !== 'string' || value.tenant_id === '')) {
    errors.push({ path: 'payload.tenant_id', message: 'must be a non-empty string when present' });
  }
  if (value.change !== 'all_read' && value.change !== 'seen' && value.change !== 'badge_reset') errors.push({ path: 'payload.change', message: 'must be all_read, seen or badge_reset' });
  const ids = value.notification_ids;
  if (value.change === 'seen' && (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))) {
    errors.push({ path: 'payload.notification_ids', message: 'must be an array of message ids when change is seen' });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as unknown as InboxBulkUpdated };
}

export function parseInboxUpdated(payload: unknown): ParseResult<InboxUpdated> {
  const value = (payload ?? {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const field of ['workspace_id', 'distinct_id']) {
    if (typeof value[field] !== 'string' || value[field] === '') errors.push({ path: `payload.${field}`, message: 'must be a non-empty string' });
  }
  if (value.tenant_id !== undefined && (typeof value.tenant_id !== 'string' || value.tenant_id === '')) {
    errors.push({ path: 'payload.tenant_id', message: 'must be a non-empty string when present' });
  }
  if (value.change !== 'added' && value.change !== 'updated') errors.push({ path: 'payload.change', message: 'must be added or updated' });
  if (value.bulk !== undefined && value.bulk !== true) errors.push({ path: 'payload.bulk', message: 'must be true when present' });
  const item = value.item as Record<string, unknown> | null | undefined;
  if (typeof item !== 'object' || item === null) {
    errors.push({ path: 'payload.item', message: 'must be an object' });
  } else {
    for (const field of ['id', 'created_at', 'body']) {
      if (typeof item[field] !== 'string') errors.push({ path: `payload.item.${field}`, message: 'must be a string' });
    }
    for (const field of ['title', 'avatar', 'action_url', 'seen_at', 'read_at', 'archived_at', 'clicked_at']) {
      if (item[field] !== null && typeof item[field] !== 'string') errors.push({ path: `payload.item.${field}`, message: 'must be a string or null' });
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as unknown as InboxUpdated };
}
