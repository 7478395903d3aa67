import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { readThenWrite, returningRows } from '@herald/database';
import { DataSource, EntityManager } from 'typeorm';
import { DeliveryRequested, InboxItemState, InboxUpdated } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { InboxContent } from '@herald/rendering';
import { DISPATCH_OUTBOX } from '../dispatch/dispatch-outbox.repository';
import { outcomeMessage } from '../dispatch/outcome-message';
import { bulkUpdateOf, inboxBulkUpdatedMessage, inboxUpdatedMessage } from './inbox-announcements';
import { InboxExtras } from './inbox.entities';
import { DEFAULT_TENANT, InboxOwner, InboxUpdate } from './inbox-owner';

/** The engagement a recipient's client reports, each published once as a delivery outcome. */
type EngagementKind = 'seen' | 'clicked';

export type InboxItem = InboxItemState;

/** What a feed shows as badges: messages not seen yet, and not read yet (archived ones aside). */
export interface InboxCounts {
  readonly unseen: number;
  readonly unread: number;
}

export interface InboxPage {
  readonly items: readonly InboxItem[];
  readonly before?: string;
  readonly after?: string;
  readonly hasPrev: boolean;
  readonly hasNext: boolean;
}

/** A message to store, as the inbox vendor hands it over. */
export interface NewInboxMessage {
  readonly id: string;
  readonly workspaceId: string;
  readonly distinctId: string;
  readonly deliveryId: string;
  readonly content: InboxContent;
  readonly tenantId?: string;
}

/** A row as ITEM_COLUMNS reads it. */
interface InboxRow extends Omit<InboxItem, 'created_at' | 'seen_at' | 'read_at' | 'archived_at' | 'clicked_at'> {
  seq: string;
  created_at: Date;
  seen_at: Date | null;
  read_at: Date | null;
  archived_at: Date | null;
  clicked_at: Date | null;
}

/** A row the insert of `store` returns. */
interface StoredRow extends InboxRow {
  workspace_id: string;
  distinct_id: string;
  tenant_id: string | null;
}

/** A row the update of `update` returns. */
interface UpdatedRow extends InboxRow {
  delivery_id: string;
  tenant_id: string | null;
  outcomes_published: EngagementKind[];
}

/** The ledger row of the delivery that stored a message, for its engagement outcomes. */
interface DeliveryOfMessageRow {
  command: DeliveryRequested;
  message_key: string;
}

const ITEM_COLUMNS = 'seq, id, created_at, title, body, avatar, action_url, seen_at, read_at, archived_at, clicked_at';

/** The owner's rows, with its parameters numbered from `first`. */
function ownerFilter(owner: InboxOwner, first: number): { sql: string; params: string[] } {
  const base = `workspace_id = $${first} AND distinct_id = $${first + 1}`;
  if (owner.tenantId === undefined) return { sql: base, params: [owner.workspaceId, owner.distinctId] };
  return { sql: `${base} AND COALESCE(tenant_id, '${DEFAULT_TENANT}') = $${first + 2}`, params: [owner.workspaceId, owner.distinctId, owner.tenantId] };
}

/**
 * The inbox (`dispatch.inbox_messages`): messages of the `inbox` channel, per workspace and
 * recipient. The cursor is the row's sequence number (newest first); an id derived from the
 * delivery makes a repeated store a no-op. Every statement is hand-written: `store` is the
 * end of every inbox delivery (the flow bench ends at its row) and `update` the path of every
 * seen, read and click, and each keeps the statements and round trips it was measured with.
 * The coalescing of stores is InboxWrites' (inbox-writes.ts).
 */
@Injectable()
export class InboxRepository {
  constructor(@InjectDataSource('dispatch') private readonly db: DataSource) {}

  /**
   * Many messages in one transaction: one multi-row insert (a message stored before is
   * skipped, by its id) and the announcements of the new ones on notify.inbox.updated.v1
   * (for open event streams), in two round trips (the announcements carry the sequence
   * numbers the insert gave the rows). Fails whole: nothing is stored when one message
   * cannot be.
   */
  async store(messages: readonly NewInboxMessage[]): Promise<void> {
    await readThenWrite<StoredRow, void>(
      this.db,
      {
        // Hand-written: the hot path of every inbox delivery, one multi-row insert over unnest that returns what the announcements need, sent with BEGIN in one round trip (readThenWrite).
        // A relative expiry counts from now, on the database's clock as every other stamp of the row.
        sql: `INSERT INTO dispatch.inbox_messages (id, workspace_id, distinct_id, delivery_id, title, body, avatar, action_url, tenant_id, pinned, expires_at, tags, extras)
              SELECT m.id, m.workspace_id, m.distinct_id, m.delivery_id, m.title, m.body, m.avatar, m.action_url, m.tenant_id, m.pinned,
                     CASE WHEN m.expiry_after_s IS NOT NULL THEN now() + make_interval(secs => m.expiry_after_s) ELSE m.expiry_at END,
                     ARRAY(SELECT jsonb_array_elements_text(m.tags::jsonb)), m.extras::jsonb
                FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                            $10::boolean[], $11::float8[], $12::timestamptz[], $13::text[], $14::text[]) WITH ORDINALITY
                     AS m(id, workspace_id, distinct_id, delivery_id, title, body, avatar, action_url, tenant_id, pinned, expiry_after_s, expiry_at, tags, extras, ord)
               ORDER BY m.ord
              ON CONFLICT (id) DO NOTHING RETURNING ${ITEM_COLUMNS}, workspace_id, distinct_id, tenant_id`,
        parameters: [
          messages.map((m) => m.id),
          messages.map((m) => m.workspaceId),
          messages.map((m) => m.distinctId),
          messages.map((m) => m.deliveryId),
          messages.map((m) => m.content.title ?? null),
          messages.map((m) => m.content.body),
          messages.map((m) => m.content.avatar ?? null),
          messages.map((m) => m.content.actionUrl ?? null),
          messages.map((m) => m.tenantId ?? null),
          messages.map((m) => m.content.pinned === true),
          messages.map((m) => (m.content.expiry !== undefined && 'afterSeconds' in m.content.expiry ? m.content.expiry.afterSeconds : null)),
          messages.map((m) => (m.content.expiry !== undefined && 'at' in m.content.expiry ? m.content.expiry.at : null)),
          messages.map((m) => JSON.stringify(m.content.tags ?? [])),
          messages.map((m) => inboxExtrasOf(m.content)),
        ],
      },
      async (rows, writes) => {
        // In the order stored (seq), so each recipient's announcements keep the order of their messages.
        rows.sort((a, b) => Number(a.seq) - Number(b.seq));
        const announcements = rows.map((row) =>
          inboxUpdatedMessage({ workspace_id: row.workspace_id, distinct_id: row.distinct_id, tenant_id: row.tenant_id ?? undefined, change: 'added', item: itemOf(row) }),
        );
        await writeOutbox(writes, DISPATCH_OUTBOX, announcements);
      },
    );
  }

  async counts(owner: InboxOwner): Promise<InboxCounts> {
    const filter = ownerFilter(owner, 1);
    // Hand-written: two filtered counts in one scan of the owner's rows, with the owner's tenant filter (ownerFilter) shared with list and update.
    const [row] = returningRows<InboxCounts>(
      await this.db.query(
        `SELECT count(*) FILTER (WHERE seen_at IS NULL)::int AS unseen, count(*) FILTER (WHERE read_at IS NULL)::int AS unread
         FROM dispatch.inbox_messages WHERE ${filter.sql} AND archived_at IS NULL`,
        filter.params,
      ),
    );
    return row;
  }

  /** Newest first; `after` pages to older items, `before` to newer ones. */
  async list(owner: InboxOwner, page: { limit: number; before?: string; after?: string }): Promise<InboxPage> {
    const newerFirst = page.before === undefined;
    const cursor = page.before ?? page.after;
    const filter = ownerFilter(owner, 2);
    const at = `$${filter.params.length + 2}`;
    // Hand-written: a keyset page on seq in either direction, with the owner's tenant filter (ownerFilter) shared with counts and update.
    const rows = returningRows<InboxRow>(
      await this.db.query(
        `SELECT ${ITEM_COLUMNS} FROM dispatch.inbox_messages
        WHERE ${filter.sql} ${cursor === undefined ? '' : newerFirst ? `AND seq < ${at}` : `AND seq > ${at}`}
        ORDER BY seq ${newerFirst ? 'DESC' : 'ASC'} LIMIT $1`,
        [page.limit + 1, ...filter.params, ...(cursor === undefined ? [] : [cursor])],
      ),
    );
    const more = rows.length > page.limit;
    const kept = rows.slice(0, page.limit);
    const ordered = newerFirst ? kept : kept.reverse();
    return {
      items: ordered.map(itemOf),
      before: ordered[0]?.seq,
      after: ordered[ordered.length - 1]?.seq,
      hasPrev: newerFirst ? page.after !== undefined : more,
      hasNext: newerFirst ? more : true,
    };
  }

  /**
   * Sets or clears the flags; seen is implied by read and by a click. Null when the item
   * is not this recipient's. The first time a message is seen, and the first time it is
   * clicked, a `delivery.outcome` goes to the outbox in the same transaction. `bulk`: one
   * message of a bulk change, which `announceBulk` announces whole once done.
   */
  async update(owner: InboxOwner, id: string, update: InboxUpdate, options: { readonly bulk?: boolean } = {}): Promise<InboxItem | null> {
    const { workspaceId, distinctId } = owner;
    const filter = ownerFilter(owner, 2);
    const stamp = (flag: boolean | undefined, column: string): string =>
      flag === undefined ? column : flag ? `COALESCE(${column}, now())` : 'NULL';
    const seen = (update.read === true || update.clicked === true) && update.seen === undefined ? true : update.seen;
    return this.db.transaction(async (tx) => {
      // Hand-written: sets each flag in one statement that keeps a first stamp (COALESCE) and returns the engagement already published, on every seen, read and click.
      // The row lock makes a concurrent update wait and then see what this one published.
      const [row] = returningRows<UpdatedRow>(
        await tx.query(
          `UPDATE dispatch.inbox_messages SET seen_at = ${stamp(seen, 'seen_at')}, read_at = ${stamp(update.read, 'read_at')},
                archived_at = ${stamp(update.archived, 'archived_at')}, clicked_at = ${stamp(update.clicked, 'clicked_at')}
          WHERE id = $1 AND ${filter.sql}
          RETURNING ${ITEM_COLUMNS}, delivery_id, tenant_id, outcomes_published`,
          [id, ...filter.params],
        ),
      );
      if (!row) return null;
      await this.publishEngagement(tx, workspaceId, row);
      const item = itemOf(row);
      // The recipient's other open pages update their badges from this.
      const announcement: InboxUpdated = { workspace_id: workspaceId, distinct_id: distinctId, tenant_id: row.tenant_id ?? undefined, change: 'updated', item };
      await writeOutbox(tx, DISPATCH_OUTBOX, [inboxUpdatedMessage(options.bulk ? { ...announcement, bulk: true } : announcement)]);
      return item;
    });
  }

  /**
   * After a bulk change's own updates (each published with `bulk`): the change as a whole,
   * for the pages that show it at once (the web SDK's socket) rather than message by message.
   */
  async announceBulk(owner: InboxOwner, change: 'all_read' | 'seen', notificationIds?: readonly string[]): Promise<void> {
    await this.db.transaction((tx) => writeOutbox(tx, DISPATCH_OUTBOX, [inboxBulkUpdatedMessage(bulkUpdateOf(owner, change, notificationIds))]));
  }

  /** Writes the outcome of each engagement kind the row shows and has not reported yet, in the update's transaction. */
  private async publishEngagement(tx: EntityManager, workspaceId: string, row: UpdatedRow): Promise<void> {
    const due = engagementOf(row).filter(([kind]) => !row.outcomes_published.includes(kind));
    if (due.length === 0) return;
    // Hand-written: on the path of a message's first seen and first click, as measured; reads the two columns the outcome needs.
    const [ledgered] = returningRows<DeliveryOfMessageRow>(
      await tx.query(`SELECT command, message_key FROM dispatch.deliveries WHERE delivery_id = $1 AND workspace_id = $2`, [row.delivery_id, workspaceId]),
    );
    // Every stored message has its ledger row; without one there is no run to report to.
    if (!ledgered) return;
    const delivery = { command: ledgered.command, workspaceId, messageKey: ledgered.message_key };
    // Hand-written: appends to the array column in place (the query builder would carry the expression as a raw string).
    await tx.query(`UPDATE dispatch.inbox_messages SET outcomes_published = outcomes_published || $2::text[] WHERE id = $1`, [row.id, due.map(([kind]) => kind)]);
    await writeOutbox(
      tx,
      DISPATCH_OUTBOX,
      due.map(([kind, at]) => outcomeMessage(delivery, { status: kind, vendor: 'inbox/herald_inbox' }, at, kind)),
    );
  }
}

/** The `extras` column of a message: what it shows besides its text, or null when the template set none of it. */
function inboxExtrasOf(content: InboxContent): string | null {
  const extras: InboxExtras = {
    ...(content.subtext ? { subtext: content.subtext } : {}),
    ...(content.buttons ? { buttons: content.buttons.map((b) => ({ text: b.text, url: b.url, ...(b.openInNewTab ? { open_in_new_tab: true } : {}) })) } : {}),
    ...(content.avatarUrl ? { avatar_url: content.avatarUrl } : {}),
    ...(content.openInNewTab ? { open_in_new_tab: true } : {}),
    ...(content.extraData !== undefined ? { extra_data: content.extraData } : {}),
    ...(content.expiry?.visible ? { expiry_visible: true } : {}),
    ...(content.importance === 'high' ? { importance: 'high' as const } : {}),
  };
  return Object.keys(extras).length === 0 ? null : JSON.stringify(extras);
}

function engagementOf(row: UpdatedRow): Array<[EngagementKind, Date]> {
  const happened: Array<[EngagementKind, Date | null]> = [
    ['seen', row.seen_at],
    ['clicked', row.clicked_at],
  ];
  return happened.flatMap(([kind, at]): Array<[EngagementKind, Date]> => (at === null ? [] : [[kind, new Date(at)]]));
}

function itemOf(row: InboxRow): InboxItem {
  const iso = (value: Date | null): string | null => (value === null ? null : new Date(value).toISOString());
  return {
    id: row.id,
    created_at: new Date(row.created_at).toISOString(),
    title: row.title,
    body: row.body,
    avatar: row.avatar,
    action_url: row.action_url,
    seen_at: iso(row.seen_at),
    read_at: iso(row.read_at),
    archived_at: iso(row.archived_at),
    clicked_at: iso(row.clicked_at),
  };
}
