/**
 * The message bus port. Services publish and consume through this interface only;
 * the Kafka adapter serves the distributed mode and the in-process adapter the
 * embedded one. Both pass the contract suite in `contract/`.
 *
 * Semantics both adapters guarantee:
 * - a message goes to partition `partitionFor(key)` of its topic (Kafka's murmur2);
 * - within a consumer group each partition has one owner at a time, and the owner
 *   hands messages of a partition to the handler one by one, in offset order;
 * - a message counts as consumed only when its handler resolves (at-least-once):
 *   a handler that throws gets the same message again after a backoff;
 * - in batch mode (`batchHandler`) the owner hands over what it has of one partition
 *   at a time, in offset order, as one call: resolving consumes them all, throwing
 *   hands the same batch again after a backoff (every message's `attempt` grows);
 * - members of one group split the partitions; when a member stops, the others
 *   take over its partitions from the last committed offset.
 */
export interface TopicSpec {
  readonly name: string;
  readonly partitions: number;
}

export type MessageHeaders = Readonly<Record<string, string>>;

export interface OutgoingMessage {
  readonly key: string;
  readonly value: string | Buffer;
  readonly headers?: MessageHeaders;
}

export interface IncomingMessage {
  readonly topic: string;
  readonly partition: number;
  /** Kafka offsets are 64-bit; kept as a decimal string like kafkajs does. */
  readonly offset: string;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: MessageHeaders;
  /** Producer timestamp, epoch milliseconds. */
  readonly timestamp: number;
  /** 1 on first delivery to this consumer, more after handler failures. */
  readonly attempt: number;
  /**
   * The topic and consumer group as the broker names them. A namespaced bus hands
   * handlers `topic` without its prefix; dead letters name where a message really was.
   */
  readonly origin: { readonly topic: string; readonly groupId: string };
}

/**
 * What a handler may report when it resolves: `dead_lettered` when it set the message
 * aside on the dead-letter topic instead of handling it (metrics count it apart).
 */
export type MessageOutcome = 'handled' | 'dead_lettered';

export type MessageHandler = (message: IncomingMessage) => Promise<void | MessageOutcome>;

/**
 * Messages of ONE partition, in offset order, at least one. Resolving consumes them
 * all; throwing redelivers all of them (the bus does not split a batch: setting a
 * poison message aside is the caller's policy, see the runtime's ConsumerRegistry).
 * It may resolve with each message's outcome, in the order given (for metrics).
 */
export type BatchHandler = (messages: readonly IncomingMessage[]) => Promise<void | ReadonlyArray<void | MessageOutcome>>;

export interface RetryPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

export interface SubscribeOptions {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly handler: MessageHandler;
  /**
   * Batch mode: when given, the bus calls this instead of `handler`. `handler` stays
   * the one-message path of the same work, which decorators use to isolate a message
   * of a failing batch.
   */
  readonly batchHandler?: BatchHandler;
  /** Most messages in one batch. Default: `DEFAULT_MAX_BATCH_MESSAGES`. */
  readonly maxBatchMessages?: number;
  /** Where a group with no committed offset starts. Default: earliest. */
  readonly startFrom?: 'earliest' | 'latest';
  readonly retry?: RetryPolicy;
}

/** Messages of one partition the group has not consumed yet (end offset minus committed offset). */
export interface PartitionLag {
  readonly topic: string;
  readonly partition: number;
  readonly lag: number;
}

export interface Subscription {
  readonly groupId: string;
  /** Partitions this member owns now, as `topic:partition`. */
  assignment(): readonly string[];
  /**
   * The group's lag on every partition of its topics, as last measured: the in-process
   * bus counts it when asked; the Kafka bus keeps what each fetched batch reports for the
   * partitions it owns and asks the broker for all of them periodically, so an idle or
   * stalled member still reports. Optional: a subscription that cannot tell omits it.
   */
  lag?(): readonly PartitionLag[];
  /** Stops fetching, waits for in-flight handlers, commits, leaves the group. */
  stop(): Promise<void>;
}

export interface MessageBus {
  /** Creates missing topics with their partition counts; existing topics are left as they are. */
  ensureTopics(topics: readonly TopicSpec[]): Promise<void>;
  /**
   * Resolves once every message is durably accepted by the bus (acks=all for Kafka).
   * A message larger than the bus accepts fails the call with `MessageTooLargeError`
   * before anything of it is sent.
   */
  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Throws when the bus cannot serve requests now; used by readiness probes. */
  checkHealth(): Promise<void>;
  /** Stops every subscription, flushes the producer and disconnects. */
  close(): Promise<void>;
}

/**
 * Largest message both adapters accept, by default: Kafka's own default
 * `message.max.bytes` (1 MiB plus the record batch overhead).
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;

/** Bounds the work (and the transaction) one batch makes, whatever the broker hands over at once. */
export const DEFAULT_MAX_BATCH_MESSAGES = 500;

export const DEFAULT_RETRY_POLICY: RetryPolicy = { initialDelayMs: 100, maxDelayMs: 30_000 };

/** Exponential backoff with full jitter, capped. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
