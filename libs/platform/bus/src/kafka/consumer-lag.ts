import type { Admin } from 'kafkajs';
import type { PartitionLag } from '../message-bus.port';

/**
 * The lag of one consumer group, per partition, as one member sees it. Two sources:
 * each batch the member finishes reports its partition's lag (kafkajs's
 * END_BATCH_PROCESS `offsetLag`: the high watermark past the batch's last offset), and
 * every `refreshMs` the broker is asked for the group's committed offsets and the
 * partitions' ends, for every partition of the topics. The periodic ask is what makes
 * an idle member, a member whose handler is stuck retrying and a partition nobody owns
 * report at all; the batches keep a busy partition's figure current in between. Every
 * member of a group reports the same partitions, so dashboards take the max per partition.
 */
export class ConsumerLag {
  private readonly lags = new Map<string, PartitionLag>();
  private timer?: NodeJS.Timeout;
  private refreshing?: Promise<void>;

  constructor(
    private readonly admin: Admin,
    private readonly groupId: string,
    private readonly topics: readonly string[],
    private readonly startFrom: 'earliest' | 'latest',
    private readonly refreshMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A batch of the partition was handled; `offsetLag` is what is left after it. */
  observeBatch(topic: string, partition: number, offsetLag: string | number): void {
    const lag = Number(offsetLag);
    if (Number.isFinite(lag)) this.lags.set(`${topic}:${partition}`, { topic, partition, lag: Math.max(0, lag) });
  }

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  snapshot(): readonly PartitionLag[] {
    return [...this.lags.values()].sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  }

  /** One ask at a time: a broker slower than `refreshMs` is not asked twice at once. */
  refresh(): Promise<void> {
    this.refreshing ??= this.fetch()
      .catch(this.onError)
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async fetch(): Promise<void> {
    const [committed, ends] = await Promise.all([
      this.admin.fetchOffsets({ groupId: this.groupId, topics: [...this.topics] }),
      Promise.all(this.topics.map(async (topic) => ({ topic, partitions: await this.admin.fetchTopicOffsets(topic) }))),
    ]);
    const committedOf = new Map(committed.flatMap((t) => t.partitions.map((p) => [`${t.topic}:${p.partition}`, Number(p.offset)] as const)));
    for (const { topic, partitions } of ends) {
      for (const end of partitions) {
        const high = Number(end.high);
        const done = committedOf.get(`${topic}:${end.partition}`) ?? -1;
        // No committed offset yet: the group starts at the partition's start (earliest) or its end (latest).
        const from = done >= 0 ? done : this.startFrom === 'latest' ? high : Number(end.low);
        this.lags.set(`${topic}:${end.partition}`, { topic, partition: end.partition, lag: Math.max(0, high - from) });
      }
    }
  }
}
