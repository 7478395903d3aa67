import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { MessageBus, SubscribeOptions, Subscription } from '@herald/bus';
import { HeraldLogger } from '../logging/logger';
import { EnvelopeConsumer, deadLetteringHandler } from '../messaging/dead-letter';
import { HERALD_LOGGER, MESSAGE_BUS } from './tokens';

/**
 * Subscriptions of one Nest application. They are stopped first on shutdown
 * (onModuleDestroy runs before the HTTP server and the database close), and a
 * stop waits for in-flight handlers, so no message is half-handled.
 */
@Injectable()
export class ConsumerRegistry implements OnModuleDestroy {
  private readonly subscriptions: Subscription[] = [];

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const subscription = await this.bus.subscribe(options);
    this.subscriptions.push(subscription);
    this.logger.info('consumer started', { group: options.groupId, topics: options.topics });
    return subscription;
  }

  /** Subscribes a typed consumer whose invalid messages go to the dead-letter topic. */
  consume<T>(topics: readonly string[], consumer: EnvelopeConsumer<T>): Promise<Subscription> {
    return this.subscribe({
      groupId: consumer.groupId,
      topics,
      handler: deadLetteringHandler(this.bus, this.logger, consumer),
    });
  }

  async onModuleDestroy(): Promise<void> {
    const stopping = this.subscriptions.splice(0);
    await Promise.all(stopping.map((s) => s.stop()));
    if (stopping.length > 0) {
      this.logger.info('consumers stopped', { groups: stopping.map((s) => s.groupId) });
    }
  }
}
