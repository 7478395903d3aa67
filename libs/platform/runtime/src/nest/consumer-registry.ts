import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { FieldError } from '@herald/contracts';
import { IncomingMessage, MessageBus, MessageOutcome, SubscribeOptions, Subscription } from '@herald/bus';
import { Registry } from 'prom-client';
import { HeraldConfig } from '../config/herald-config';
import { HealthRegistry } from '../health/health-registry';
import { HeraldLogger } from '../logging/logger';
import { DeadLetters, EnvelopeBatchConsumer, EnvelopeConsumer, boundedAttempts, boundedBatchAttempts, deadLetteringBatchHandler, deadLetteringHandler } from '../messaging/dead-letter';
import { HEALTH_REGISTRY, HERALD_CONFIG, HERALD_LOGGER, MESSAGE_BUS, METRICS_REGISTRY } from './tokens';

/**
 * Subscriptions of one Nest application. They are stopped first on shutdown
 * (onModuleDestroy runs before the HTTP server and the database close), and a
 * stop waits for in-flight handlers, so no message is half-handled.
 *
 * Every handler subscribed here is wrapped in `boundedAttempts`: no message can hold
 * its partition for longer than `HERALD_MESSAGE_MAX_ATTEMPTS` failures that are not an
 * outage; it goes to the dead-letter topic and the consumer moves on. A batch handler
 * is wrapped in `boundedBatchAttempts`: a batch that fails for another reason than an
 * outage is split into its messages, each bounded like this.
 */
@Injectable()
export class ConsumerRegistry implements OnModuleDestroy {
  private readonly subscriptions: Subscription[] = [];
  private readonly deadLetters: DeadLetters;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    @Inject(HEALTH_REGISTRY) private readonly health: HealthRegistry,
    @Inject(METRICS_REGISTRY) metrics: Registry,
  ) {
    this.deadLetters = new DeadLetters(bus, logger.child({ component: 'dead-letters' }), metrics);
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const handler = boundedAttempts(this.deadLetters, options.groupId, options.handler, {
      maxAttempts: this.config.messageMaxAttempts,
      dependenciesHealthy: async () => (await this.health.readiness()).ready,
    });
    const batchHandler = options.batchHandler && boundedBatchAttempts(options.batchHandler, handler);
    const subscription = await this.bus.subscribe({ ...options, handler, ...(batchHandler ? { batchHandler } : {}) });
    this.subscriptions.push(subscription);
    this.logger.info('consumer started', { group: options.groupId, topics: options.topics });
    return subscription;
  }

  /** Subscribes a typed consumer whose invalid messages go to the dead-letter topic. */
  consume<T>(topics: readonly string[], consumer: EnvelopeConsumer<T>): Promise<Subscription> {
    return this.subscribe({
      groupId: consumer.groupId,
      topics,
      handler: deadLetteringHandler(this.deadLetters, consumer),
    });
  }

  /** Subscribes a typed batch consumer (see `deadLetteringBatchHandler`). */
  consumeBatches<T>(topics: readonly string[], consumer: EnvelopeBatchConsumer<T>, maxBatchMessages?: number): Promise<Subscription> {
    return this.subscribe({
      groupId: consumer.groupId,
      topics,
      ...deadLetteringBatchHandler(this.deadLetters, consumer),
      ...(maxBatchMessages === undefined ? {} : { maxBatchMessages }),
    });
  }

  /** Dead-letters a message its handler rejects as invalid; the handler returns what this resolves with. */
  deadLetter(groupId: string, message: IncomingMessage, reason: string, errors: readonly FieldError[]): Promise<MessageOutcome> {
    return this.deadLetters.send(groupId, message, 'rejected', reason, errors);
  }

  async onModuleDestroy(): Promise<void> {
    const stopping = this.subscriptions.splice(0);
    await Promise.all(stopping.map((s) => s.stop()));
    if (stopping.length > 0) {
      this.logger.info('consumers stopped', { groups: stopping.map((s) => s.groupId) });
    }
  }
}
