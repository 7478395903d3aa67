import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, Repository, SelectQueryBuilder } from 'typeorm';
import { LoggedMessage, LoggedMessageEntity } from '../persistence/entities';
import { MessageCounts, MessageStats, StatsQuery, countsOf, denseSeries } from './message-stats';

/** The reasons listed per group (skipped, failed): the most frequent ones. */
const TOP_REASONS = 20;
/** The workflows listed, the most sending first. */
const TOP_WORKFLOWS = 50;

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

/** A group's counters as Postgres answers them (each `::int`, so a number). */
type CountsRow = Record<keyof MessageCounts, number>;
type ReasonRow = { reason: string; count: number };

/**
 * The overview of what a workspace sent (the console's Overview page), aggregated from the
 * message log (`engine.messages`): the same rows `GET /v1/message/` lists, so the two always
 * agree. Read from the `messages_newest_first` index's range of the window; the window is
 * bounded (MAX_STATS_BUCKETS), so one answer scans at most a month of a workspace's messages.
 */
@Injectable()
export class MessageStatsRepository {
  constructor(@InjectDataSource('engine') private readonly db: DataSource) {}

  async stats(workspaceId: string, query: StatsQuery): Promise<MessageStats> {
    const counted = () => this.window(workspaceId, query).select(COUNTS_SQL);
    const [totals, channels, vendors, workflows, series, skipped, failed] = await Promise.all([
      counted().getRawOne<CountsRow>(),
      counted().addSelect('message.channel', 'channel').groupBy('message.channel').orderBy('total', 'DESC').addOrderBy('message.channel').getRawMany<CountsRow & { channel: string }>(),
      // The vendor that sent it, or that was tried last when it failed; none for a message skipped or not attempted yet.
      counted()
        .addSelect('message.vendor', 'vendor')
        .groupBy('message.vendor')
        .orderBy('total', 'DESC')
        .addOrderBy('message.vendor', 'ASC', 'NULLS LAST')
        .getRawMany<CountsRow & { vendor: string | null }>(),
      counted()
        .addSelect('message.workflowSlug', 'workflow_slug')
        .groupBy('message.workflowSlug')
        .orderBy('total', 'DESC')
        .addOrderBy('message.workflowSlug')
        .limit(TOP_WORKFLOWS)
        .getRawMany<CountsRow & { workflow_slug: string }>(),
      counted()
        .addSelect(`to_char(date_trunc(:bucket, message.createdAt AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`, 'start')
        .setParameter('bucket', query.bucket)
        .groupBy('start')
        .orderBy('start')
        .getRawMany<CountsRow & { start: string }>(),
      // A skip's failure_reason is `<reason>: <detail>`: grouped by the reason (preference, no identity, ...).
      this.reasons(this.window(workspaceId, query).select(`split_part(coalesce(message.failureReason, ''), ':', 1)`, 'reason').andWhere(`message.status = 'not_sent'`)),
      this.reasons(this.window(workspaceId, query).select(`coalesce(message.failureReason, '')`, 'reason').andWhere(`message.status IN ('delivery_failure', 'bounced')`)),
    ]);
    return {
      meta: { bucket: query.bucket, from: query.from.toISOString(), to: query.to.toISOString(), channel: query.channel ?? null, workflow_slug: query.workflowSlug ?? null },
      totals: countsOf(totals),
      skipped_by_reason: skipped,
      failed_by_reason: failed,
      by_channel: channels.map((row) => ({ channel: row.channel, ...countsOf(row) })),
      by_vendor: vendors.map((row) => ({ vendor: row.vendor, ...countsOf(row) })),
      by_workflow: workflows.map((row) => ({ workflow_slug: row.workflow_slug, ...countsOf(row) })),
      series: denseSeries(query, new Map(series.map((row) => [row.start, countsOf(row)]))),
    };
  }

  /** The workspace's messages created within the window, of the channel and workflow when given. */
  private window(workspaceId: string, query: StatsQuery): SelectQueryBuilder<LoggedMessage> {
    const window = this.messages()
      .createQueryBuilder('message')
      .where('message.workspaceId = :workspaceId AND message.createdAt >= :from AND message.createdAt <= :to', { workspaceId, from: query.from.toISOString(), to: query.to.toISOString() });
    if (query.channel !== undefined) window.andWhere('message.channel = :channel', { channel: query.channel });
    if (query.workflowSlug !== undefined) window.andWhere('message.workflowSlug = :workflowSlug', { workflowSlug: query.workflowSlug });
    return window;
  }

  /** The most frequent reasons among `selected` (its `reason` column), most frequent first. */
  private async reasons(selected: SelectQueryBuilder<LoggedMessage>): Promise<ReasonRow[]> {
    const rows = await selected.addSelect('count(*)::int', 'count').groupBy('reason').orderBy('count', 'DESC').addOrderBy('reason').limit(TOP_REASONS).getRawMany<ReasonRow>();
    return rows.map((row) => ({ reason: String(row.reason), count: Number(row.count) }));
  }

  private messages(): Repository<LoggedMessage> {
    return this.db.getRepository(LoggedMessageEntity);
  }
}
