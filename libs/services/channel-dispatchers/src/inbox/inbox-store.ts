import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { InboxContent } from '../rendering/rendered-content';

export interface InboxItem {
  readonly id: string;
  readonly created_at: string;
  readonly title: string | null;
  readonly body: string;
  readonly avatar: string | null;
  readonly action_url: string | null;
  readonly seen_at: string | null;
  readonly read_at: string | null;
  readonly archived_at: string | null;
}

interface InboxRow extends Omit<InboxItem, 'created_at' | 'seen_at' | 'read_at' | 'archived_at'> {
  seq: string;
  created_at: Date;
  seen_at: Date | null;
  read_at: Date | null;
  archived_at: Date | null;
}

export interface InboxPage {
  readonly items: readonly InboxItem[];
  readonly before?: string;
  readonly after?: string;
  readonly hasPrev: boolean;
  readonly hasNext: boolean;
}

export type InboxUpdate = { readonly seen?: boolean; readonly read?: boolean; readonly archived?: boolean };

/**
 * The inbox: messages of the `inbox` channel, per workspace and recipient. The cursor
 * is the row's sequence number (newest first); an id derived from the delivery makes a
 * repeated store a no-op.
 */
@Injectable()
export class InboxStore {
  constructor(@InjectDataSource('dispatch') private readonly db: DataSource) {}

  async store(id: string, workspaceId: string, distinctId: string, deliveryId: string, content: InboxContent): Promise<void> {
    await this.db.query(
      `INSERT INTO dispatch.inbox_messages (id, workspace_id, distinct_id, delivery_id, title, body, avatar, action_url)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
      [id, workspaceId, distinctId, deliveryId, content.title ?? null, content.body, content.avatar ?? null, content.actionUrl ?? null],
    );
  }

  /** Newest first; `after` pages to older items, `before` to newer ones. */
  async list(workspaceId: string, distinctId: string, page: { limit: number; before?: string; after?: string }): Promise<InboxPage> {
    const newerFirst = page.before === undefined;
    const cursor = page.before ?? page.after;
    const rows = (await this.db.query(
      `SELECT seq, id, created_at, title, body, avatar, action_url, seen_at, read_at, archived_at FROM dispatch.inbox_messages
        WHERE workspace_id = $1 AND distinct_id = $2 ${cursor === undefined ? '' : newerFirst ? 'AND seq < $4' : 'AND seq > $4'}
        ORDER BY seq ${newerFirst ? 'DESC' : 'ASC'} LIMIT $3`,
      cursor === undefined ? [workspaceId, distinctId, page.limit + 1] : [workspaceId, distinctId, page.limit + 1, cursor],
    )) as InboxRow[];
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

  /** Sets or clears the flags; seen is implied by read. Null when the item is not this recipient's. */
  async update(workspaceId: string, distinctId: string, id: string, update: InboxUpdate): Promise<InboxItem | null> {
    const stamp = (flag: boolean | undefined, column: string): string =>
      flag === undefined ? column : flag ? `COALESCE(${column}, now())` : 'NULL';
    const seen = update.read === true && update.seen === undefined ? true : update.seen;
    const rows = (await this.db.query(
      `UPDATE dispatch.inbox_messages SET seen_at = ${stamp(seen, 'seen_at')}, read_at = ${stamp(update.read, 'read_at')},
              archived_at = ${stamp(update.archived, 'archived_at')}
        WHERE workspace_id = $1 AND distinct_id = $2 AND id = $3
        RETURNING seq, id, created_at, title, body, avatar, action_url, seen_at, read_at, archived_at`,
      [workspaceId, distinctId, id],
    )) as [InboxRow[], number] | InboxRow[];
    const returned = Array.isArray(rows[0]) ? (rows[0] as InboxRow[]) : (rows as InboxRow[]);
    return returned[0] ? itemOf(returned[0]) : null;
  }
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
  };
}
