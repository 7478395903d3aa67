import {
  DEFAULT_RETRY_POLICY,
  IncomingMessage,
  MessageBus,
  MessageHandler,
  OutgoingMessage,
  RetryPolicy,
  SubscribeOptions,
  Subscription,
  TopicSpec,
  retryDelayMs,
} from '../message-bus.port';
import { partitionFor } from '../partitioner';
import { sleep } from '../sleep';
import { PartitionLog } from './partition-log';

export interface InProcessBusOptions {
  /** Called when a handler throws; the message is delivered again after a backoff. */
  readonly onHandlerError?: (error: unknown, message: IncomingMessage) => void;
}

interface Topic {
  readonly name: string;
  readonly partitions: PartitionLog[];
}

interface Member {
  readonly id: number;
  readonly topics: readonly string[];
  readonly handler: MessageHandler;
  readonly retry: RetryPolicy;
  readonly startFrom: 'earliest' | 'latest';
  readonly workers: Map<string, PartitionWorker>;
}

interface Group {
  readonly id: string;
  readonly members: Member[];
  /** Next offset to consume, per `topic:partition`. */
  readonly committed: Map<string, number>;
  /** Members that left and still own workers until the next rebalance stops them. */
  readonly leaving: Set<Member>;
  /** Serialises rebalances: revocations finish before new owners start. */
  rebalancing: Promise<void>;
}

/** Messages a worker hands over in a row before it yields to the event loop. */
const YIELD_EVERY = 64;

/**
 * The embedded bus: Kafka's topic, key, partition and consumer-group semantics in
 * one process, with no broker. Messages live in memory; what must survive a crash
 * is written to Postgres before it is published (outbox), exactly as in the
 * distributed mode.
 */
export class InProcessBus implements MessageBus {
  private readonly topics = new Map<string, Topic>();
  private readonly groups = new Map<string, Group>();
  private nextMemberId = 1;
  private closed = false;

  constructor(private readonly options: InProcessBusOptions = {}) {}

  async ensureTopics(specs: readonly TopicSpec[]): Promise<void> {
    for (const spec of specs) {
      if (this.topics.has(spec.name)) continue;
      if (!Number.isInteger(spec.partitions) || spec.partitions < 1) {
        throw new Error(`topic ${spec.name}: partitions must be a positive integer`);
      }
      const partitions = Array.from({ length: spec.partitions }, () => new PartitionLog());
      this.topics.set(spec.name, { name: spec.name, partitions });
    }
    for (const group of this.groups.values()) this.scheduleRebalance(group);
  }

  async publish(topicName: string, messages: readonly OutgoingMessage[]): Promise<void> {
    this.assertOpen();
    const topic = this.requireTopic(topicName);
    const timestamp = Date.now();
    for (const message of messages) {
      const partition = partitionFor(topic.name, message.key, topic.partitions.length);
      topic.partitions[partition].append({
        key: message.key,
        value: Buffer.isBuffer(message.value) ? message.value : Buffer.from(message.value),
        headers: { ...(message.headers ?? {}) },
        timestamp,
      });
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    this.assertOpen();
    for (const name of options.topics) this.requireTopic(name);
    const group = this.groupFor(options.groupId);
    const member: Member = {
      id: this.nextMemberId++,
      topics: [...options.topics],
      handler: options.handler,
      retry: options.retry ?? DEFAULT_RETRY_POLICY,
      startFrom: options.startFrom ?? 'earliest',
      workers: new Map(),
    };
    group.members.push(member);
    await this.scheduleRebalance(group);

    let stopped: Promise<void> | undefined;
    return {
      groupId: group.id,
      assignment: () => [...member.workers.keys()].sort(),
      stop: () => {
        stopped ??= this.leave(group, member);
        return stopped;
      },
    };
  }

  async checkHealth(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const group of this.groups.values()) {
      for (const member of [...group.members]) await this.leave(group, member);
    }
  }

  private async leave(group: Group, member: Member): Promise<void> {
    const index = group.members.indexOf(member);
    if (index >= 0) group.members.splice(index, 1);
    group.leaving.add(member);
    await this.scheduleRebalance(group);
  }

  private groupFor(id: string): Group {
    let group = this.groups.get(id);
    if (!group) {
      group = { id, members: [], committed: new Map(), leaving: new Set(), rebalancing: Promise.resolve() };
      this.groups.set(id, group);
    }
    return group;
  }

  private scheduleRebalance(group: Group): Promise<void> {
    group.rebalancing = group.rebalancing.then(() => this.rebalance(group));
    return group.rebalancing;
  }

  /**
   * Round-robin assignment of every partition of the subscribed topics over the
   * members subscribed to that topic, in join order. Revoked partitions finish
   * their in-flight message before the new owner starts, so order per key holds.
   */
  private async rebalance(group: Group): Promise<void> {
    const target = new Map<number, Set<string>>(group.members.map((m) => [m.id, new Set<string>()]));
    const topicNames = [...new Set(group.members.flatMap((m) => m.topics))].sort();
    for (const topicName of topicNames) {
      const eligible = group.members.filter((m) => m.topics.includes(topicName));
      const topic = this.requireTopic(topicName);
      topic.partitions.forEach((_, partition) => {
        const owner = eligible[partition % eligible.length];
        target.get(owner.id)?.add(`${topicName}:${partition}`);
      });
    }

    const revocations: Array<Promise<void>> = [];
    for (const member of [...group.members, ...group.leaving]) {
      const keep = target.get(member.id) ?? new Set<string>();
      for (const [tp, worker] of member.workers) {
        if (!keep.has(tp)) {
          member.workers.delete(tp);
          revocations.push(worker.stop());
        }
      }
    }
    await Promise.all(revocations);
    group.leaving.clear();

    for (const member of group.members) {
      for (const tp of target.get(member.id) ?? []) {
        if (member.workers.has(tp)) continue;
        const [topicName, partitionText] = splitTopicPartition(tp);
        const log = this.requireTopic(topicName).partitions[Number(partitionText)];
        if (!group.committed.has(tp)) {
          group.committed.set(tp, member.startFrom === 'latest' ? log.endOffset : log.startOffset);
        }
        const partition = Number(partitionText);
        const worker = new PartitionWorker(topicName, partition, log, group, member, this.options, () =>
          this.truncateConsumed(topicName, partition, log),
        );
        member.workers.set(tp, worker);
        worker.start();
      }
    }
  }

  /** Drops what every group that reads this partition has consumed. */
  private truncateConsumed(topic: string, partition: number, log: PartitionLog): void {
    const tp = `${topic}:${partition}`;
    let min = Number.POSITIVE_INFINITY;
    for (const group of this.groups.values()) {
      const offset = group.committed.get(tp);
      if (offset !== undefined) min = Math.min(min, offset);
    }
    if (Number.isFinite(min)) log.truncateBefore(min);
  }

  private requireTopic(name: string): Topic {
    const topic = this.topics.get(name);
    if (!topic) throw new Error(`unknown topic ${name}: topics are created at start with ensureTopics`);
    return topic;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the in-process bus is closed');
  }
}

function splitTopicPartition(tp: string): [string, string] {
  const at = tp.lastIndexOf(':');
  return [tp.slice(0, at), tp.slice(at + 1)];
}

/** Consumes one partition for one group member, one message at a time. */
class PartitionWorker {
  private readonly abort = new AbortController();
  private loop: Promise<void> = Promise.resolve();
  private readonly tp: string;

  constructor(
    private readonly topic: string,
    private readonly partition: number,
    private readonly log: PartitionLog,
    private readonly group: Group,
    private readonly member: Member,
    private readonly options: InProcessBusOptions,
    private readonly onProgress: () => void,
  ) {
    this.tp = `${topic}:${partition}`;
  }

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    let sinceYield = 0;
    while (!signal.aborted) {
      const offset = this.group.committed.get(this.tp) ?? this.log.startOffset;
      const stored = this.log.at(offset);
      if (!stored) {
        await this.log.waitBeyond(offset, signal);
        continue;
      }
      const delivered = await this.deliver({
        topic: this.topic,
        partition: this.partition,
        offset: String(stored.offset),
        key: stored.key,
        value: stored.value,
        headers: stored.headers,
        timestamp: stored.timestamp,
      });
      if (!delivered) return;
      this.group.committed.set(this.tp, stored.offset + 1);
      if (++sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        this.onProgress();
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  /** True once the handler accepted the message; false if revoked before that. */
  private async deliver(base: Omit<IncomingMessage, 'attempt'>): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const message: IncomingMessage = { ...base, attempt };
      try {
        await this.member.handler(message);
        return true;
      } catch (error) {
        this.options.onHandlerError?.(error, message);
        const slept = await sleep(retryDelayMs(this.member.retry, attempt), this.abort.signal);
        if (!slept) return false;
      }
    }
  }
}
