import { ArgumentsHost, Catch, ExceptionFilter, Type, UseFilters, applyDecorators } from '@nestjs/common';
import { BaseRpcContext, EventPattern } from '@nestjs/microservices';
import { PATTERN_EXTRAS_METADATA } from '@nestjs/microservices/constants';
import { Envelope, ParseResult } from '@herald/contracts';
import { IncomingMessage, MessageOutcome } from '@herald/bus';
import { ParsedMessage } from '../../messaging/dead-letter';

/** What a subscription needs besides its handler: the pattern of an `@EventPattern` of Herald's bus transport. */
export interface SubscriptionPattern {
  readonly groupId: string;
  readonly topics: readonly string[];
  /** Where a group with no committed offset starts. Default: earliest. */
  readonly startFrom?: 'earliest' | 'latest';
  /**
   * Every replica reads every message: the group is `groupId` plus a random suffix
   * chosen when the application starts (with `startFrom: 'latest'`, as a replica has no
   * use for what it missed before it started).
   */
  readonly groupPerReplica?: boolean;
}

/** The envelopes a consumer reads (`EnvelopeConsumer` without its handler). */
export interface EnvelopeMessages<T> {
  readonly type: string;
  /** Default: the type's entry in `KNOWN_SCHEMA_VERSIONS`. */
  readonly schemaVersions?: readonly number[];
  /** What fails goes to the dead-letter topic. */
  readonly parsePayload: (payload: unknown) => ParseResult<T>;
}

/** Batch mode: what the bus has of the member's partitions, at most `maxBatchMessages`, in one call. */
export type BatchMode = true | { readonly maxBatchMessages: number };

export interface EnvelopeConsumerDeclaration<T> extends SubscriptionPattern {
  readonly messages: EnvelopeMessages<T>;
  readonly batch?: false;
}
export interface EnvelopeBatchConsumerDeclaration<T> extends SubscriptionPattern {
  readonly messages: EnvelopeMessages<T>;
  readonly batch: BatchMode;
}
/** A consumer of the raw messages: it reads them itself, and nothing is dead-lettered for it unless it fails. */
export interface RawConsumerDeclaration extends SubscriptionPattern {
  readonly messages?: undefined;
  readonly batch?: false;
}
export interface RawBatchConsumerDeclaration extends SubscriptionPattern {
  readonly messages?: undefined;
  readonly batch: BatchMode;
}

export type ConsumerDeclaration =
  | EnvelopeConsumerDeclaration<unknown>
  | EnvelopeBatchConsumerDeclaration<unknown>
  | RawConsumerDeclaration
  | RawBatchConsumerDeclaration;

/** The context argument of a one-message handler: the bus message, and its envelope when the consumer reads envelopes. */
export class BusMessageContext<T = undefined> extends BaseRpcContext<[IncomingMessage, T]> {
  get message(): IncomingMessage {
    return this.args[0];
  }

  get envelope(): T {
    return this.args[1];
  }
}

export type EnvelopeHandler<T> = (payload: T, context: BusMessageContext<Envelope<T>>) => Promise<void>;
export type EnvelopeBatchHandler<T> = (messages: readonly ParsedMessage<T>[]) => Promise<void>;
export type RawHandler = (message: IncomingMessage) => Promise<void | MessageOutcome>;
/** It may answer each message's outcome, in the order given: `dead_lettered` for one it set aside itself (for the metrics). */
export type RawBatchHandler = (messages: readonly IncomingMessage[]) => Promise<void | ReadonlyArray<void | MessageOutcome>>;

/** A method decorator that checks the method's signature against the declaration (only `value`: a method's type is checked, not a setter's). */
type HandlerDecorator<Handler> = (target: object, key: string | symbol, descriptor: { readonly value?: Handler }) => void;

/** The `@EventPattern` extras key under which the strategy finds the declaration. */
export const CONSUMER_DECLARATION = 'heraldConsumer';

/**
 * Errors reach the bus transport as thrown: Nest's own RPC exception handling would
 * log them as unknown and turn them into an `{ status: 'error' }` observable, losing
 * what the registry reads from them (an outage is retried without counting, a
 * `validation_error` is dead-lettered, anything else counts towards the bound).
 */
@Catch()
class RethrowToTheBus implements ExceptionFilter {
  catch(exception: unknown, _host: ArgumentsHost): never {
    throw exception;
  }
}

/**
 * Declares a Nest event handler (`@EventPattern`, in a controller) of Herald's bus
 * transport (`HeraldBusTransport`): one subscription through the `ConsumerRegistry` per
 * handler, so it keeps bounded attempts, dead letters, batches coalesced per fetch,
 * deferred commits, background joins and readiness. With `messages`, the handler gets
 * valid payloads (what does not parse is dead-lettered); without, the raw messages. A
 * batch handler gets a batch, and its offsets are committed only after it resolves.
 * A handler of one envelope takes its context with `@Ctx()` (Nest hands a handler
 * without parameter decorators its first argument only), and then its payload with `@Payload()`.
 */
export function ConsumerOf<T>(declaration: EnvelopeConsumerDeclaration<T>): HandlerDecorator<EnvelopeHandler<T>>;
export function ConsumerOf<T>(declaration: EnvelopeBatchConsumerDeclaration<T>): HandlerDecorator<EnvelopeBatchHandler<T>>;
export function ConsumerOf(declaration: RawConsumerDeclaration): HandlerDecorator<RawHandler>;
export function ConsumerOf(declaration: RawBatchConsumerDeclaration): HandlerDecorator<RawBatchHandler>;
export function ConsumerOf(declaration: ConsumerDeclaration): MethodDecorator {
  // The pattern names the subscription (Nest keys handlers by it); the whole declaration, parser included, rides in the extras.
  const pattern = { group: declaration.groupPerReplica ? `${declaration.groupId}.<replica>` : declaration.groupId, topics: declaration.topics.join(',') };
  return applyDecorators(EventPattern(pattern, { [CONSUMER_DECLARATION]: declaration }), UseFilters(new RethrowToTheBus()));
}

/** The consumers a controller declares with `@ConsumerOf`, by method name: what the transport subscribes for it. */
export function declaredConsumers(controller: Type): Map<string, ConsumerDeclaration> {
  const prototype: Record<string, unknown> = controller.prototype;
  const declared = new Map<string, ConsumerDeclaration>();
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const method = prototype[name];
    if (name === 'constructor' || typeof method !== 'function') continue;
    const extras: Record<string, ConsumerDeclaration> | undefined = Reflect.getMetadata(PATTERN_EXTRAS_METADATA, method);
    const declaration = extras?.[CONSUMER_DECLARATION];
    if (declaration !== undefined) declared.set(name, declaration);
  }
  return declared;
}
