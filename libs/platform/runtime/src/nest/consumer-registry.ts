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
 *
 * Subscriptions join their groups in the background, all at once: a Kafka join waits
 * for every other member of the group to rejoin (up to a heartbeat each), and awaiting
 * each group in turn made a second replica take 10-25 s to listen (startup bench,
 * 2026-11-25; docs/architecture.md, Operations). The process serves HTTP and reports
 * ready meanwhile: nothing HTTP serves
 * depends on owning partitions, and a group's backlog shows as consumer lag. A join that
 * fails is retried, and readiness fails (check `consumers`) until it succeeds. Who needs
 * the join before going on (a group reading from the latest offset) awaits `started`.
 */
@Injectable()
export class ConsumerRegistry implements OnModuleDestroy {
  private readonly subscriptions: BackgroundSubscription[] = [];
  private readonly deadLetters: DeadLetters;
  /** Groups whose last attempt to join failed, with the error. */
  private readonly failing = new Map<string, string>();
  private stopping = false;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    @Inject(HEALTH_REGISTRY) private readonly health: HealthRegistry,
    @Inject(METRICS_REGISTRY) metrics: Registry,
  ) {
    this.deadLetters = new DeadLetters(bus, logger.child({ component: 'dead-letters' }), metrics);
  }

  /** Resolves at once; the group is joined in the background (see the class comment). */
  subscribe(options: SubscribeOptions): Promise<BackgroundSubscription> {
    const handler = boundedAttempts(this.deadLetters, options.groupId, options.handler, {
      maxAttempts: this.config.messageMaxAttempts,
      dependenciesHealthy: async () => (await this.health.readiness()).ready,
    });
    const batchHandler = options.batchHandler && boundedBatchAttempts(options.batchHandler, handler);
    let joined: Subscription | undefined;
    const started = this.join({ ...options, handler, ...(batchHandler ? { batchHandler } : {}) }).then((subscription) => {
      joined = subscription;
    });
    const subscription: BackgroundSubscription = {
      groupId: options.groupId,
      started,
      assignment: () => joined?.assignment() ?? [],
      stop: async () => {
        await started;
        await joined?.stop();
      },
    };
    this.subscriptions.push(subscription);
    return Promise.resolve(subscription);
  }

  /** Subscribes until it succeeds or the registry stops; resolves with undefined if it stopped first. */
  private async join(options: SubscribeOptions): Promise<Subscription | undefined> {
    const began = performance.now();
    for (let attempt = 1; !this.stopping; attempt++) {
      try {
        const subscription = await this.bus.subscribe(options);
        this.failing.delete(options.groupId);
        if (this.stopping) {
          await subscription.stop();
          return undefined;
        }
        this.logger.info('consumer started', { group: options.groupId, topics: options.topics, joinMs: Math.round(performance.now() - began) });
        return subscription;
      } catch (error) {
        if (this.failing.size === 0) this.health.register('consumers', () => this.checkJoined());
        this.failing.set(options.groupId, error instanceof Error ? error.message : String(error));
        this.logger.error('consumer could not join its group; retrying', { group: options.groupId, attempt, err: error instanceof Error ? error.message : String(error) });
        await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 1_000 * 2 ** Math.min(attempt - 1, 5))));
      }
    }
    return undefined;
  }

  private checkJoined(): Promise<void> {
    if (this.failing.size === 0) return Promise.resolve();
    return Promise.reject(new Error(`not joined: ${[...this.failing].map(([group, error]) => `${group} (${error})`).join(', ')}`));
  }

  /** Subscribes a typed consumer whose invalid messages go to the dead-letter topic. */
  consume<T>(topics: readonly string[], consumer: EnvelopeConsumer<T>, start: SubscriptionStart = {}): Promise<BackgroundSubscription> {
    return this.subscribe({
      groupId: consumer.groupId,
      topics,
      handler: deadLetteringHandler(this.deadLetters, consumer),
      ...start,
    });
  }

  /** Subscribes a typed batch consumer (see `deadLetteringBatchHandler`). */
  consumeBatches<T>(
    topics: readonly string[],
    consumer: EnvelopeBatchConsumer<T>,
    maxBatchMessages?: number,
    start: SubscriptionStart = {},
  ): Promise<BackgroundSubscription> {
    return this.subscribe({
      groupId: consumer.groupId,
      topics,
      ...deadLetteringBatchHandler(this.deadLetters, consumer, maxBatchMessages),
      ...(maxBatchMessages === undefined ? {} : { maxBatchMessages }),
      ...start,
    });
  }

  /** Dead-letters a message its handler rejects as invalid; the handler returns what this resolves with. */
  deadLetter(groupId: string, message: IncomingMessage, reason: string, errors: readonly FieldError[]): Promise<MessageOutcome> {
    return this.deadLetters.send(groupId, message, 'rejected', reason, errors);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    const stopping = this.subscriptions.splice(0);
    await Promise.all(stopping.map((s) => s.stop()));
    if (stopping.length > 0) {
      this.logger.info('consumers stopped', { groups: stopping.map((s) => s.groupId) });
    }
  }
}

/** Where a new group starts reading (`SubscribeOptions.startFrom`; earliest unless said). */
export type SubscriptionStart = Pick<SubscribeOptions, 'startFrom'>;

/** A subscription of the registry: `started` resolves once the group is joined (or the registry stopped first). */
export interface BackgroundSubscription extends Subscription {
  readonly started: Promise<void>;
}
