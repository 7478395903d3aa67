import { CHANNELS, FieldError, HeraldError, readQueryDate } from '@herald/contracts';

/**
 * `GET /v1/message/stats/` (the console's Overview): its query read and checked, and the
 * shape of its answer. Pure; MessageStatsRepository counts the message log.
 */

export type StatsBucket = 'hour' | 'day';

const BUCKET_MS: Record<StatsBucket, number> = { hour: 3_600_000, day: 86_400_000 };
/** The window when none is given: the last day by the hour, the last 30 days by the day. */
const DEFAULT_BUCKETS: Record<StatsBucket, number> = { hour: 24, day: 30 };
/** Most buckets one answer holds (31 days by the hour, a year by the day): checked before any SQL. */
export const MAX_STATS_BUCKETS = 744;

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

const COUNT_FIELDS = ['total', 'sent', 'delivered', 'seen', 'clicked', 'failed', 'skipped', 'in_flight', 'retrying'] as const;

/** A row of the counters (each a number, or absent: 0) as MessageCounts. */
export function countsOf(row: Record<string, unknown> | undefined): MessageCounts {
  return Object.fromEntries(COUNT_FIELDS.map((field) => [field, Number(row?.[field] ?? 0)])) as unknown as MessageCounts;
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
