import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { returningRows } from '@herald/database';
import { writeOutbox } from '@herald/event-store';
import { DISPATCH_OUTBOX } from '../dispatch/dispatch-outbox.repository';
import { FeedCursor, FeedFilter, FeedItem, FeedPageQuery, FeedRow, FeedStore, feedItemOf } from './feed-query';
import { InboxBadgeReset, InboxBadgeResetEntity, InboxMessage, InboxMessageEntity } from './inbox.entities';
import { bulkUpdateOf, inboxBulkUpdatedMessage } from './inbox-announcements';
import { DEFAULT_TENANT, InboxOwner } from './inbox-owner';

/** The item's time as the SDK's `created_on` (ms), which is also its page cursor. */
const CREATED_MS = 'floor(extract(epoch FROM m.created_at) * 1000)::bigint';
/** A pinned message stays at the top until it is read (SuprSend's rule). */
const IS_PINNED = '(m.pinned AND m.read_at IS NULL)';
/** An expired message leaves the feed and its counts (it stays stored, and in Herald's own inbox API). */
const NOT_EXPIRED = '(m.expires_at IS NULL OR m.expires_at > now())';
const FEED_COLUMNS = `m.seq, m.id, m.created_at, m.title, m.body, m.avatar, m.action_url, m.seen_at, m.read_at, m.archived_at, m.clicked_at,
  d.command->>'category' AS category, ${CREATED_MS} AS created_ms, ${IS_PINNED} AS is_pinned, m.expires_at, m.tags, m.extras`;
/** The SDK's order: pinned first, then newest first; `seq` orders messages stored in the same millisecond. */
const FEED_ORDER = 'ORDER BY is_pinned DESC, created_ms DESC, m.seq DESC';
/**
 * The category is the workflow's, on the delivery that stored the message. The feed's reads
 * (page, numberedPage, counts, item) are hand-written over this join: the category is a
 * jsonb field of the delivery's command, and the order keys are computed (pinned until
 * read, `created_on` in ms), which the query builder would only carry as raw strings.
 */
const FEED_FROM = 'dispatch.inbox_messages m LEFT JOIN dispatch.deliveries d ON d.delivery_id = m.delivery_id';
/** Messages stored in one batch share a `created_on`; a page ends after all of them, up to this many. */
const MAX_SAME_MILLISECOND = 1000;

interface FeedRowWithCursor extends FeedRow {
  readonly seq: string;
  readonly created_ms: string;
}

export interface FeedPage {
  readonly results: readonly FeedItem[];
  readonly totalCount: number;
  readonly hasMore: boolean;
}

/** The owner's rows (aliased `m`), its parameters appended to `params`. */
function ownerSql(owner: InboxOwner, params: unknown[]): string {
  params.push(owner.workspaceId, owner.distinctId);
  const base = `m.workspace_id = $${params.length - 1} AND m.distinct_id = $${params.length}`;
  if (owner.tenantId === undefined) return base;
  params.push(owner.tenantId);
  return `${base} AND COALESCE(m.tenant_id, '${DEFAULT_TENANT}') = $${params.length}`;
}

/** A store's condition on `m` and `d`, its parameters appended to `params`. */
function filterSql(filter: FeedFilter, params: unknown[]): string {
  const parts = [filter.archived ? 'm.archived_at IS NOT NULL' : 'm.archived_at IS NULL', NOT_EXPIRED];
  if (filter.read !== undefined) parts.push(filter.read ? 'm.read_at IS NOT NULL' : 'm.read_at IS NULL');
  if (filter.tags.length > 0) {
    params.push(filter.tags);
    parts.push(`m.tags && $${params.length}::text[]`);
  }
  if (filter.categories.length > 0) {
    params.push(filter.categories);
    parts.push(`d.command->>'category' = ANY($${params.length}::text[])`);
  }
  return parts.join(' AND ');
}

/**
 * The reads of SuprSend's feed API over the inbox (`dispatch.inbox_messages`): pages in
 * the SDK's order (newest first, by `created_on`), counts per store and the badge, and
 * the badge reset (`dispatch.inbox_badge_resets`). Every change of a message goes through
 * InboxRepository.update, so it is published and reported as the inbox's own changes are.
 */
@Injectable()
export class FeedRepository {
  constructor(@InjectDataSource('dispatch') private readonly db: DataSource) {}

  /**
   * A page after `query.after`, in the SDK's order (pinned first, then newest first). The
   * SDK's cursor is the last item's `[is_pinned, created_on]`, which messages stored
   * together share: a page never ends inside such a group (it holds all of it), so the
   * next page, strictly after it, skips none.
   */
  async page(owner: InboxOwner, query: FeedPageQuery): Promise<FeedPage> {
    const base: unknown[] = [];
    const where = `${ownerSql(owner, base)} AND ${filterSql(query.filter, base)}`;
    const select = async (condition: string, tail: string, params: unknown[]): Promise<FeedRowWithCursor[]> =>
      returningRows<FeedRowWithCursor>(await this.db.query(`SELECT ${FEED_COLUMNS} FROM ${FEED_FROM} WHERE ${where}${condition} ${tail}`, [...base, ...params]));
    const after = query.after === undefined ? { sql: '', params: [] } : afterSql(query.after, base.length + 1);
    const [rows, total] = await Promise.all([
      select(after.sql, `${FEED_ORDER} LIMIT $${base.length + after.params.length + 1}`, [...after.params, query.pageSize]),
      this.count(where, base),
    ]);
    const last = rows[rows.length - 1];
    if (last === undefined) return { results: [], totalCount: total, hasMore: false };
    const next = base.length + 1;
    const sameMillisecond =
      rows.length < query.pageSize
        ? []
        : await select(` AND ${IS_PINNED} = $${next} AND ${CREATED_MS} = $${next + 1} AND m.seq < $${next + 2}`, `ORDER BY m.seq DESC LIMIT ${MAX_SAME_MILLISECOND}`, [
            last.is_pinned,
            last.created_ms,
            last.seq,
          ]);
    const rest = afterSql({ pinned: last.is_pinned, createdMs: Number(last.created_ms) }, next);
    const [older] = returningRows<{ more: boolean }>(await this.db.query(`SELECT EXISTS (SELECT 1 FROM ${FEED_FROM} WHERE ${where}${rest.sql}) AS more`, [...base, ...rest.params]));
    return { results: [...rows, ...sameMillisecond].map(feedItemOf), totalCount: total, hasMore: older.more };
  }

  /**
   * A numbered page (`@suprsend/js-inbox`'s paging): messages stored before
   * `createdBeforeMs` (the SDK's first fetch), in the feed's order (pinned first, then
   * newest first), `offset` skipped, and how
   * many there are in all. Later messages reach the page over its socket, so the pages
   * do not shift while the user scrolls.
   */
  async numberedPage(owner: InboxOwner, query: { readonly offset: number; readonly limit: number; readonly createdBeforeMs?: number; readonly filter: FeedFilter }): Promise<{ results: FeedItem[]; totalCount: number }> {
    const params: unknown[] = [];
    let where = `${ownerSql(owner, params)} AND ${filterSql(query.filter, params)}`;
    if (query.createdBeforeMs !== undefined) {
      params.push(query.createdBeforeMs);
      where += ` AND ${CREATED_MS} < $${params.length}`;
    }
    const [rows, total] = await Promise.all([
      this.db
        .query(`SELECT ${FEED_COLUMNS} FROM ${FEED_FROM} WHERE ${where} ${FEED_ORDER} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, query.limit, query.offset])
        .then((result) => returningRows<FeedRowWithCursor>(result)),
      this.count(where, params),
    ]);
    return { results: rows.map(feedItemOf), totalCount: total };
  }

  /** Whose message `id` of the workspace is (the click of `@suprsend/js-inbox` names the message alone), or null. */
  async recipientOf(workspaceId: string, id: string): Promise<string | null> {
    const row = await this.messages().findOne({ select: { distinctId: true }, where: { id, workspaceId } });
    return row?.distinctId ?? null;
  }

  /** The badge (unseen messages stored since the last reset, archived ones aside) and each store's unread messages. */
  async counts(owner: InboxOwner, stores: readonly FeedStore[]): Promise<Record<string, number>> {
    const params: unknown[] = [];
    const where = ownerSql(owner, params);
    params.push(tenantScopeOf(owner));
    const resetAt = `COALESCE((SELECT reset_at FROM dispatch.inbox_badge_resets r WHERE r.workspace_id = m.workspace_id AND r.distinct_id = m.distinct_id AND r.tenant_scope = $${params.length}), '-infinity')`;
    const storeCounts = stores.map((store, index) => `count(*) FILTER (WHERE m.read_at IS NULL AND ${filterSql(store.filter, params)})::int AS s${index}`);
    const [row] = returningRows<Record<string, number>>(
      await this.db.query(
        `SELECT count(*) FILTER (WHERE m.seen_at IS NULL AND m.archived_at IS NULL AND ${NOT_EXPIRED} AND m.created_at > ${resetAt})::int AS badge${storeCounts.map((sql) => `, ${sql}`).join('')}
         FROM ${FEED_FROM} WHERE ${where}`,
        params,
      ),
    );
    return { badge: row.badge, ...Object.fromEntries(stores.map((store, index) => [store.storeId, row[`s${index}`]])) };
  }

  async item(owner: InboxOwner, id: string): Promise<FeedItem | null> {
    const params: unknown[] = [];
    const where = ownerSql(owner, params);
    const rows = returningRows<FeedRowWithCursor>(await this.db.query(`SELECT ${FEED_COLUMNS} FROM ${FEED_FROM} WHERE ${where} AND m.id = $${params.length + 1}`, [...params, id]));
    return rows[0] === undefined ? null : feedItemOf(rows[0]);
  }

  /** Up to `limit` of the owner's unread messages (for mark-all-read, which marks them one by one). */
  async unreadIds(owner: InboxOwner, limit: number): Promise<string[]> {
    const query = this.messages()
      .createQueryBuilder('m')
      .select('m.id')
      .where('m.workspaceId = :workspaceId AND m.distinctId = :distinctId', { workspaceId: owner.workspaceId, distinctId: owner.distinctId });
    if (owner.tenantId !== undefined) query.andWhere('COALESCE(m.tenantId, :defaultTenant) = :tenantId', { defaultTenant: DEFAULT_TENANT, tenantId: owner.tenantId });
    const rows = await query.andWhere('m.readAt IS NULL').orderBy('m.seq', 'ASC').limit(limit).getMany();
    return rows.map((row) => row.id);
  }

  /** The bell was opened: the badge counts from now. The user's other pages hear of it (`badge_reset`), in the same transaction. */
  async resetBadge(owner: InboxOwner): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.badgeResets(tx)
        .createQueryBuilder()
        .insert()
        .values({ workspaceId: owner.workspaceId, distinctId: owner.distinctId, tenantScope: tenantScopeOf(owner), resetAt: () => 'now()' })
        .orUpdate(['reset_at'], ['workspace_id', 'distinct_id', 'tenant_scope'])
        .execute();
      await writeOutbox(tx, DISPATCH_OUTBOX, [inboxBulkUpdatedMessage(bulkUpdateOf(owner, 'badge_reset'))]);
    });
  }

  /** How many of the feed's rows match `where` (over FEED_FROM). */
  private async count(where: string, params: readonly unknown[]): Promise<number> {
    const [row] = returningRows<{ n: number }>(await this.db.query(`SELECT count(*)::int AS n FROM ${FEED_FROM} WHERE ${where}`, [...params]));
    return row.n;
  }

  private messages(): Repository<InboxMessage> {
    return this.db.getRepository(InboxMessageEntity);
  }

  private badgeResets(manager: EntityManager = this.db.manager): Repository<InboxBadgeReset> {
    return manager.getRepository(InboxBadgeResetEntity);
  }
}

/** The messages after `cursor` in the feed's order (FEED_ORDER), as a condition starting with AND, its parameters numbered from `first`. */
function afterSql(cursor: FeedCursor, first: number): { sql: string; params: unknown[] } {
  const older = `${CREATED_MS} < $${first}`;
  // After a pinned message: older pinned ones, then every unpinned one; after an unpinned one: older unpinned ones.
  return { sql: cursor.pinned ? ` AND ((${IS_PINNED} AND ${older}) OR NOT ${IS_PINNED})` : ` AND NOT ${IS_PINNED} AND ${older}`, params: [cursor.createdMs] };
}

/** A reset is per tenant scope; `''` is a caller who sees every tenant. */
function tenantScopeOf(owner: InboxOwner): string {
  return owner.tenantId ?? '';
}
