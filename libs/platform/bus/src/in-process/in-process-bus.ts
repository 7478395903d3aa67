import {
  BatchHandler,
  DEFAULT_MAX_BATCH_MESSAGES,
  DEFAULT_MAX_MESSAGE_BYTES,
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
import { BusBacklog } from '../backlog';
import { UnstorableMessageError } from '../failure-classification';
import { assertPublishable } from '../message-size';
import { partitionFor } from '../partitioner';
import { sleep } from '../sleep';
import { BusJournal, JournalState } from '../journal/bus-journal.port';
import { Durability, DurabilityOptions } from './durability';
import { PartitionLog, StoredMessage } from './partition-log';

export interface InProcessBusOptions extends DurabilityOptions {
  /** Called when a handler throws; the message is delivered again after a backoff. */
  readonly onHandlerError?: (error: unknown, message: IncomingMessage) => void;
  /**
   * Makes the bus durable: `publish` resolves once the messages are in the journal,
   * group offsets are written there, and a new bus on the same journal resumes from
   * it. Without one, messages and offsets live in this process's memory only.
   */
  readonly journal?: BusJournal;
  /** Largest message accepted, counted as Kafka counts it, so both modes refuse the same messages. Default: Kafka's default. */
  readonly maxMessageBytes?: number;
}

interface Topic {
  readonly name: string;
  readonly partitions: PartitionLog[];
}

interface Member {
  readonly id: number;
  readonly topics: readonly string[];
  readonly handler: MessageHandler;
  readonly batch?: { readonly handler: BatchHandler; readonly maxMessages: number };
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

interface Durable {
  readonly durability: Durability;
  /** Settles once the journal is loaded into the bus; every call waits for it. */
  readonly opened: Promise<void>;
}

/** Messages a worker hands over in a row before it yields to the event loop. */
const YIELD_EVERY = 64;
/** With a journal, `earliest` is the journal's first record, read back from Postgres. */
const JOURNAL_START = 0;

/**
 * The embedded bus: Kafka's topic, key, partition and consumer-group semantics in
 * one process, with no broker. Partitions live in memory; with a journal (the
 * embedded launcher's setting) they are written through to Postgres, so what
 * `publish` accepted survives a crash, and group offsets are restored at start.
 */
export class InProcessBus implements MessageBus, BusBacklog {
  private readonly topics = new Map<string, Topic>();
  private readonly groups = new Map<string, Group>();
  private nextMemberId = 1;
  private closed = false;
  private readonly durable?: Durable;

  constructor(private readonly options: InProcessBusOptions = {}) {
    if (options.journal) {
      const durability = new Durability(options.journal, options);
      const opened = durability.open().then((state) => {
        this.restore(state);
        durability.start();
      });
      // Every call awaits `opened` and sees a failed start; this only keeps an
      // unobserved failure from crashing the process.
      opened.catch(() => undefined);
      this.durable = { durability, opened };
    }
  }

  async ensureTopics(specs: readonly TopicSpec[]): Promise<void> {
    if (this.durable) await this.durable.opened;
    for (const spec of specs) {
      if (this.topics.has(spec.name)) continue;
      if (!Number.isInteger(spec.partitions) || spec.partitions < 1) {
        throw new Error(`topic ${spec.name}: partitions must be a positive integer`);
      }
      if (this.durable) await this.durable.durability.addTopic(spec);
      if (!this.topics.has(spec.name)) this.addTopic(spec.name, spec.partitions, () => 0);
    }
    for (const group of this.groups.values()) this.scheduleRebalance(group);
  }

  async publish(topicName: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (this.durable) await this.durable.opened;
    this.assertOpen();
    const topic = this.requireTopic(topicName);
    assertPublishable(topicName, messages, this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
    const timestamp = Date.now();
    const partitionOf = (message: OutgoingMessage): number => partitionFor(topic.name, message.key, topic.partitions.length);
    if (this.durable) {
      assertJournalable(topicName, messages);
      const placed = messages.map((message) => ({ partition: partitionOf(message), ...toStored(message, timestamp) }));
      return this.durable.durability.append(topic.name, topic.partitions, placed);
    }
    for (const message of messages) topic.partitions[partitionOf(message)].append(toStored(message, timestamp));
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.durable) await this.durable.opened;
    this.assertOpen();
    for (const name of options.topics) this.requireTopic(name);
    const group = this.groupFor(options.groupId);
    const member: Member = {
      id: this.nextMemberId++,
      topics: [...options.topics],
      handler: options.handler,
      ...(options.batchHandler ? { batch: { handler: options.batchHandler, maxMessages: options.maxBatchMessages ?? DEFAULT_MAX_BATCH_MESSAGES } } : {}),
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
      // The queue depth: what the group has not consumed of each partition, counted on demand.
      lag: () =>
        member.topics.flatMap((name) =>
          this.requireTopic(name).partitions.map((log, partition) => ({
            topic: name,
            partition,
            lag: Math.max(0, log.endOffset - (group.committed.get(`${name}:${partition}`) ?? (member.startFrom === 'latest' ? log.endOffset : this.durable ? JOURNAL_START : log.startOffset))),
          })),
        ),
      stop: () => {
        stopped ??= this.leave(group, member);
        return stopped;
      },
    };
  }

  /**
   * Each group's distance from the end of every partition it subscribes to. Groups
   * without members do not count: nobody is draining them (and, with a journal, what
   * they have not read lives there, not in memory).
   */
  unconsumedMessages(): number {
    let unconsumed = 0;
    for (const behind of this.unconsumedByGroup().values()) unconsumed += behind;
    return unconsumed;
  }

  unconsumedByGroup(): Map<string, number> {
    const byGroup = new Map<string, number>();
    this.forEachUnconsumed((groupId, log, next) => {
      const behind = Math.max(0, log.endOffset - next);
      if (behind > 0) byGroup.set(groupId, (byGroup.get(groupId) ?? 0) + behind);
    });
    return byGroup;
  }

  unconsumedBytes(): number {
    let bytes = 0;
    this.forEachUnconsumed((_, log, next) => (bytes += log.bytesFrom(next)));
    return bytes;
  }

  /** Each partition every group with members subscribes to, with the group's next offset in it. */
  private forEachUnconsumed(visit: (groupId: string, log: PartitionLog, next: number) => void): void {
    for (const group of this.groups.values()) {
      if (group.members.length === 0) continue;
      for (const topicName of new Set(group.members.flatMap((member) => member.topics))) {
        const topic = this.topics.get(topicName);
        if (!topic) continue;
        topic.partitions.forEach((log, partition) => visit(group.id, log, group.committed.get(`${topicName}:${partition}`) ?? log.startOffset));
      }
    }
  }

  /** Does not query the journal: the services' own database checks report Postgres. */
  async checkHealth(): Promise<void> {
    if (this.durable) await this.durable.opened;
    this.assertOpen();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const group of this.groups.values()) {
      for (const member of [...group.members]) await this.leave(group, member);
    }
    if (this.durable) await this.durable.durability.close(this.durable.opened);
  }

  /** Topics, partition ends and group offsets as the journal holds them; memory starts empty. */
  private restore(state: JournalState): void {
    const ends = new Map(state.ends.map((end) => [`${end.topic}:${end.partition}`, end.endOffset]));
    for (const topic of state.topics) {
      this.addTopic(topic.name, topic.partitions, (partition) => ends.get(`${topic.name}:${partition}`) ?? 0);
    }
    for (const offset of state.groupOffsets) {
      this.groupFor(offset.groupId).committed.set(`${offset.topic}:${offset.partition}`, offset.nextOffset);
    }
  }

  private addTopic(name: string, partitions: number, startOffset: (partition: number) => number): void {
    const logs = Array.from({ length: partitions }, (_, partition) => new PartitionLog(startOffset(partition)));
    this.topics.set(name, { name, partitions: logs });
  }

  /** Records where a group stands; with a journal the offset is written there soon after. */
  private commit(group: Group, topic: string, partition: number, nextOffset: number): void {
    group.committed.set(`${topic}:${partition}`, nextOffset);
    this.durable?.durability.offsetMoved({ groupId: group.id, topic, partition, nextOffset });
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
        const partition = Number(partitionText);
        const log = this.requireTopic(topicName).partitions[partition];
        if (!group.committed.has(tp)) {
          const earliest = this.durable ? JOURNAL_START : log.startOffset;
          this.commit(group, topicName, partition, member.startFrom === 'latest' ? log.endOffset : earliest);
        }
        const worker = new PartitionWorker(topicName, partition, log, group, member, {
          onHandlerError: this.options.onHandlerError,
          onProgress: () => this.truncateConsumed(topicName, partition, log),
          commit: (nextOffset) => this.commit(group, topicName, partition, nextOffset),
          readHistory: this.historyReader(topicName, partition),
        });
        member.workers.set(tp, worker);
        worker.start();
      }
    }
  }

  private historyReader(topic: string, partition: number): HistoryReader | undefined {
    const durability = this.durable?.durability;
    if (!durability) return undefined;
    return (fromOffset, beforeOffset, signal) => durability.readHistory(topic, partition, fromOffset, beforeOffset, signal);
  }

  /**
   * Drops what every group that reads this partition has consumed. With a journal,
   * groups without members do not count: they read what memory dropped back from it.
   */
  private truncateConsumed(topic: string, partition: number, log: PartitionLog): void {
    const tp = `${topic}:${partition}`;
    let min = Number.POSITIVE_INFINITY;
    for (const group of this.groups.values()) {
      if (this.durable && group.members.length === 0) continue;
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

function toStored(message: OutgoingMessage, timestamp: number): Omit<StoredMessage, 'offset'> {
  return {
    key: message.key,
    value: Buffer.isBuffer(message.value) ? message.value : Buffer.from(message.value),
    headers: { ...(message.headers ?? {}) },
    timestamp,
  };
}

/** The journal stores keys and headers as Postgres text; a NUL there would fail the whole multi-row write it shares with other publishes. */
function assertJournalable(topic: string, messages: readonly OutgoingMessage[]): void {
  for (const message of messages) {
    if (message.key.includes('\u0000')) throw new UnstorableMessageError(topic, 'key');
    for (const [name, value] of Object.entries(message.headers ?? {})) {
      if (name.includes('\u0000') || value.includes('\u0000')) throw new UnstorableMessageError(topic, `header ${JSON.stringify(name)}`);
    }
  }
}

function splitTopicPartition(tp: string): [string, string] {
  const at = tp.lastIndexOf(':');
  return [tp.slice(0, at), tp.slice(at + 1)];
}

type HistoryReader = (fromOffset: number, beforeOffset: number, signal: AbortSignal) => Promise<StoredMessage[] | undefined>;

interface WorkerHooks {
  readonly onHandlerError?: (error: unknown, message: IncomingMessage) => void;
  /** Called every few messages, so consumed prefixes can be dropped from memory. */
  readonly onProgress: () => void;
  readonly commit: (nextOffset: number) => void;
  /** With a journal: reads what lies below the in-memory tail. */
  readonly readHistory?: HistoryReader;
}

/** Consumes one partition for one group member, one message (or, in batch mode, one batch) at a time. */
class PartitionWorker {
  private readonly abort = new AbortController();
  private loop: Promise<void> = Promise.resolve();
  private readonly tp: string;
  /** Messages read back from the journal, handed over before anything else. */
  private backlog: StoredMessage[] = [];

  constructor(
    private readonly topic: string,
    private readonly partition: number,
    private readonly log: PartitionLog,
    private readonly group: Group,
    private readonly member: Member,
    private readonly hooks: WorkerHooks,
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
    if (this.member.batch) return this.runBatches(this.member.batch.handler, this.member.batch.maxMessages);
    const signal = this.abort.signal;
    let sinceYield = 0;
    while (!signal.aborted) {
      const offset = this.group.committed.get(this.tp) ?? this.log.startOffset;
      const stored = this.backlog.shift() ?? this.fromMemory(offset);
      if (!stored) {
        await this.refill(offset, signal);
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
        origin: { topic: this.topic, groupId: this.group.id },
      });
      if (!delivered) return;
      this.hooks.commit(stored.offset + 1);
      if (++sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        this.hooks.onProgress();
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  /** Batch mode: what is queued for the partition (up to `maxMessages`) goes to the handler as one call. */
  private async runBatches(handler: BatchHandler, maxMessages: number): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      const offset = this.group.committed.get(this.tp) ?? this.log.startOffset;
      const stored = this.takeBatch(offset, maxMessages);
      if (stored.length === 0) {
        await this.refill(offset, signal);
        continue;
      }
      const base = stored.map((m) => ({
        topic: this.topic,
        partition: this.partition,
        offset: String(m.offset),
        key: m.key,
        value: m.value,
        headers: m.headers,
        timestamp: m.timestamp,
        origin: { topic: this.topic, groupId: this.group.id },
      }));
      if (!(await this.deliverBatch(handler, base))) return;
      this.hooks.commit(stored[stored.length - 1].offset + 1);
      this.hooks.onProgress();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The next messages from `offset` on: the journal's backlog first, else consecutive ones in memory. */
  private takeBatch(offset: number, maxMessages: number): StoredMessage[] {
    if (this.backlog.length > 0) return this.backlog.splice(0, maxMessages);
    const batch: StoredMessage[] = [];
    for (let next = offset; batch.length < maxMessages; next++) {
      const stored = this.fromMemory(next);
      if (!stored) break;
      batch.push(stored);
    }
    return batch;
  }

  /** True once the handler accepted the batch; false if revoked before that. */
  private async deliverBatch(handler: BatchHandler, base: ReadonlyArray<Omit<IncomingMessage, 'attempt'>>): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const messages: IncomingMessage[] = base.map((m) => ({ ...m, attempt }));
      try {
        await handler(messages);
        return true;
      } catch (error) {
        this.hooks.onHandlerError?.(error, messages[0]);
        const slept = await sleep(retryDelayMs(this.member.retry, attempt), this.abort.signal);
        if (!slept) return false;
      }
    }
  }

  /** The message at `offset` in memory, unless the group is behind memory and the journal holds what comes next. */
  private fromMemory(offset: number): StoredMessage | undefined {
    return this.hooks.readHistory && offset < this.log.startOffset ? undefined : this.log.at(offset);
  }

  /**
   * Behind memory (with a journal): reads the next page back from the journal into the
   * backlog. Otherwise, or once nothing is left below memory: waits for a new message.
   */
  private async refill(offset: number, signal: AbortSignal): Promise<void> {
    if (this.hooks.readHistory && offset < this.log.startOffset) {
      const page = await this.hooks.readHistory(offset, this.log.startOffset, signal);
      if (page === undefined) return; // a failed read, retried after its pause
      if (page.length > 0) {
        this.backlog = page;
        return;
      }
      // Pruned up to the in-memory tail: memory continues.
      const tail = this.log.at(offset);
      if (tail) {
        this.backlog = [tail];
        return;
      }
    }
    await this.log.waitBeyond(Math.max(offset, this.log.startOffset), signal);
  }

  /** True once the handler accepted the message; false if revoked before that. */
  private async deliver(base: Omit<IncomingMessage, 'attempt'>): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const message: IncomingMessage = { ...base, attempt };
      try {
        await this.member.handler(message);
        return true;
      } catch (error) {
        this.hooks.onHandlerError?.(error, message);
        const slept = await sleep(retryDelayMs(this.member.retry, attempt), this.abort.signal);
        if (!slept) return false;
      }
    }
  }
}
