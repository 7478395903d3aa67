import { randomUUID } from 'node:crypto';
import { CustomTransportStrategy, MessageHandler as NestHandler, Server } from '@nestjs/microservices';
import { Envelope } from '@herald/contracts';
import { IncomingMessage, MessageOutcome } from '@herald/bus';
import { ParsedMessage } from '../../messaging/dead-letter';
import { ConsumerRegistry, SubscriptionStart } from '../consumer-registry';
import { BusMessageContext, CONSUMER_DECLARATION, ConsumerDeclaration } from './consumer-of';

/**
 * Nest's transport strategy over Herald's bus port: `listen` subscribes every handler
 * declared with `@ConsumerOf` (an `@EventPattern`) in the application's controllers,
 * one subscription each, through the application's `ConsumerRegistry`. The registry
 * keeps what a consumer had before (bounded attempts, dead letters, batches coalesced
 * per fetch, commits after the handler resolves, joins in the background, the
 * `consumers` readiness check) and stops every subscription on shutdown, in
 * `onModuleDestroy`, before the HTTP server and this strategy close.
 */
export class HeraldBusTransport extends Server implements CustomTransportStrategy {
  constructor(private readonly consumers: ConsumerRegistry) {
    super();
  }

  /** Resolves once every subscription is registered; none waits for its group's join. */
  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      for (const [pattern, handler] of this.messageHandlers) await this.subscribe(pattern, handler);
    } catch (error) {
      callback(error);
      return;
    }
    callback();
  }

  /** Subscriptions stop with the ConsumerRegistry (see the class comment): nothing left to close. */
  close(): void {}

  on(): never {
    throw new Error('HeraldBusTransport has no events to listen to');
  }

  unwrap<T>(): T {
    throw new Error('HeraldBusTransport has no client to unwrap: subscribe with @ConsumerOf');
  }

  private subscribe(pattern: string, handler: NestHandler): Promise<unknown> {
    const declaration: ConsumerDeclaration | undefined = handler.extras?.[CONSUMER_DECLARATION];
    if (!handler.isEventHandler || declaration === undefined) {
      throw new Error(`${pattern}: Herald's bus transport serves only handlers declared with @ConsumerOf`);
    }
    if (handler.next) throw new Error(`${pattern}: two handlers declare the same consumer group`);
    const call = async (data: unknown, context?: BusMessageContext<Envelope<unknown>>): Promise<unknown> => handler(data, context);
    const groupId = declaration.groupPerReplica ? `${declaration.groupId}.${randomUUID()}` : declaration.groupId;
    const start: SubscriptionStart = { startFrom: declaration.startFrom ?? (declaration.groupPerReplica ? 'latest' : 'earliest') };
    const topics = declaration.topics;
    const maxBatchMessages = typeof declaration.batch === 'object' ? declaration.batch.maxBatchMessages : undefined;
    if (declaration.messages) {
      const messages = { ...declaration.messages, groupId };
      if (declaration.batch) {
        return this.consumers.consumeBatches(topics, { ...messages, handleBatch: async (batch: readonly ParsedMessage<unknown>[]) => void (await call(batch)) }, maxBatchMessages, start);
      }
      return this.consumers.consume(
        topics,
        { ...messages, handle: async (payload: unknown, envelope: Envelope<unknown>, message: IncomingMessage) => void (await call(payload, new BusMessageContext([message, envelope]))) },
        start,
      );
    }
    if (declaration.batch) {
      return this.consumers.subscribe({
        groupId,
        topics,
        ...start,
        ...(maxBatchMessages === undefined ? {} : { maxBatchMessages }),
        // The one-message path of the same work: the registry's bounded attempts isolate a failing message with it.
        handler: async (message) => outcomesOf(await call([message]))?.[0],
        batchHandler: async (batch) => outcomesOf(await call(batch)),
      });
    }
    return this.consumers.subscribe({ groupId, topics, ...start, handler: async (message) => outcomeOf(await call(message)) });
  }
}

/** What a raw handler answered (`RawHandler`): its message's outcome, if it reported one. */
function outcomeOf(answer: unknown): MessageOutcome | undefined {
  return answer === 'handled' || answer === 'dead_lettered' ? answer : undefined;
}

/** What a raw batch handler answered (`RawBatchHandler`): each message's outcome, if it reported them. */
function outcomesOf(answer: unknown): Array<MessageOutcome | undefined> | undefined {
  return Array.isArray(answer) ? answer.map(outcomeOf) : undefined;
}
