import type { Admin } from 'kafkajs';
import type { PartitionLag } from '../message-bus.port';

/**
 * The lag of one consumer group, per partition, as one member sees it. Two sources:
 * each batch the member finishes reports its partition's lag (kafkajs's
 * END_BATCH_PROCESS `offsetLag`: the high watermark past the batch's last offset), and,
 * when the lag is read (a `/metrics` scrape) and the last answer is older than
 * `refreshMs`, the broker is asked for the group's committed offsets and the partitions'
 * ends, for every partition of the topics. That ask is what makes an idle member, a member
 * whose handler is stuck retrying and a partition nobody owns report at all; the batches
 * keep a busy partition's figure current in between. It is made on demand, not on a
 * timer: every subscription of every replica asking every 15 s was a fixed cost of each
 * process (about 4 broker requests per group, 25 groups per engine and dispatcher pair)
 * paid whether or not anything read the figure (docs/architecture.md, Operations). A read gets the
 * figures of the previous ask: a scrape interval or `refreshMs` old, whichever is longer.
 * Every member of a group reports the same partitions, so dashboards take the max per
 * partition.
 */
export class ConsumerLag {
  private readonly lags = new Map<string, PartitionLag>();
  private refreshing?: Promise<void>;
  /** When the last ask was made (ms, `performance.now()`); undefined before the first. */
  private askedAt?: number;
  private stopped = false;

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

  /**
   * No ask after this; resolves once the ask in flight, if any, is answered, so that the
   * bus disconnects its admin client only then (an ask that outlived the disconnect
   * reconnected it, and the idle socket kept the process alive for the broker's
   * 10-minute idle timeout).
   */
  stop(): Promise<void> {
    this.stopped = true;
    return this.refreshing ?? Promise.resolve();
  }

  /** The figures as of now; asks the broker in the background when the last ask is older than `refreshMs`. */
  snapshot(): readonly PartitionLag[] {
    if (!this.stopped && (this.askedAt === undefined || performance.now() - this.askedAt >= this.refreshMs)) void this.refresh();
    return [...this.lags.values()].sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  }

  /** One ask at a time: a broker slower than `refreshMs` is not asked twice at once. */
  refresh(): Promise<void> {
    this.askedAt = performance.now();
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
