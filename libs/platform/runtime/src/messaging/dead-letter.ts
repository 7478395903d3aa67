import {
  DeadLetterPayload,
  DeadLetterReasonCode,
  Envelope,
  FieldError,
  HeraldError,
  ParseResult,
  TOPICS,
  knownSchemaVersions,
  parseEnvelope,
  storableText,
  unknownSchemaVersion,
} from '@herald/contracts';
import { BatchHandler, DEFAULT_MAX_BATCH_MESSAGES, IncomingMessage, MessageBus, MessageHandler, MessageOutcome, classifyFailure } from '@herald/bus';
import { Counter, Registry } from 'prom-client';
import { HeraldLogger } from '../logging/logger';
import { coalescedBatches } from './coalesced-batches';

export interface EnvelopeConsumer<T> {
  readonly groupId: string;
  /** The envelope `type` this consumer accepts. */
  readonly type: string;
  /**
   * The `schema_version`s of `type` it reads; by default the type's entry in
   * `KNOWN_SCHEMA_VERSIONS` (@herald/contracts), which a type must then have. A message of
   * another version is dead-lettered (`unknown_schema_version`).
   */
  readonly schemaVersions?: readonly number[];
  /** Validates the payload; what fails goes to the dead-letter topic. */
  readonly parsePayload: (payload: unknown) => ParseResult<T>;
  readonly handle: (payload: T, envelope: Envelope<T>, message: IncomingMessage) => Promise<void>;
}

/** A valid message of a batch, with its parsed envelope. */
export interface ParsedMessage<T> {
  readonly payload: T;
  readonly envelope: Envelope<T>;
  readonly message: IncomingMessage;
}

/**
 * An EnvelopeConsumer that takes valid messages in batches: of one or more partitions
 * (see `coalescedBatches`), each partition's in offset order.
 */
export interface EnvelopeBatchConsumer<T> extends Omit<EnvelopeConsumer<T>, 'handle'> {
  readonly handleBatch: (messages: readonly ParsedMessage<T>[]) => Promise<void>;
}

/** Longest reason kept in a dead letter (and its header): error messages can quote the input. */
const MAX_REASON_CHARS = 500;

/**
 * Publishes messages that cannot be processed to `notify.deadletter.v1`, with the
 * reason, where they came from (the topic and group as the broker names them) and
 * the original bytes, and counts them in `herald_bus_dead_letters_total`.
 */
export class DeadLetters {
  private readonly counter?: Counter<'topic' | 'group' | 'reason'>;

  constructor(
    private readonly bus: MessageBus,
    private readonly logger: HeraldLogger,
    registry?: Registry,
  ) {
    if (registry) this.counter = deadLetterCounter(registry);
  }

  async send(
    groupId: string,
    message: IncomingMessage,
    reasonCode: DeadLetterReasonCode,
    reason: string,
    errors: readonly FieldError[],
  ): Promise<MessageOutcome> {
    const text = message.value.toString('utf8');
    const isText = Buffer.from(text, 'utf8').equals(message.value);
    const shortReason = reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}…` : reason;
    const payload: DeadLetterPayload = {
      source_topic: message.origin.topic,
      source_partition: message.partition,
      source_offset: message.offset,
      consumer_group: message.origin.groupId,
      key: message.key,
      reason_code: reasonCode,
      reason: shortReason,
      attempts: message.attempt,
      errors,
      original: isText ? text : message.value.toString('base64'),
      original_encoding: isText ? 'utf8' : 'base64',
      failed_at: new Date().toISOString(),
    };
    // The key and headers are stored by the embedded bus's journal (text and jsonb), where
    // a NUL or a lone surrogate cannot go; the payload keeps the exact key (JSON escapes it).
    await this.bus.publish(TOPICS.deadLetter.name, [
      { key: storableText(message.key), value: JSON.stringify(payload), headers: { 'x-dead-letter-reason': storableText(shortReason) } },
    ]);
    this.counter?.inc({ topic: message.topic, group: groupId, reason: reasonCode });
    // A message Herald itself could not process needs an operator (so does a producer newer
    // than its consumer: every message of that version is set aside until the consumer is
    // upgraded and they are replayed); an invalid one is the sender's mistake.
    const level = reasonCode === 'unprocessable' || reasonCode === 'attempts_exhausted' || reasonCode === 'unknown_schema_version' ? 'error' : 'warn';
    this.logger.write(level, 'message dead-lettered', {
      topic: message.origin.topic,
      partition: message.partition,
      offset: message.offset,
      group: message.origin.groupId,
      reason_code: reasonCode,
      reason: shortReason,
      attempts: message.attempt,
      errors,
    });
    return 'dead_lettered';
  }
}

function deadLetterCounter(registry: Registry): Counter<'topic' | 'group' | 'reason'> {
  const name = 'herald_bus_dead_letters_total';
  // The embedded process runs two Nest applications on one registry.
  return (
    (registry.getSingleMetric(name) as Counter<'topic' | 'group' | 'reason'> | undefined) ??
    new Counter({
      name,
      help: 'Messages sent to the dead-letter topic, by source topic, consumer group and reason code',
      labelNames: ['topic', 'group', 'reason'],
      registers: [registry],
    })
  );
}

/** Why a consumer cannot read a message, before its handler sees it. */
interface Unreadable {
  readonly reasonCode: 'invalid_envelope' | 'unknown_schema_version' | 'invalid_payload';
  readonly reason: string;
  readonly errors: readonly FieldError[];
}

/**
 * Reads a message as `consumer` does: a valid envelope of its type, of a schema version
 * in `known`, with a valid payload. Pure; what it answers as unreadable is dead-lettered.
 */
function readMessage<T>(
  message: IncomingMessage,
  consumer: Pick<EnvelopeConsumer<T>, 'type' | 'parsePayload'>,
  known: readonly number[],
): ParsedMessage<T> | Unreadable {
  const envelope = parseEnvelope(message.value, consumer.type);
  if (!envelope.ok) return { reasonCode: 'invalid_envelope', reason: 'invalid envelope', errors: envelope.errors };
  // Before the payload: a payload of an unknown version may parse and mean something else.
  const unknownVersion = unknownSchemaVersion(envelope.value, known);
  if (unknownVersion !== undefined) return { reasonCode: 'unknown_schema_version', reason: unknownVersion.message, errors: [unknownVersion] };
  const payload = consumer.parsePayload(envelope.value.payload);
  if (!payload.ok) return { reasonCode: 'invalid_payload', reason: 'invalid payload', errors: payload.errors };
  return { payload: payload.value, envelope: { ...envelope.value, payload: payload.value } as Envelope<T>, message };
}

/** The versions a consumer reads (see `EnvelopeConsumer.schemaVersions`); throws at subscription for an unregistered type. */
function readableVersions(consumer: Pick<EnvelopeConsumer<unknown>, 'type' | 'schemaVersions'>): readonly number[] {
  return consumer.schemaVersions ?? knownSchemaVersions(consumer.type);
}

/**
 * Wraps a consumer so that an invalid message never blocks its partition: a message
 * that is not a valid envelope of the expected type, is of a `schema_version` the
 * consumer does not read, or whose handler rejects it as invalid (a HeraldError
 * `validation_error`), is dead-lettered and acknowledged, never retried. Other
 * failures are thrown on, for `boundedAttempts` (which the ConsumerRegistry puts
 * around every handler) to retry or set aside.
 */
export function deadLetteringHandler<T>(deadLetters: DeadLetters, consumer: EnvelopeConsumer<T>): MessageHandler {
  const known = readableVersions(consumer);
  return async (message) => {
    const read = readMessage(message, consumer, known);
    if ('reasonCode' in read) return deadLetters.send(consumer.groupId, message, read.reasonCode, read.reason, read.errors);
    try {
      await consumer.handle(read.payload, read.envelope, message);
      return 'handled';
    } catch (error) {
      if (error instanceof HeraldError && error.code === 'validation_error') {
        return deadLetters.send(consumer.groupId, message, 'rejected', error.message, error.fieldErrors);
      }
      throw error;
    }
  };
}

/**
 * `deadLetteringHandler` for a batch consumer: the batch handler and its one-message
 * path (a batch of one, which `boundedBatchAttempts` falls back to). Invalid messages
 * are left out of the batch and dead-lettered once the valid ones are handled, so a
 * batch that fails and comes again does not dead-letter them twice. The valid messages
 * of batches handed over together (a member's partitions) reach the consumer as one
 * batch of at most `maxMessages` (see `coalescedBatches`); the one-message path is
 * never merged.
 */
export function deadLetteringBatchHandler<T>(
  deadLetters: DeadLetters,
  consumer: EnvelopeBatchConsumer<T>,
  maxMessages = DEFAULT_MAX_BATCH_MESSAGES,
): { handler: MessageHandler; batchHandler: BatchHandler } {
  const handleMerged = coalescedBatches((valid: readonly ParsedMessage<T>[]) => consumer.handleBatch(valid), maxMessages);
  const handler = deadLetteringHandler(deadLetters, {
    ...consumer,
    handle: (payload, envelope, message) => consumer.handleBatch([{ payload, envelope, message }]),
  });
  const known = readableVersions(consumer);
  const batchHandler: BatchHandler = async (messages) => {
    const valid: Array<ParsedMessage<T>> = [];
    const invalid: Array<{ message: IncomingMessage; unreadable: Unreadable }> = [];
    for (const message of messages) {
      const read = readMessage(message, consumer, known);
      if ('reasonCode' in read) invalid.push({ message, unreadable: read });
      else valid.push(read);
    }
    if (valid.length > 0) await handleMerged(valid);
    for (const { message, unreadable } of invalid) {
      await deadLetters.send(consumer.groupId, message, unreadable.reasonCode, unreadable.reason, unreadable.errors);
    }
    const setAside = new Set(invalid.map((i) => i.message));
    return messages.map((m): MessageOutcome => (setAside.has(m) ? 'dead_lettered' : 'handled'));
  };
  return { handler, batchHandler };
}

/**
 * `boundedAttempts` for a batch. An outage fails the batch, which the bus hands again
 * whole. Any other failure may be one message's: the batch is then split, and its
 * messages go one by one through `single` (already bounded), so a poison message is
 * dead-lettered there and the others proceed. A message that fails below its bound
 * fails the batch again; the messages before it are handled again, which the
 * consumers' idempotence (every input is deduped by its id) makes harmless.
 */
export function boundedBatchAttempts(batch: BatchHandler, single: MessageHandler): BatchHandler {
  // Per partition, while a split is under way: the last offset it handled and the
  // outcomes so far. A batch handed again after a split failed goes on from there, one
  // by one, so what the split already handled (or set aside) is not handled again and
  // the bounded counts can grow.
  const splits = new Map<string, { through: bigint; outcomes: Map<string, void | MessageOutcome> }>();
  return async (messages) => {
    const partitionKey = `${messages[0].topic}:${messages[0].partition}`;
    const split = splits.get(partitionKey);
    const rest = split === undefined ? messages : messages.filter((m) => BigInt(m.offset) > split.through);
    if (split === undefined && rest.length > 1) {
      try {
        return await batch(rest);
      } catch (error) {
        if (classifyFailure(error).kind === 'transient') throw error;
      }
    }
    const state = split ?? { through: -1n, outcomes: new Map<string, void | MessageOutcome>() };
    splits.set(partitionKey, state);
    for (const message of rest) {
      state.outcomes.set(message.offset, await single(message));
      state.through = BigInt(message.offset);
    }
    splits.delete(partitionKey);
    return messages.map((m) => state.outcomes.get(m.offset) ?? 'handled');
  };
}

export interface PoisonPolicy {
  /**
   * Deliveries a message gets for failures that are neither an outage nor certainly
   * permanent (see `classifyFailure`), before it is dead-lettered.
   */
  readonly maxAttempts: number;
  /**
   * Asked before a message is dead-lettered for its attempts: while a dependency is
   * down, the failures were most likely that, and the message is retried instead.
   */
  readonly dependenciesHealthy?: () => Promise<boolean>;
}

/**
 * Bounds what one message can cost a partition. A failure of the handler is
 * - transient (a database or broker outage, a dropped connection, a deadlock): thrown
 *   on, so the bus retries it for as long as it takes, and not counted;
 * - permanent (a Postgres data exception such as a NUL byte in text, a program limit,
 *   a message too large, unparseable JSON): dead-lettered at once;
 * - anything else: retried, and dead-lettered once it failed `maxAttempts` times
 *   while the process's dependencies answer.
 * Only failures that are not transient count towards the bound, so an outage in the
 * middle of a message's retries does not use them up.
 */
export function boundedAttempts(deadLetters: DeadLetters, groupId: string, handler: MessageHandler, policy: PoisonPolicy): MessageHandler {
  // Counted failures of the message each partition is on. A partition hands over one
  // message at a time, so this holds one entry per partition.
  const failures = new Map<string, { offset: string; count: number }>();
  return async (message) => {
    const partitionKey = `${message.topic}:${message.partition}`;
    try {
      const outcome = await handler(message);
      // Only a success at or past the failing message ends its count: a split batch
      // (boundedBatchAttempts) handles the messages before it again, after it failed.
      const failing = failures.get(partitionKey);
      if (failing !== undefined && BigInt(failing.offset) <= BigInt(message.offset)) failures.delete(partitionKey);
      return outcome;
    } catch (error) {
      const failure = classifyFailure(error);
      if (failure.kind === 'transient') throw error;
      const reason = `${failure.because}: ${error instanceof Error ? error.message : String(error)}`;
      if (failure.kind === 'permanent') {
        failures.delete(partitionKey);
        return deadLetters.send(groupId, message, 'unprocessable', reason, [{ path: '', message: reason }]);
      }
      const previous = failures.get(partitionKey);
      const count = previous?.offset === message.offset ? previous.count + 1 : 1;
      failures.set(partitionKey, { offset: message.offset, count });
      if (count < policy.maxAttempts) throw error;
      if (policy.dependenciesHealthy && !(await policy.dependenciesHealthy())) {
        // Not held against the message: it is dead-lettered only if it fails again once they answer.
        failures.set(partitionKey, { offset: message.offset, count: policy.maxAttempts - 1 });
        throw error;
      }
      failures.delete(partitionKey);
      return deadLetters.send(groupId, message, 'attempts_exhausted', `failed ${count} times; last: ${reason}`, [
        { path: '', message: reason },
      ]);
    }
  };
}
