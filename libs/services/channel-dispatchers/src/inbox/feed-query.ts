import { FieldError, HeraldError } from '@herald/contracts';
import type { InboxExtras } from './inbox.entities';

/**
 * SuprSend's feed API (`/v1/feed/`, as `@suprsend/web-sdk` 4.x calls it) over Herald's
 * inbox: its query parameters read and checked, and the item shape it reads. Pure.
 */

/** The SDK asks for at most 100 a page (20 by default). */
export const MAX_FEED_PAGE_SIZE = 100;
const DEFAULT_FEED_PAGE_SIZE = 20;
/** A page's stores each add a count; more than a tab bar holds is no page's. */
const MAX_FEED_STORES = 20;
const MAX_STORE_VALUES = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A store (a tab) of the feed: which messages it shows. `read` absent: read or not; `archived`: only archived ones, or only the others. */
export interface FeedFilter {
  readonly read?: boolean;
  readonly archived: boolean;
  /** Any of these tags (`tags.or`); empty: no condition. */
  readonly tags: readonly string[];
  /** Any of these categories (`categories.or`); empty: no condition. */
  readonly categories: readonly string[];
}

export interface FeedStore {
  readonly storeId: string;
  readonly filter: FeedFilter;
}

/** The default store: every message not archived. */
export const ALL_NOT_ARCHIVED: FeedFilter = { archived: false, tags: [], categories: [] };

export interface FeedPageQuery {
  readonly pageSize: number;
  /** `search_after` (`[is_pinned, created_on]` of the previous page's last item): the page starts after it; absent on the first page. */
  readonly after?: FeedCursor;
  readonly filter: FeedFilter;
}

/** A place in the feed's order: pinned messages first, then newest first. */
export interface FeedCursor {
  readonly pinned: boolean;
  readonly createdMs: number;
}

/** What the SDK reads of a message (`n_id`, `created_on` in ms, `message.{header, text, url, …}`). */
export interface FeedItem {
  readonly n_id: string;
  readonly n_category: string | null;
  readonly created_on: number;
  readonly seen_on: number | null;
  readonly read_on: number | null;
  readonly interacted_on: number | null;
  readonly archived: boolean;
  readonly tags: readonly string[];
  readonly expiry: number | null;
  readonly is_expiry_visible: boolean;
  readonly is_pinned: boolean;
  readonly can_user_unpin: boolean;
  readonly message: {
    readonly schema: '1';
    readonly header: string | null;
    readonly text: string;
    readonly url: string | null;
    readonly open_in_new_tab: boolean;
    readonly avatar: { readonly avatar_url: string; readonly action_url: string | null } | null;
    readonly subtext: { readonly text: string; readonly action_url: string | null } | null;
    readonly actions: ReadonlyArray<{ readonly name: string; readonly url: string; readonly open_in_new_tab: boolean }>;
    readonly extra_data: string | null;
  };
}

/** A stored inbox message, with its workflow's category. */
export interface FeedRow {
  readonly id: string;
  readonly created_at: Date | string;
  readonly title: string | null;
  readonly body: string;
  readonly avatar: string | null;
  readonly action_url: string | null;
  readonly seen_at: Date | string | null;
  readonly read_at: Date | string | null;
  readonly archived_at: Date | string | null;
  readonly clicked_at: Date | string | null;
  readonly category: string | null;
  /** Pinned and not read yet (a read message leaves the top). */
  readonly is_pinned: boolean;
  readonly expires_at: Date | string | null;
  readonly tags: readonly string[];
  readonly extras: InboxExtras | null;
}

/** `GET /v1/feed/notifications`: `page_size`, `search_after` (`[is_pinned, created_on]`, or `[]`) and `store` (JSON). */
export function readFeedPageQuery(query: Record<string, unknown>): FeedPageQuery {
  const errors: FieldError[] = [];
  const pageSize = query.page_size === undefined ? DEFAULT_FEED_PAGE_SIZE : Number(query.page_size);
  if (typeof query.page_size !== 'undefined' && (typeof query.page_size !== 'string' || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_FEED_PAGE_SIZE)) {
    errors.push({ path: 'page_size', message: `must be an integer from 1 to ${MAX_FEED_PAGE_SIZE}` });
  }
  const after = readSearchAfter(query.search_after, errors);
  const store = query.store === undefined ? undefined : readStore(jsonParameter(query.store, 'store', errors), 'store', errors);
  if (errors.length > 0) throw HeraldError.validation(errors);
  return { pageSize, ...(after === undefined ? {} : { after }), filter: store?.filter ?? ALL_NOT_ARCHIVED };
}

/** `GET /v1/feed/notifications_count`: `stores` (a JSON array), each counted besides the badge. */
export function readFeedCountQuery(query: Record<string, unknown>): readonly FeedStore[] {
  const errors: FieldError[] = [];
  if (query.stores === undefined) return [];
  const stores = jsonParameter(query.stores, 'stores', errors);
  if (stores !== undefined && (!Array.isArray(stores) || stores.length > MAX_FEED_STORES)) errors.push({ path: 'stores', message: `must be a JSON array of at most ${MAX_FEED_STORES} stores` });
  const read = Array.isArray(stores) && errors.length === 0 ? stores.map((store, index) => readStore(store, `stores[${index}]`, errors)) : [];
  if (errors.length > 0) throw HeraldError.validation(errors);
  return read.filter((store): store is FeedStore => store !== undefined);
}

/** Whether a path's `n_id` can name a message at all (anything else is 404 without a lookup). */
export function isNotificationId(id: string): boolean {
  return UUID.test(id);
}

export function feedItemOf(row: FeedRow): FeedItem {
  const ms = (value: Date | string | null): number | null => (value === null ? null : new Date(value).getTime());
  const extras = row.extras ?? {};
  const expiry = ms(row.expires_at);
  return {
    n_id: row.id,
    n_category: row.category,
    created_on: new Date(row.created_at).getTime(),
    seen_on: ms(row.seen_at),
    read_on: ms(row.read_at),
    interacted_on: ms(row.clicked_at),
    archived: row.archived_at !== null,
    tags: row.tags,
    expiry,
    is_expiry_visible: expiry !== null && extras.expiry_visible === true,
    is_pinned: row.is_pinned,
    // Reading a message unpins it; there is no other unpin.
    can_user_unpin: false,
    message: {
      schema: '1',
      header: row.title,
      text: row.body,
      url: row.action_url,
      open_in_new_tab: extras.open_in_new_tab === true,
      avatar: row.avatar === null ? null : { avatar_url: row.avatar, action_url: extras.avatar_url ?? null },
      subtext: extras.subtext === undefined ? null : { text: extras.subtext.text, action_url: extras.subtext.url ?? null },
      actions: (extras.buttons ?? []).map((button) => ({ name: button.text, url: button.url, open_in_new_tab: button.open_in_new_tab === true })),
      extra_data: extras.extra_data ?? null,
    },
  };
}

function jsonParameter(value: unknown, path: string, errors: FieldError[]): unknown {
  if (typeof value !== 'string') {
    errors.push({ path, message: 'must be given once, as JSON' });
    return undefined;
  }
  try {
    return JSON.parse(value) as unknown;
  } catch {
    errors.push({ path, message: 'must be JSON' });
    return undefined;
  }
}

function readSearchAfter(value: unknown, errors: FieldError[]): FeedCursor | undefined {
  if (value === undefined) return undefined;
  const cursor = jsonParameter(value, 'search_after', errors);
  if (Array.isArray(cursor) && cursor.length === 0) return undefined;
  if (Array.isArray(cursor) && cursor.length === 2 && typeof cursor[0] === 'boolean' && Number.isSafeInteger(cursor[1]) && (cursor[1] as number) >= 0) {
    return { pinned: cursor[0], createdMs: cursor[1] as number };
  }
  if (cursor !== undefined) errors.push({ path: 'search_after', message: 'must be [] or [is_pinned, created_on] of the last message of the previous page' });
  return undefined;
}

function readStore(value: unknown, path: string, errors: FieldError[]): FeedStore | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    errors.push({ path, message: 'must be an object {store_id, query}' });
    return undefined;
  }
  const store = value as Record<string, unknown>;
  const before = errors.length;
  if (typeof store.store_id !== 'string' || store.store_id === '' || store.store_id.length > 255) errors.push({ path: `${path}.store_id`, message: 'must be a string of 1 to 255 characters' });
  const query = store.query ?? {};
  if (typeof query !== 'object' || query === null || Array.isArray(query)) {
    errors.push({ path: `${path}.query`, message: 'must be an object' });
    return undefined;
  }
  const q = query as Record<string, unknown>;
  for (const flag of ['read', 'archived'] as const) {
    if (q[flag] !== undefined && q[flag] !== null && typeof q[flag] !== 'boolean') errors.push({ path: `${path}.query.${flag}`, message: 'must be a boolean' });
  }
  const tags = readValues(q.tags, `${path}.query.tags`, errors);
  const categories = readValues(q.categories, `${path}.query.categories`, errors);
  if (errors.length > before) return undefined;
  return {
    storeId: store.store_id as string,
    filter: { ...(typeof q.read === 'boolean' ? { read: q.read } : {}), archived: q.archived === true, tags, categories },
  };
}

/** `{or: [..]}` as the SDK sends it (an array or one string taken too). */
function readValues(value: unknown, path: string, errors: FieldError[]): string[] {
  if (value === undefined || value === null) return [];
  const list = typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>).or : value;
  const values = typeof list === 'string' ? [list] : list;
  if (values === undefined) return [];
  if (!Array.isArray(values) || values.length > MAX_STORE_VALUES || values.some((item) => typeof item !== 'string')) {
    errors.push({ path: `${path}.or`, message: `must be an array of at most ${MAX_STORE_VALUES} strings` });
    return [];
  }
  return values as string[];
}
