import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CHANNELS, Channel, FieldError, HeraldError, readQueryDate, unstorableTextProblem } from '@herald/contracts';
import { AuthenticatedWorkspace } from '@herald/runtime';

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 1000;

/** The reference's derived statuses, each the set of stored statuses it stands for. */
const DERIVED_STATUS: Record<string, readonly string[]> = {
  triggered: ['triggered', 'sent_by_vendor'],
  delivery_failed: ['delivery_failure', 'bounced'],
  delivered: ['delivered', 'complained'],
  seen: ['seen'],
  clicked: ['clicked'],
  // The stored statuses a row shows are accepted as filters too: a client that reads
  // `status: delivery_failure` from a row can filter by what it read.
  sent_by_vendor: ['sent_by_vendor'],
  delivery_failure: ['delivery_failure'],
  // From vendor status callbacks: the address bounced for good, or the recipient reported spam.
  bounced: ['bounced'],
  complained: ['complained'],
  // Herald's own: a channel a send node skipped (no identity, preference, ...), with why in failure_reason.
  not_sent: ['not_sent'],
};

interface MessageRow {
  readonly delivery_id: string;
  readonly run_id: string;
  readonly message_id: string;
  readonly workflow_slug: string;
  readonly workflow_version: number;
  readonly node_name: string;
  readonly channel: string;
  readonly recipient_type: string;
  readonly distinct_id: string | null;
  readonly object_type: string | null;
  readonly object_id: string | null;
  readonly tenant_id: string | null;
  readonly category: string | null;
  readonly idempotency_key: string | null;
  readonly template_slug: string;
  readonly channel_identity: unknown;
  readonly status: string;
  readonly failure_reason: string | null;
  readonly vendor: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly triggered_at: Date | null;
  readonly delivered_at: Date | null;
  readonly seen_at: Date | null;
  readonly clicked_at: Date | null;
  readonly attempts: number | null;
  readonly next_attempt_at: Date | null;
  readonly warnings: unknown[] | null;
}

/** Where a message stands, for a change that depends on it (the bulk update's seen and clicked, a web push engagement report). */
export interface MessageStanding {
  readonly delivery_id: string;
  readonly run_id: string;
  readonly message_id: string;
  readonly channel: Channel;
  readonly status: string;
}

/**
 * `GET /v1/message/` (reference `list-messages`): the message log newest first, with
 * opaque cursors (`after`: older, `before`: newer) and the reference's filters.
 */
@Injectable()
export class MessageLog {
  constructor(@InjectDataSource('engine') private readonly db: DataSource) {}

  /** The workspace's messages among `deliveryIds` (the ids clients know messages by), in no particular order; unknown ids are left out. */
  async standings(workspaceId: string, deliveryIds: readonly string[]): Promise<MessageStanding[]> {
    return this.db.query(
      `SELECT delivery_id, run_id, message_id, channel, status FROM engine.messages WHERE workspace_id = $1 AND delivery_id = ANY($2::text[])`,
      [workspaceId, deliveryIds],
    );
  }

  async list(workspace: AuthenticatedWorkspace, query: Record<string, unknown>): Promise<{ meta: Record<string, unknown>; results: unknown[] }> {
    const errors: FieldError[] = [];
    const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
    const where = ['workspace_id = $1'];
    const params: unknown[] = [workspace.id];
    const add = (sql: string, value: unknown): void => {
      params.push(value);
      where.push(sql.replace(/\?/g, `$${params.length}`));
    };
    const list = (name: string): string[] => {
      const value = query[`${name}[]`] ?? query[name];
      return value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String);
    };
    const statuses = list('status');
    for (const status of statuses) if (!(status in DERIVED_STATUS)) errors.push({ path: 'status[]', message: `unknown status ${status}: must be one of ${Object.keys(DERIVED_STATUS).join(', ')}` });
    if (statuses.length > 0) add('status = ANY(?::text[])', statuses.flatMap((s) => DERIVED_STATUS[s] ?? []));
    if (query.channel !== undefined) {
      if (!(CHANNELS as readonly string[]).includes(String(query.channel))) errors.push({ path: 'channel', message: `must be one of ${CHANNELS.join(', ')}` });
      add('channel = ?', String(query.channel));
    }
    const recipients = list('recipient_id');
    if (recipients.length > 0) add('distinct_id = ANY(?::text[])', recipients);
    const categories = list('category');
    if (categories.length > 0) add('category = ANY(?::text[])', categories);
    for (const [param, column] of [
      ['workflow_slug', 'workflow_slug'],
      ['execution_id', 'run_id'],
      ['idempotency_key', 'idempotency_key'],
      ['tenant_id', 'tenant_id'],
      ['object_type', 'object_type'],
      ['object_id', 'object_id'],
    ] as const) {
      if (query[param] !== undefined) add(`${column} = ?`, String(query[param]));
    }
    // A row's own id (the reference's message_id), or the id POST /trigger/ answered: both
    // are UUIDs that never collide, so one filter follows a trigger to all its messages.
    if (query.message_id !== undefined) add('(delivery_id = ? OR message_id = ?)', String(query.message_id));
    for (const [param, op] of [
      ['created_at_gte', '>='],
      ['created_at_lte', '<='],
    ] as const) {
      if (query[param] === undefined) continue;
      const at = readQueryDate(query[param], param, errors);
      if (at) add(`created_at ${op} ?`, at.toISOString());
    }
    const cursorParam = query.after !== undefined ? 'after' : query.before !== undefined ? 'before' : undefined;
    const cursor = cursorParam ? decodeCursor(String(query[cursorParam])) : undefined;
    if (cursorParam && !cursor) errors.push({ path: cursorParam, message: 'is not a cursor this API returned' });
    if (errors.length > 0) throw HeraldError.validation(errors);

    const filterSql = where.join(' AND ');
    const filterParams = [...params];
    const [{ count }] = (await this.db.query(`SELECT count(*)::int AS count FROM engine.messages WHERE ${filterSql}`, filterParams)) as Array<{ count: number }>;
    const newerFirst = cursorParam !== 'before';
    if (cursor) {
      params.push(cursor.createdAt, cursor.id);
      where.push(`(created_at, delivery_id) ${newerFirst ? '<' : '>'} ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    const rows = (await this.db.query(
      `SELECT * FROM engine.messages WHERE ${where.join(' AND ')} ORDER BY created_at ${newerFirst ? 'DESC' : 'ASC'}, delivery_id ${newerFirst ? 'DESC' : 'ASC'} LIMIT ${limit + 1}`,
      params,
    )) as MessageRow[];
    const more = rows.length > limit;
    const page = (newerFirst ? rows.slice(0, limit) : rows.slice(0, limit).reverse()).map(messageView);
    const first = page[0];
    const last = page[page.length - 1];
    const hasNext = newerFirst ? more : cursor !== undefined;
    const hasPrev = newerFirst ? cursor !== undefined : more;
    return {
      meta: {
        count,
        limit,
        has_prev: hasPrev && first !== undefined,
        before: hasPrev && first ? encodeCursor(first.created_at, first.message_id) : null,
        has_next: hasNext && last !== undefined,
        after: hasNext && last ? encodeCursor(last.created_at, last.message_id) : null,
      },
      results: page,
    };
  }
}

function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id]), 'utf8').toString('base64url');
}

/**
 * The place a cursor names, or undefined when it is not one this API wrote. What it
 * carries goes to Postgres, so it gets the checks the query itself got: a date Postgres
 * reads (passed on as it was written back, never as sent), an id it can compare.
 */
function decodeCursor(cursor: string): { createdAt: string; id: string } | undefined {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof createdAt !== 'string' || typeof id !== 'string' || unstorableTextProblem(id) !== undefined) return undefined;
    const at = readQueryDate(createdAt, 'cursor', []);
    return at ? { createdAt: at.toISOString(), id } : undefined;
  } catch {
    return undefined;
  }
}

const iso = (value: Date | null): string | null => (value === null ? null : new Date(value).toISOString());

/** One message as the reference's MessageResponse names its fields. */
function messageView(row: MessageRow): { message_id: string; created_at: string } & Record<string, unknown> {
  return {
    message_id: row.delivery_id,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    triggered_at: iso(row.triggered_at),
    delivered_at: iso(row.delivered_at),
    seen_at: iso(row.seen_at),
    clicked_at: iso(row.clicked_at),
    status: row.status,
    trigger_message_id: row.message_id,
    attempts: row.attempts ?? 0,
    next_attempt_at: iso(row.next_attempt_at),
    channel: row.channel,
    idempotency_key: row.idempotency_key ?? '',
    failure_reason: row.failure_reason ?? '',
    warnings: row.warnings ?? [],
    recipient:
      row.recipient_type === 'object'
        ? { $type: 'object', object_type: row.object_type, id: row.object_id }
        : { $type: 'user', distinct_id: row.distinct_id },
    vendor: row.vendor ? { name: row.vendor.split('/').pop(), nickname: row.vendor } : null,
    execution_id: row.run_id,
    is_campaign: false,
    tenant_id: row.tenant_id ?? '',
    workflow: { slug: row.workflow_slug, version_id: String(row.workflow_version), node_ref: row.node_name },
    template: { slug: row.template_slug },
    channel_identity: row.channel_identity,
    category: row.category ?? '',
  };
}
