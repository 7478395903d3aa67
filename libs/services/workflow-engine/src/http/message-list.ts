import { CHANNELS, FieldError, HeraldError, readQueryDate, unstorableTextProblem } from '@herald/contracts';
import { LoggedMessage } from '../persistence/entities';
import { MessageCursor, MessageFilter, MessagePage } from './message-log.repository';

/**
 * `GET /v1/message/` (reference `list-messages`): its query read and checked, its cursors,
 * and the reference's shape of its answer. Pure; MessageLogRepository.list reads the page.
 */

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

/** `GET /v1/message/`'s query, read and checked: where the page starts and which messages it holds. */
export interface MessageListQuery {
  readonly filter: MessageFilter;
  readonly limit: number;
  /** From the `after` cursor (older messages) or the `before` one (newer); absent: the newest. */
  readonly cursor?: MessageCursor;
  /** False for a `before` page, read oldest first from its cursor. */
  readonly newerFirst: boolean;
}

/** The query of `GET /v1/message/` (reference `list-messages`): the reference's filters and opaque cursors (`after`: older, `before`: newer); every wrong parameter by name. */
export function parseMessageListQuery(query: Record<string, unknown>): MessageListQuery {
  const errors: FieldError[] = [];
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
  const list = (name: string): string[] => {
    const value = query[`${name}[]`] ?? query[name];
    return value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String);
  };
  const one = (name: string): string | undefined => (query[name] === undefined ? undefined : String(query[name]));
  const statuses = list('status');
  for (const status of statuses) if (!(status in DERIVED_STATUS)) errors.push({ path: 'status[]', message: `unknown status ${status}: must be one of ${Object.keys(DERIVED_STATUS).join(', ')}` });
  if (query.channel !== undefined && !(CHANNELS as readonly string[]).includes(String(query.channel))) errors.push({ path: 'channel', message: `must be one of ${CHANNELS.join(', ')}` });
  const filter: MessageFilter = {
    statuses: statuses.flatMap((status) => DERIVED_STATUS[status] ?? []),
    channel: one('channel'),
    distinctIds: list('recipient_id'),
    categories: list('category'),
    workflowSlug: one('workflow_slug'),
    runId: one('execution_id'),
    idempotencyKey: one('idempotency_key'),
    tenantId: one('tenant_id'),
    objectType: one('object_type'),
    objectId: one('object_id'),
    // A row's own id (the reference's message_id), or the id POST /trigger/ answered: both
    // are UUIDs that never collide, so one filter follows a trigger to all its messages.
    messageOrTriggerId: one('message_id'),
    createdFrom: query.created_at_gte === undefined ? undefined : readQueryDate(query.created_at_gte, 'created_at_gte', errors),
    createdTo: query.created_at_lte === undefined ? undefined : readQueryDate(query.created_at_lte, 'created_at_lte', errors),
  };
  const cursorParam = query.after !== undefined ? 'after' : query.before !== undefined ? 'before' : undefined;
  const cursor = cursorParam ? decodeCursor(String(query[cursorParam])) : undefined;
  if (cursorParam && !cursor) errors.push({ path: cursorParam, message: 'is not a cursor this API returned' });
  if (errors.length > 0) throw HeraldError.validation(errors);
  return { filter, limit, ...(cursor ? { cursor } : {}), newerFirst: cursorParam !== 'before' };
}

/** The answer of `GET /v1/message/`: the page, newest first, with the cursors of the pages on either side. */
export function messageListAnswer(page: MessagePage, limit: number): { meta: Record<string, unknown>; results: unknown[] } {
  const first = page.messages[0];
  const last = page.messages[page.messages.length - 1];
  return {
    meta: {
      count: page.count,
      limit,
      has_prev: page.hasPrev,
      before: page.hasPrev && first ? encodeCursor(first) : null,
      has_next: page.hasNext,
      after: page.hasNext && last ? encodeCursor(last) : null,
    },
    results: page.messages.map(messageView),
  };
}

function encodeCursor(message: LoggedMessage): string {
  return Buffer.from(JSON.stringify([message.createdAt.toISOString(), message.deliveryId]), 'utf8').toString('base64url');
}

/**
 * The place a cursor names, or undefined when it is not one this API wrote. What it
 * carries goes to Postgres, so it gets the checks the query itself got: a date Postgres
 * reads (passed on as it was written back, never as sent), an id it can compare.
 */
function decodeCursor(cursor: string): MessageCursor | undefined {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof createdAt !== 'string' || typeof id !== 'string' || unstorableTextProblem(id) !== undefined) return undefined;
    const at = readQueryDate(createdAt, 'cursor', []);
    return at ? { createdAt: at.toISOString(), deliveryId: id } : undefined;
  } catch {
    return undefined;
  }
}

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

/** One message as the reference's MessageResponse names its fields. */
function messageView(row: LoggedMessage): Record<string, unknown> {
  return {
    message_id: row.deliveryId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    triggered_at: iso(row.triggeredAt),
    delivered_at: iso(row.deliveredAt),
    seen_at: iso(row.seenAt),
    clicked_at: iso(row.clickedAt),
    status: row.status,
    trigger_message_id: row.messageId,
    attempts: row.attempts ?? 0,
    next_attempt_at: iso(row.nextAttemptAt),
    channel: row.channel,
    idempotency_key: row.idempotencyKey ?? '',
    failure_reason: row.failureReason ?? '',
    warnings: row.warnings ?? [],
    recipient: row.recipientType === 'object' ? { $type: 'object', object_type: row.objectType, id: row.objectId } : { $type: 'user', distinct_id: row.distinctId },
    vendor: row.vendor ? { name: row.vendor.split('/').pop(), nickname: row.vendor } : null,
    execution_id: row.runId,
    is_campaign: false,
    tenant_id: row.tenantId ?? '',
    workflow: { slug: row.workflowSlug, version_id: String(row.workflowVersion), node_ref: row.nodeName },
    template: { slug: row.templateSlug },
    channel_identity: row.channelIdentity,
    category: row.category ?? '',
  };
}
