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
