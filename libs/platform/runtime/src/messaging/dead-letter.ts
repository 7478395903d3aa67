import { DeadLetterPayload, Envelope, FieldError, HeraldError, ParseResult, TOPICS, parseEnvelope } from '@herald/contracts';
import { IncomingMessage, MessageBus, MessageHandler } from '@herald/bus';
import { HeraldLogger } from '../logging/logger';

export interface EnvelopeConsumer<T> {
  readonly groupId: string;
  /** The envelope `type` this consumer accepts. */
  readonly type: string;
  /** Validates the payload; what fails goes to the dead-letter topic. */
  readonly parsePayload: (payload: unknown) => ParseResult<T>;
  readonly handle: (payload: T, envelope: Envelope<T>, message: IncomingMessage) => Promise<void>;
}

/**
 * Wraps a consumer so that a poison message never blocks its partition: a message
 * that is not a valid envelope of the expected type, or whose handler rejects it
 * as invalid (a HeraldError `validation_error`), is published to the dead-letter
 * topic with the reason and acknowledged. Any other failure is transient (a
 * database or broker hiccup) and is retried by the bus.
 */
export function deadLetteringHandler<T>(bus: MessageBus, logger: HeraldLogger, consumer: EnvelopeConsumer<T>): MessageHandler {
  return async (message) => {
    const envelope = parseEnvelope(message.value, consumer.type);
    if (!envelope.ok) return deadLetter(bus, logger, consumer.groupId, message, 'invalid envelope', envelope.errors);
    const payload = consumer.parsePayload(envelope.value.payload);
    if (!payload.ok) return deadLetter(bus, logger, consumer.groupId, message, 'invalid payload', payload.errors);
    const typed = { ...envelope.value, payload: payload.value } as Envelope<T>;
    try {
      await consumer.handle(payload.value, typed, message);
    } catch (error) {
      if (error instanceof HeraldError && error.code === 'validation_error') {
        return deadLetter(bus, logger, consumer.groupId, message, error.message, error.fieldErrors);
      }
      throw error;
    }
  };
}

/** Publishes a message that cannot be processed to `notify.deadletter.v1`, with the reason and the original bytes. */
export async function deadLetter(
  bus: MessageBus,
  logger: HeraldLogger,
  groupId: string,
  message: IncomingMessage,
  reason: string,
  errors: readonly FieldError[],
): Promise<void> {
  const text = message.value.toString('utf8');
  const isText = Buffer.from(text, 'utf8').equals(message.value);
  const payload: DeadLetterPayload = {
    source_topic: message.topic,
    source_partition: message.partition,
    source_offset: message.offset,
    consumer_group: groupId,
    key: message.key,
    reason,
    errors,
    original: isText ? text : message.value.toString('base64'),
    original_encoding: isText ? 'utf8' : 'base64',
    failed_at: new Date().toISOString(),
  };
  await bus.publish(TOPICS.deadLetter.name, [
    { key: message.key, value: JSON.stringify(payload), headers: { 'x-dead-letter-reason': reason } },
  ]);
  logger.warn('message dead-lettered', {
    topic: message.topic,
    partition: message.partition,
    offset: message.offset,
    group: groupId,
    reason,
    errors,
  });
}
