import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CHANNELS, FieldError, HeraldError, readQueryDate } from '@herald/contracts';
import { AuthenticatedWorkspace } from '@herald/runtime';

export type StatsBucket = 'hour' | 'day';

const BUCKET_MS: Record<StatsBucket, number> = { hour: 3_600_000, day: 86_400_000 };
/** The window when none is given: the last day by the hour, the last 30 days by the day. */
const DEFAULT_BUCKETS: Record<StatsBucket, number> = { hour: 24, day: 30 };
/** Most buckets one answer holds (31 days by the hour, a year by the day): checked before any SQL. */
export const MAX_STATS_BUCKETS = 744;
/** The reasons listed per group (skipped, failed): the most frequent ones. */
const TOP_REASONS = 20;

export interface StatsQuery {
  readonly bucket: StatsBucket;
  readonly from: Date;
  readonly to: Date;
  readonly channel?: string;
  readonly workflowSlug?: string;
}

/**
 * The counters of a set of messages, each a message's current status read as a funnel:
 * `sent` went out to a vendor (delivered, seen, clicked, bounced or complained after it
 * included), `delivered` reached the recipient, `failed` will not (delivery_failure,
 * bounced), `skipped` was never sent (not_sent: preferences, no channel identity, ...),
 * `in_flight` is still being sent (`retrying` of them wait for their next attempt).
 */
export interface MessageCounts {
  readonly total: number;
  readonly sent: number;
  readonly delivered: number;
  readonly seen: number;
  readonly clicked: number;
  readonly failed: number;
  readonly skipped: number;
  readonly in_flight: number;
  readonly retrying: number;
}

export interface MessageStats {
  readonly meta: { readonly bucket: StatsBucket; readonly from: string; readonly to: string; readonly channel: string | null; readonly workflow_slug: string | null };
  readonly totals: MessageCounts;
  readonly skipped_by_reason: ReadonlyArray<{ readonly reason: string; readonly count: number }>;
  readonly failed_by_reason: ReadonlyArray<{ readonly reason: string; readonly count: number }>;
  readonly by_channel: ReadonlyArray<MessageCounts & { readonly channel: string }>;
  readonly by_vendor: ReadonlyArray<MessageCounts & { readonly vendor: string | null }>;
  readonly by_workflow: ReadonlyArray<MessageCounts & { readonly workflow_slug: string }>;
  readonly series: ReadonlyArray<MessageCounts & { readonly start: string }>;
}

/**
 * `GET /v1/message/stats/`'s query: `bucket` (hour, default, or day), the window
 * `created_at_gte`/`created_at_lte` (default: the last 24 hours, or 30 days by the day),
 * `channel`, `workflow_slug`. At most MAX_STATS_BUCKETS buckets; every wrong field by path.
 */
export function parseStatsQuery(query: Record<string, unknown>, now: Date): StatsQuery {
  const errors: FieldError[] = [];
  const bucket = query.bucket === undefined ? 'hour' : String(query.bucket);
  if (bucket !== 'hour' && bucket !== 'day') errors.push({ path: 'bucket', message: 'must be hour or day' });
  const size = BUCKET_MS[bucket as StatsBucket] ?? BUCKET_MS.hour;
  const to = query.created_at_lte === undefined ? now : readQueryDate(query.created_at_lte, 'created_at_lte', errors);
  const defaultBuckets = DEFAULT_BUCKETS[bucket as StatsBucket] ?? DEFAULT_BUCKETS.hour;
  const from = query.created_at_gte === undefined ? new Date((to ?? now).getTime() - size * defaultBuckets) : readQueryDate(query.created_at_gte, 'created_at_gte', errors);
  if (from && to && from.getTime() > to.getTime()) errors.push({ path: 'created_at_gte', message: 'must not be after created_at_lte' });
  else if (from && to && Math.ceil((to.getTime() - from.getTime()) / size) > MAX_STATS_BUCKETS) {
    errors.push({ path: 'created_at_gte', message: `the window holds more than ${MAX_STATS_BUCKETS} ${bucket === 'day' ? 'days' : 'hours'}: narrow it, or use bucket=day` });
  }
  if (query.channel !== undefined && !(CHANNELS as readonly string[]).includes(String(query.channel))) errors.push({ path: 'channel', message: `must be one of ${CHANNELS.join(', ')}` });
  if (query.workflow_slug !== undefined && (typeof query.workflow_slug !== 'string' || query.workflow_slug === '')) {
    errors.push({ path: 'workflow_slug', message: 'must be a non-empty string, given once' });
  }
  if (errors.length > 0 || !from || !to) throw HeraldError.validation(errors);
  return {
    bucket: bucket as StatsBucket,
    from,
    to,
    ...(query.channel === undefined ? {} : { channel: String(query.channel) }),
    ...(query.workflow_slug === undefined ? {} : { workflowSlug: query.workflow_slug as string }),
  };
}

/** The counters as SQL aggregates over engine.messages rows (see MessageCounts). */
const COUNTS_SQL = `count(*)::int AS total,
  count(*) FILTER (WHERE status IN ('sent_by_vendor', 'delivered', 'seen', 'clicked', 'bounced', 'complained'))::int AS sent,
  count(*) FILTER (WHERE status IN ('delivered', 'seen', 'clicked', 'complained'))::int AS delivered,
  count(*) FILTER (WHERE status IN ('seen', 'clicked') OR seen_at IS NOT NULL)::int AS seen,
  count(*) FILTER (WHERE status = 'clicked' OR clicked_at IS NOT NULL)::int AS clicked,
  count(*) FILTER (WHERE status IN ('delivery_failure', 'bounced'))::int AS failed,
  count(*) FILTER (WHERE status = 'not_sent')::int AS skipped,
  count(*) FILTER (WHERE status = 'triggered')::int AS in_flight,
  count(*) FILTER (WHERE status = 'triggered' AND next_attempt_at IS NOT NULL)::int AS retrying`;

const COUNT_FIELDS = ['total', 'sent', 'delivered', 'seen', 'clicked', 'failed', 'skipped', 'in_flight', 'retrying'] as const;

function countsOf(row: Record<string, unknown> | undefined): MessageCounts {
  return Object.fromEntries(COUNT_FIELDS.map((field) => [field, Number(row?.[field] ?? 0)])) as unknown as MessageCounts;
}

/**
 * The overview of what a workspace sent (the console's Overview page), aggregated from the
 * message log: the same rows `GET /v1/message/` lists, so the two always agree. Read from
 * the `messages_newest_first` index's range of the window; the window is bounded
 * (MAX_STATS_BUCKETS), so one answer scans at most a month of a workspace's messages.
 */
@Injectable()
export class MessageStatsQueries {
  constructor(@InjectDataSource('engine') private readonly db: DataSource) {}

  async stats(workspace: AuthenticatedWorkspace, query: StatsQuery): Promise<MessageStats> {
    const where = ['workspace_id = $1', 'created_at >= $2', 'created_at <= $3'];
    const params: unknown[] = [workspace.id, query.from.toISOString(), query.to.toISOString()];
    if (query.channel !== undefined) {
      params.push(query.channel);
      where.push(`channel = $${params.length}`);
    }
    if (query.workflowSlug !== undefined) {
      params.push(query.workflowSlug);
      where.push(`workflow_slug = $${params.length}`);
    }
    const filter = where.join(' AND ');
    const bucketParam = params.length + 1;
    const [totals, channels, vendors, workflows, series, skipped, failed] = (await Promise.all([
      this.db.query(`SELECT ${COUNTS_SQL} FROM engine.messages WHERE ${filter}`, params),
      this.db.query(`SELECT channel, ${COUNTS_SQL} FROM engine.messages WHERE ${filter} GROUP BY channel ORDER BY total DESC, channel`, params),
      // The vendor that sent it, or that was tried last when it failed; none for a message skipped or not attempted yet.
      this.db.query(`SELECT vendor, ${COUNTS_SQL} FROM engine.messages WHERE ${filter} GROUP BY vendor ORDER BY total DESC, vendor NULLS LAST`, params),
      this.db.query(`SELECT workflow_slug, ${COUNTS_SQL} FROM engine.messages WHERE ${filter} GROUP BY workflow_slug ORDER BY total DESC, workflow_slug LIMIT 50`, params),
      this.db.query(
        `SELECT to_char(date_trunc($${bucketParam}, created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS start, ${COUNTS_SQL} FROM engine.messages WHERE ${filter} GROUP BY 1 ORDER BY 1`,
        [...params, query.bucket],
      ),
      // A skip's failure_reason is `<reason>: <detail>`: grouped by the reason (preference, no identity, ...).
      this.db.query(
        `SELECT split_part(coalesce(failure_reason, ''), ':', 1) AS reason, count(*)::int AS count FROM engine.messages WHERE ${filter} AND status = 'not_sent'
          GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${TOP_REASONS}`,
        params,
      ),
      this.db.query(
        `SELECT coalesce(failure_reason, '') AS reason, count(*)::int AS count FROM engine.messages WHERE ${filter} AND status IN ('delivery_failure', 'bounced')
          GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${TOP_REASONS}`,
        params,
      ),
    ])) as Array<Array<Record<string, unknown>>>;
    return {
      meta: { bucket: query.bucket, from: query.from.toISOString(), to: query.to.toISOString(), channel: query.channel ?? null, workflow_slug: query.workflowSlug ?? null },
      totals: countsOf(totals[0]),
      skipped_by_reason: skipped.map((row) => ({ reason: String(row.reason), count: Number(row.count) })),
      failed_by_reason: failed.map((row) => ({ reason: String(row.reason), count: Number(row.count) })),
      by_channel: channels.map((row) => ({ channel: String(row.channel), ...countsOf(row) })),
      by_vendor: vendors.map((row) => ({ vendor: row.vendor === null ? null : String(row.vendor), ...countsOf(row) })),
      by_workflow: workflows.map((row) => ({ workflow_slug: String(row.workflow_slug), ...countsOf(row) })),
      series: denseSeries(query, new Map(series.map((row) => [String(row.start), countsOf(row)]))),
    };
  }
}

/** Every bucket of the window, oldest first, zeros where nothing was sent (a chart needs no gaps filled). UTC hours and days both start at multiples of their length since the epoch. */
export function denseSeries(query: Pick<StatsQuery, 'bucket' | 'from' | 'to'>, counted: ReadonlyMap<string, MessageCounts>): Array<MessageCounts & { start: string }> {
  const size = BUCKET_MS[query.bucket];
  const series: Array<MessageCounts & { start: string }> = [];
  for (let at = Math.floor(query.from.getTime() / size) * size; at <= query.to.getTime(); at += size) {
    const start = new Date(at).toISOString().replace('.000Z', 'Z');
    series.push({ start, ...(counted.get(start) ?? countsOf(undefined)) });
  }
  return series;
}
