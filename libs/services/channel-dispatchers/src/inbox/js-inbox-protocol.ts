import { createHmac, timingSafeEqual } from 'node:crypto';
import { FieldError, HeraldError, InboxBulkUpdated, MAX_ID_LENGTH } from '@herald/contracts';
import { JsInboxAction, MAX_SUBSCRIBER_ID_LENGTH } from '../http/dispatch-schemas';
import { FeedFilter, FeedItem, FeedStore, ALL_NOT_ARCHIVED, readFeedCountQuery } from './feed-query';
import { InboxUpdate } from './inbox-owner';

/**
 * SuprSend's older inbox protocol, as `@suprsend/js-inbox` 2.x (under
 * `@suprsend/react-inbox` 3.x) speaks it: a workspace key in `Authorization`
 * (`<workspace_key>:<anything>`), the user as `distinct_id` with its `subscriber_id`
 * (HMAC-SHA256 of the distinct id under the workspace secret, URL-safe base64 without
 * padding, made by the customer's backend), in the query or the JSON body. Pure: the
 * routes (http/js-inbox.controller.ts) and the socket (http/js-inbox-sockets.ts) host it.
 *
 * In this protocol a message's `seen_on` is when it was read: the SDK marks a message
 * read by setting `seen_on`, clears it to mark it unread, and counts "unseen" as unread.
 * `ss_bell_count` is the bell's badge (Herald's feed badge: unseen since the bell was
 * last opened).
 */

/** The SDK caps its pages at 50. */
export const MAX_JS_INBOX_PAGE_SIZE = 50;
const DEFAULT_JS_INBOX_PAGE_SIZE = 20;
/** Beyond this a page number is no scroll of a bell's list. */
const MAX_PAGE_NUMBER = 10_000;
const MAX_WORKSPACE_KEY_LENGTH = 256;

/** Who a request claims to be: the workspace key, and the user with the subscriber id proving it. */
export interface JsInboxCredential {
  readonly workspaceKey: string;
  readonly distinctId: string;
  readonly subscriberId: string;
  /** The SDK sends `default` unless the page set `tenantId`; the action and click calls send none. */
  readonly tenantId?: string;
}

/** What `subscriber_id` must be for `distinctId`: HMAC-SHA256(secret, distinct_id), URL-safe base64, no padding (SuprSend's `hmac_rawurlsafe_base64_string`). */
export function subscriberIdOf(distinctId: string, secret: string): string {
  return createHmac('sha256', secret).update(distinctId).digest('base64url');
}

/** Whether `subscriberId` proves `distinctId` under one of the workspace key's secrets (constant time per secret). */
export function subscriberIdMatches(subscriberId: string, distinctId: string, secrets: readonly string[]): boolean {
  const presented = Buffer.from(subscriberId);
  return secrets.some((secret) => {
    const expected = Buffer.from(subscriberIdOf(distinctId, secret));
    return expected.length === presented.length && timingSafeEqual(expected, presented);
  });
}

/** The workspace key of `Authorization: <workspace_key>:<nonce>` (the SDK sends a random nonce, or nothing, after the colon; it signs nothing). */
export function workspaceKeyOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const colon = authorization.indexOf(':');
  const key = colon < 0 ? authorization : authorization.slice(0, colon);
  return key === '' || key.length > MAX_WORKSPACE_KEY_LENGTH || /\s/.test(key) ? undefined : key;
}

/**
 * The user fields of a call (`distinct_id`, `subscriber_id`, `tenant_id`), from the query
 * of a GET or the body of a POST (or a socket's connect payload, `prefix` `auth.`):
 * 400 naming each missing or malformed one. Code rather than JsInboxUserSchema: it reads
 * a query and a socket's payload too, before any route's body pipe, and words a missing
 * field by its own limit; the schema (which the POSTs' bodies declare) has the same limits.
 */
export function readJsInboxUser(source: unknown, prefix = ''): { distinctId: string; subscriberId: string; tenantId?: string } {
  const fields = typeof source === 'object' && source !== null && !Array.isArray(source) ? (source as Record<string, unknown>) : {};
  const errors: FieldError[] = [];
  const text = (name: string, max: number, required: boolean): string | undefined => {
    const value = fields[name];
    if ((value === undefined || value === null) && !required) return undefined;
    if (typeof value !== 'string' || value === '' || value.length > max) {
      errors.push({ path: `${prefix}${name}`, message: `${required ? 'is required: ' : 'must be '}a string of 1 to ${max} characters` });
      return undefined;
    }
    return value;
  };
  const distinctId = text('distinct_id', MAX_ID_LENGTH, true);
  const subscriberId = text('subscriber_id', MAX_SUBSCRIBER_ID_LENGTH, true);
  const tenantId = text('tenant_id', MAX_ID_LENGTH, false);
  if (errors.length > 0 || distinctId === undefined || subscriberId === undefined) throw HeraldError.validation(errors);
  return { distinctId, subscriberId, ...(tenantId === undefined ? {} : { tenantId }) };
}

export interface JsInboxPageQuery {
  readonly pageNumber: number;
  readonly pageSize: number;
  /** `before`: the time (ms) of the SDK's first fetch; later messages reach it over the socket. */
  readonly createdBeforeMs?: number;
  readonly filter: FeedFilter;
}

/** `GET /notifications/`: `page_no` (from 1), `page_size`, `before` (ms) and `store` (JSON `{store_id, query}`). */
export function readJsInboxPageQuery(query: Record<string, unknown>): JsInboxPageQuery {
  const errors: FieldError[] = [];
  const integer = (name: string, min: number, max: number, fallback: number | undefined): number | undefined => {
    const value = query[name];
    if (value === undefined) return fallback;
    const parsed = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      errors.push({ path: name, message: `must be an integer from ${min} to ${max}` });
      return undefined;
    }
    return parsed;
  };
  const pageNumber = integer('page_no', 1, MAX_PAGE_NUMBER, 1) ?? 1;
  const pageSize = integer('page_size', 1, MAX_JS_INBOX_PAGE_SIZE, DEFAULT_JS_INBOX_PAGE_SIZE) ?? DEFAULT_JS_INBOX_PAGE_SIZE;
  const createdBeforeMs = integer('before', 0, Number.MAX_SAFE_INTEGER, undefined);
  let filter = ALL_NOT_ARCHIVED;
  if (query.store !== undefined) {
    try {
      // The store parameter is the feed's (`{store_id, query: {read, archived, tags: {or}, categories: {or}}}`).
      filter = readFeedCountQuery({ stores: typeof query.store === 'string' ? `[${query.store}]` : query.store })[0]?.filter ?? ALL_NOT_ARCHIVED;
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
      errors.push(...error.fieldErrors.map((field) => ({ path: field.path.replace(/^stores(\[0\])?/, 'store'), message: field.message })));
    }
  }
  if (errors.length > 0) throw HeraldError.validation(errors);
  return { pageNumber, pageSize, ...(createdBeforeMs === undefined ? {} : { createdBeforeMs }), filter };
}

/** `GET /notification_count/`: `stores` as the feed reads them. */
export function readJsInboxCountQuery(query: Record<string, unknown>): readonly FeedStore[] {
  return readFeedCountQuery(query);
}

/** A message as the SDK reads it: the feed's item, with `seen_on` the time it was read (this protocol's "seen"). */
export type JsInboxItem = Omit<FeedItem, 'seen_on'> & { readonly seen_on: number | null };

export function jsInboxItemOf(item: FeedItem): JsInboxItem {
  return { ...item, seen_on: item.read_on };
}

/** `{results, meta}` of a page: the SDK asks for the next page while `current_page < total_pages`. */
export function jsInboxPageOf(items: readonly FeedItem[], totalCount: number, query: JsInboxPageQuery): { results: JsInboxItem[]; meta: { current_page: number; total_pages: number; total_count: number; page_size: number } } {
  return {
    results: items.map(jsInboxItemOf),
    meta: { current_page: query.pageNumber, total_pages: Math.ceil(totalCount / query.pageSize), total_count: totalCount, page_size: query.pageSize },
  };
}

/** What `POST /notification/{id}/action` does (`{action}`, which JsInboxActionSchema checks). */
const ACTIONS: Readonly<Record<JsInboxAction, InboxUpdate>> = {
  read: { read: true },
  unread: { read: false },
  archive: { archived: true },
};

export function jsInboxUpdateOf(action: JsInboxAction): InboxUpdate {
  return ACTIONS[action];
}

/** What the SDK's socket hears: `new_notification` and `notification_updated` (`{n_id}`, with `type: "archive"` for an archived one), `mark_all_read`, `update_badge`. */
export type JsInboxSocketEvent =
  | { readonly name: 'new_notification'; readonly payload: { readonly n_id: string } }
  | { readonly name: 'notification_updated'; readonly payload: { readonly n_id: string; readonly type?: 'archive' } }
  | { readonly name: 'mark_all_read' | 'update_badge'; readonly payload: Record<string, never> };

/** A message stored (`item`) or changed (`update`), as InboxStreams hands it to a sink; nothing for its `ping`. */
export function jsInboxEventOfItem(streamEvent: string, item: { readonly id: string; readonly archived_at?: string | null }): JsInboxSocketEvent | undefined {
  if (streamEvent === 'item') return { name: 'new_notification', payload: { n_id: item.id } };
  if (streamEvent === 'update') return { name: 'notification_updated', payload: item.archived_at ? { n_id: item.id, type: 'archive' } : { n_id: item.id } };
  return undefined;
}

/** Bulk changes: all read and the badge reset; a bulk "seen" (the newer SDK's) changes nothing this SDK shows but the badge, which it reads with the next count. */
export function jsInboxEventOfBulk(update: InboxBulkUpdated): JsInboxSocketEvent | undefined {
  if (update.change === 'all_read') return { name: 'mark_all_read', payload: {} };
  if (update.change === 'badge_reset') return { name: 'update_badge', payload: {} };
  return undefined;
}
