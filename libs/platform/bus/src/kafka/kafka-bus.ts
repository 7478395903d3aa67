import {
  Admin,
  Consumer,
  EachBatchPayload,
  IHeaders,
  Kafka,
  KafkaMessage,
  ICustomPartitioner,
  PartitionAssigners,
  Partitioners,
  Producer,
  logLevel as KafkaLogLevel,
  LogEntry,
  Message,
  TopicMessages,
} from 'kafkajs';
import {
  BatchHandler,
  DEFAULT_MAX_BATCH_MESSAGES,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_RETRY_POLICY,
  IncomingMessage,
  MessageBus,
  OutgoingMessage,
  RetryPolicy,
  SubscribeOptions,
  Subscription,
  TopicSpec,
  retryDelayMs,
} from '../message-bus.port';
import { PROCESS_ORIGIN } from '@herald/database';
import { RECORD_BATCH_OVERHEAD, assertPublishable, recordBytes } from '../message-size';
import { partitionFor } from '../partitioner';
import { sleep } from '../sleep';
import { colocatingAssigner } from './colocating-assigner';
import { ConsumerLag } from './consumer-lag';
import { applyDeferredCommits } from './deferred-commit';
import { HEARTBEAT_INTERVAL_MS, applyIdleFetch } from './idle-fetch';
import { heraldLevelOfKafkaLog } from './kafka-log-level';
import { applyRequestQueueFix } from './request-queue-fix';

export interface KafkaBusLogger {
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void;
}

export interface KafkaBusOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly logger?: KafkaBusLogger;
  /** Partitions of one member handed to a `handler` concurrently (each still in order). Default 4. */
  readonly partitionsConsumedConcurrently?: number;
  /**
   * Partitions of one member handed to a `batchHandler` concurrently (each still in
   * order). Default `DEFAULT_BATCH_PARTITIONS_CONCURRENTLY`: enough that every partition
   * of a fetch is handed over in the same turn, so a handler that merges what it is
   * handed together (the runtime's `coalescedBatches`) handles a fetch in one call.
   */
  readonly batchPartitionsConsumedConcurrently?: number;
  /**
   * Longest a fetch waits for data (default `DEFAULT_FETCH_WAIT_MS`). A fetch answers as
   * soon as data arrives, so this is not latency; it is how often a member with nothing
   * to do asks again.
   */
  readonly maxWaitTimeMs?: number;
  readonly onHandlerError?: (error: unknown, message: IncomingMessage) => void;
  /**
   * Largest message accepted (record batch bytes, as the broker counts them); set it to
   * at most the broker's `message.max.bytes`. Default: Kafka's default.
   */
  readonly maxMessageBytes?: number;
  /** How old a group's lag may be before a read of it asks the broker again (see `ConsumerLag`). Default 15 s. */
  readonly lagRefreshMs?: number;
}

/**
 * How long a fetch waits for data when there is none. A fetch answers as soon as a
 * message arrives, so this is not latency; it is how often an idle consumer asks again.
 * At 500 ms an idle engine and dispatcher pair's fetch loops cost about 75 requests a
 * second. A longer wait used to make every stop, and every join into an idle group,
 * wait up to that long (kafkajs heartbeats and stops only between fetches); since
 * `idle-fetch.ts` an idle fetch heartbeats and is abandoned on stop, so neither waits.
 * What still waits: after a rebalance, a member's first fetch follows its interrupted
 * one on the broker (see idle-fetch.ts), so this also bounds that.
 */
export const DEFAULT_FETCH_WAIT_MS = 3_000;

/**
 * See `KafkaBusOptions.batchPartitionsConsumedConcurrently`: Herald's topics have 12
 * partitions by default, and a member of a group of one owns all of them. With 4, a fetch
 * that returned 12 partitions' batches was handled in three waves, one after another,
 * each wave's own append transaction; the next fetch waited for all three.
 */
export const DEFAULT_BATCH_PARTITIONS_CONCURRENTLY = 16;

/**
 * The distributed bus on kafkajs. Producer: idempotent, acks from all in-sync
 * replicas; concurrent `publish` calls are coalesced into one produce request (see
 * `publish`). Consumers: one kafkajs consumer per subscription; offsets are resolved
 * only after the handler resolves, and a failing handler is retried in place with
 * backoff (heartbeating meanwhile) until it succeeds or the partition is revoked,
 * after which the new owner gets the message again.
 */
export class KafkaBus implements MessageBus {
  private readonly kafka: Kafka;
  /** Replaced after a failed produce request (see `replaceProducer`). */
  private producer: Producer;
  private readonly admin: Admin;
  private connected?: Promise<void>;
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;
  /** Publish calls waiting for the next produce request, in call order. */
  private queue: PendingPublish[] = [];
  /** The loop sending `queue`, while it runs. */
  private flushing?: Promise<void>;
  /** Topics a produce request has reached: only their calls are coalesced. */
  private readonly provenTopics = new Set<string>();
  private readonly maxMessageBytes: number;
  /** Most record bytes in one produce request, so that no partition's batch can exceed `maxMessageBytes`. */
  private readonly requestBytes: number;

  constructor(private readonly options: KafkaBusOptions) {
    // Without it every broker connection spins a 1 ms timer (see request-queue-fix.ts).
    applyRequestQueueFix();
    // A busy consumer's next fetch waits briefly for a fuller batch (fetch-linger.ts, applied
    // by applyIdleFetch); an idle consumer's waits long, heartbeating, and a stop does not
    // wait for it (idle-fetch.ts).
    applyIdleFetch();
    // Offsets are committed once a second while messages flow, not after every batch (deferred-commit.ts).
    applyDeferredCommits();
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: [...options.brokers],
      connectionTimeout: 3_000,
      requestTimeout: 30_000,
      retry: { initialRetryTime: 200, retries: 8 },
      logLevel: KafkaLogLevel.WARN,
      logCreator: () => (entry: LogEntry) => this.forwardLog(entry),
    });
    this.producer = this.createProducer();
    this.admin = this.kafka.admin();
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.requestBytes = Math.min(MAX_COALESCED_BYTES, this.maxMessageBytes - RECORD_BATCH_OVERHEAD);
  }

  async ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    await this.connect();
    const existing = new Set(await this.admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.name));
    if (missing.length > 0) {
      try {
        await this.admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((t) => ({ topic: t.name, numPartitions: t.partitions, replicationFactor: -1 })),
        });
      } catch (error) {
        // A broker under load may answer the leader check before it hosts the new
        // partitions ("does not host this topic-partition"); kafkajs gives up on that.
        if (!isMetadataNotReady(error)) throw error;
      }
      await this.awaitLeaders(missing.map((t) => t.name));
    }
    const present = topics.filter((t) => existing.has(t.name));
    if (present.length === 0) return;
    const metadata = await this.admin.fetchTopicMetadata({ topics: present.map((t) => t.name) });
    for (const topic of metadata.topics) {
      const wanted = present.find((t) => t.name === topic.name)?.partitions ?? 0;
      if (topic.partitions.length < wanted) {
        // Adding partitions moves keys to other partitions and breaks per-key order
        // for in-flight runs, so it is an operator's decision, never automatic.
        this.options.logger?.log('warn', 'topic has fewer partitions than configured', {
          topic: topic.name,
          partitions: topic.partitions.length,
          configured: wanted,
        });
      }
    }
  }

  /**
   * Resolves once Kafka has acknowledged every message (acks=-1, idempotent producer).
   *
   * kafkajs's idempotent producer holds a lock per broker around each produce request,
   * so concurrent `send` calls would queue one round trip each (about 430 single-message
   * publishes per second on a 2-core machine, ingest bench of 2026-11-21). Instead, the
   * calls that arrive while a request is in flight wait and then go out together in
   * the next one (group commit): one `sendBatch`, messages in call order, so the order
   * of calls is kept per partition. Each call still resolves only when its messages are
   * acknowledged; if the request fails, every call in it fails (none is acknowledged,
   * as when one call fails). The first publish to a topic goes alone, outside the queue,
   * so that a missing topic (kafkajs retries it for a long time) cannot hold up or fail
   * the calls of other topics.
   *
   * Sizes: a message over `maxMessageBytes` fails the call before anything is sent, and
   * a large call is split into produce requests of at most `requestBytes` (sent in
   * order), so the broker never refuses a partition's batch for its size. It matters:
   * a broker that refuses one partition of a request appends the others, and kafkajs
   * then rewinds the idempotent sequence of every partition of the request, after
   * which that producer's next batches to those partitions fail (out of order
   * sequence) or, when they happen to match the sequence range, are acknowledged and
   * dropped as duplicates.
   */
  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    assertPublishable(topic, messages, this.maxMessageBytes);
    await this.connect();
    const chunks = chunkBySize(messages, this.requestBytes);
    if (!this.provenTopics.has(topic)) {
      for (const chunk of chunks) await this.sendAlone(topic, chunk.messages);
      this.provenTopics.add(topic);
      return;
    }
    await Promise.all(
      chunks.map(
        (chunk) =>
          new Promise<void>((resolve, reject) => {
            this.queue.push({ topic, messages: chunk.messages, bytes: chunk.bytes, resolve, reject });
            this.flushing ??= this.flush();
          }),
      ),
    );
  }

  private async sendAlone(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    const producer = this.producer;
    try {
      await producer.send({ topic, acks: -1, messages: toProducerMessages(messages) });
    } catch (error) {
      this.replaceProducer(producer, error);
      throw error;
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    await this.connect();
    const retry = options.retry ?? DEFAULT_RETRY_POLICY;
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      allowAutoTopicCreation: false,
      // A member that died (kill -9, a lost node) holds its partitions until this passes,
      // and a restarted replica cannot join before: 10 s, not kafkajs's 30 s.
      sessionTimeout: 10_000,
      rebalanceTimeout: 60_000,
      // Members learn of a rebalance from a heartbeat's answer, so a joining replica waits
      // up to one interval for each of them: 1 s, not 3 s (startup bench, 2026-11-25;
      // docs/architecture.md, Operations).
      heartbeatInterval: HEARTBEAT_INTERVAL_MS,
      // One key's partitions of every group on one process (colocating-assigner.ts).
      partitionAssigners: [colocatingAssigner(PROCESS_ORIGIN), PartitionAssigners.roundRobin],
      maxWaitTimeInMs: this.options.maxWaitTimeMs ?? DEFAULT_FETCH_WAIT_MS,
      retry: { initialRetryTime: 300, retries: 10 },
    });
    let assignment: string[] = [];
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      assignment = Object.entries(event.payload.memberAssignment)
        .flatMap(([topic, partitions]) => partitions.map((p) => `${topic}:${p}`))
        .sort();
    });
    await consumer.connect();
    for (const topic of options.topics) {
      await consumer.subscribe({ topic, fromBeginning: (options.startFrom ?? 'earliest') === 'earliest' });
    }
    const lag = new ConsumerLag(this.admin, options.groupId, options.topics, options.startFrom ?? 'earliest', this.options.lagRefreshMs ?? 15_000, (error) =>
      this.options.logger?.log('debug', 'consumer lag not fetched', { group: options.groupId, error: error instanceof Error ? error.message : String(error) }),
    );
    consumer.on(consumer.events.END_BATCH_PROCESS, (event) => lag.observeBatch(event.payload.topic, event.payload.partition, event.payload.offsetLag));
    await consumer.run({
      autoCommit: true,
      autoCommitInterval: 1_000,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: options.batchHandler
        ? (this.options.batchPartitionsConsumedConcurrently ?? DEFAULT_BATCH_PARTITIONS_CONCURRENTLY)
        : (this.options.partitionsConsumedConcurrently ?? 4),
      eachBatch: (payload) =>
        options.batchHandler
          ? this.consumeWhole(payload, options.groupId, options.batchHandler, retry, options.maxBatchMessages ?? DEFAULT_MAX_BATCH_MESSAGES)
          : this.consumeBatch(payload, options.groupId, options.handler, retry),
    });

    let stopped: Promise<void> | undefined;
    const subscription: Subscription = {
      groupId: options.groupId,
      assignment: () => assignment,
      lag: () => lag.snapshot(),
      stop: () => {
        stopped ??= Promise.all([lag.stop(), this.stopConsumer(consumer)]).then(() => undefined).finally(() => {
          assignment = [];
          this.subscriptions.delete(subscription);
        });
        return stopped;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** Resolves once every partition of the topics has a leader; topic creation is asynchronous on the broker. */
  private async awaitLeaders(topics: readonly string[], timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
      try {
        const metadata = await this.admin.fetchTopicMetadata({ topics: [...topics] });
        if (metadata.topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
      } catch (error) {
        if (!isMetadataNotReady(error)) throw error;
      }
      if (Date.now() > deadline) throw new Error(`Kafka topics have no leaders after ${timeoutMs} ms: ${topics.join(', ')}`);
      await sleep(delay);
    }
  }

  async checkHealth(timeoutMs = 5_000): Promise<void> {
    if (this.closed) throw new Error('the Kafka bus is closed');
    // kafkajs retries connections for a long time; a probe wants a prompt answer.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Kafka did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.connect().then(() => this.admin.describeCluster()), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    // Calls already accepted into the queue are sent before the producer disconnects.
    await this.flushing;
    if (this.connected) {
      await this.producer.disconnect();
      await this.admin.disconnect();
    }
  }

  /**
   * Sends the queue, one produce request at a time, until it is empty. The first
   * request waits for the current turn of the event loop to end, so that the calls
   * made in it (requests that arrived together) share the request.
   */
  private async flush(): Promise<void> {
    try {
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const batch = this.takeBatch();
        const producer = this.producer;
        try {
          await producer.sendBatch({ acks: -1, topicMessages: toTopicMessages(batch) });
        } catch (error) {
          this.replaceProducer(producer, error);
          // A topic deleted since: its next publish proves it again, alone.
          for (const call of batch) this.provenTopics.delete(call.topic);
          for (const call of batch) call.reject(error);
          continue;
        }
        for (const call of batch) call.resolve();
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /** The oldest calls, up to `requestBytes` (a larger one goes alone). */
  private takeBatch(): PendingPublish[] {
    let count = 1;
    let bytes = this.queue[0].bytes;
    while (count < this.queue.length && bytes + this.queue[count].bytes <= this.requestBytes) {
      bytes += this.queue[count].bytes;
      count++;
    }
    const batch = this.queue.slice(0, count);
    this.queue = this.queue.slice(count);
    return batch;
  }

  private createProducer(): Producer {
    return this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 5,
      allowAutoTopicCreation: false,
      createPartitioner: keyedPartitioner,
    });
  }

  /**
   * After a failed produce request the producer's sequence numbers can no longer be
   * trusted: kafkajs rewinds those of every partition of the request, including the
   * partitions the broker did append (see `publish`). A new producer gets a new
   * producer id and starts its sequences afresh. The old one is disconnected in the
   * background; a request still in flight on it fails, and its callers retry as after
   * any failed publish.
   */
  private replaceProducer(failed: Producer, error: unknown): void {
    if (this.producer !== failed || this.closed) return;
    this.producer = this.createProducer();
    this.connected = undefined;
    this.options.logger?.log('warn', 'kafka producer replaced after a failed produce request', {
      error: error instanceof Error ? error.message : String(error),
    });
    failed.disconnect().catch(() => undefined);
  }

  private connect(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the Kafka bus is closed'));
    this.connected ??= Promise.all([this.producer.connect(), this.admin.connect()]).then(
      () => undefined,
      (error: unknown) => {
        this.connected = undefined;
        throw error;
      },
    );
    return this.connected;
  }

  private async consumeBatch(
    { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload,
    groupId: string,
    handler: SubscribeOptions['handler'],
    retry: RetryPolicy,
  ): Promise<void> {
    for (const raw of batch.messages) {
      if (!isRunning() || isStale()) return;
      for (let attempt = 1; ; attempt++) {
        const message = toIncoming(batch.topic, batch.partition, raw, attempt, groupId);
        try {
          await handler(message);
          break;
        } catch (error) {
          this.options.onHandlerError?.(error, message);
          const deadline = Date.now() + retryDelayMs(retry, attempt);
          // Heartbeat while backing off so a long retry does not cost the partition.
          while (Date.now() < deadline) {
            if (!isRunning() || isStale()) return;
            await sleep(Math.min(1_000, deadline - Date.now()));
            await heartbeat();
          }
        }
      }
      resolveOffset(raw.offset);
      await commitOffsetsIfNecessary();
      await heartbeat();
    }
  }

  /**
   * Batch mode: what kafkajs fetched of the partition goes to the handler in slices of
   * at most `maxMessages`, each handed again (with backoff, heartbeating) until the
   * handler resolves, and only then resolved and committed.
   */
  private async consumeWhole(
    { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload,
    groupId: string,
    handler: BatchHandler,
    retry: RetryPolicy,
    maxMessages: number,
  ): Promise<void> {
    for (let start = 0; start < batch.messages.length; start += maxMessages) {
      const slice = batch.messages.slice(start, start + maxMessages);
      for (let attempt = 1; ; attempt++) {
        if (!isRunning() || isStale()) return;
        const messages = slice.map((raw) => toIncoming(batch.topic, batch.partition, raw, attempt, groupId));
        try {
          await handler(messages);
          break;
        } catch (error) {
          this.options.onHandlerError?.(error, messages[0]);
          const deadline = Date.now() + retryDelayMs(retry, attempt);
          while (Date.now() < deadline) {
            if (!isRunning() || isStale()) return;
            await sleep(Math.min(1_000, deadline - Date.now()));
            await heartbeat();
          }
        }
      }
      resolveOffset(slice[slice.length - 1].offset);
      await commitOffsetsIfNecessary();
      await heartbeat();
    }
  }

  private async stopConsumer(consumer: Consumer): Promise<void> {
    await consumer.stop();
    await consumer.disconnect();
  }

  private forwardLog(entry: LogEntry): void {
    const logger = this.options.logger;
    if (!logger) return;
    const { message, ...fields } = entry.log;
    // Expected and self-healing lines are debug, a crashed consumer an error, the rest warnings (kafka-log-level.ts).
    const level = heraldLevelOfKafkaLog({ level: entry.level, namespace: entry.namespace, message, error: fields.error });
    logger.log(level, `kafka: ${message}`, { namespace: entry.namespace, ...fields });
  }
}

interface PendingPublish {
  readonly topic: string;
  readonly messages: readonly OutgoingMessage[];
  /** Records' bytes (`recordBytes`). */
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Most record bytes in one produce request. Kafka refuses a partition's record batch
 * above `message.max.bytes` (1 MB by default); a request spreads its bytes over the
 * partitions, so this keeps every batch well below that.
 */
const MAX_COALESCED_BYTES = 512 * 1024;

interface Chunk {
  readonly messages: OutgoingMessage[];
  readonly bytes: number;
}

/** Consecutive runs of messages of at most `limit` record bytes (a larger message is a run of its own). */
function chunkBySize(messages: readonly OutgoingMessage[], limit: number): Chunk[] {
  const chunks: Chunk[] = [];
  let current: OutgoingMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = recordBytes(message);
    if (current.length > 0 && bytes + size > limit) {
      chunks.push({ messages: current, bytes });
      current = [];
      bytes = 0;
    }
    current.push(message);
    bytes += size;
  }
  if (current.length > 0) chunks.push({ messages: current, bytes });
  return chunks;
}

/** kafkajs only reads the headers, so they are passed as they are. */
function toProducerMessage(m: OutgoingMessage): Message {
  return { key: m.key, value: m.value, headers: m.headers };
}

function toProducerMessages(messages: readonly OutgoingMessage[]): Message[] {
  return messages.map(toProducerMessage);
}

/** One entry per topic (kafkajs keys its bookkeeping by topic), messages in call order. */
function toTopicMessages(batch: readonly PendingPublish[]): TopicMessages[] {
  const byTopic = new Map<string, Message[]>();
  for (const call of batch) {
    let messages = byTopic.get(call.topic);
    if (messages === undefined) byTopic.set(call.topic, (messages = []));
    for (const m of call.messages) messages.push(toProducerMessage(m));
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

function toIncoming(topic: string, partition: number, raw: KafkaMessage, attempt: number, groupId: string): IncomingMessage {
  return {
    topic,
    partition,
    offset: raw.offset,
    key: raw.key?.toString('utf8') ?? '',
    value: raw.value ?? Buffer.alloc(0),
    headers: decodeHeaders(raw.headers),
    timestamp: Number(raw.timestamp),
    attempt,
    origin: { topic, groupId },
  };
}

function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    decoded[name] = Buffer.isBuffer(first) ? first.toString('utf8') : String(first);
  }
  return decoded;
}

/**
 * Kafka's default partitioning for keyed messages, through our faster murmur2 (the
 * same function the in-process bus uses); kafkajs's own for the rare unkeyed one.
 */
const keyedPartitioner: ICustomPartitioner = () => {
  const unkeyed = Partitioners.DefaultPartitioner();
  return (args) => {
    const key = args.message.key;
    if (key === null || key === undefined) return unkeyed(args);
    return partitionFor(args.topic, Buffer.isBuffer(key) ? key.toString('utf8') : key, args.partitionMetadata.length);
  };
};

/** The broker has not finished creating a topic yet: its metadata will be there shortly. */
function isMetadataNotReady(error: unknown): boolean {
  const type = (error as { type?: unknown } | null)?.type;
  return type === 'UNKNOWN_TOPIC_OR_PARTITION' || type === 'LEADER_NOT_AVAILABLE';
}
