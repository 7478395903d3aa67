import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MessageBus } from '@herald/bus';
import { OutboxRelay } from '@herald/event-store';
import { Registry } from 'prom-client';
import { HERALD_CONFIG, HERALD_LOGGER, HeraldConfig, HeraldLogger, MESSAGE_BUS, METRICS_REGISTRY, outboxRelayMetrics, outboxShareMetrics } from '@herald/runtime';

/** Publishes what preference-service wrote to its outbox (every audience change). */
@Injectable()
export class AudienceOutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private relay?: OutboxRelay;

  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    @Inject(METRICS_REGISTRY) private readonly metrics: Registry,
  ) {}

  onApplicationBootstrap(): void {
    const log = this.logger.child({ component: 'audience-outbox' });
    const relayMetrics = outboxRelayMetrics(this.metrics, 'audience');
    const shareMetrics = outboxShareMetrics(this.metrics, 'audience');
    const relay = new OutboxRelay(this.db, 'audience', this.bus, (level, message, fields) => log.write(level, message, fields), {
      maxPublishAttempts: this.config.messageMaxAttempts,
      onParked: relayMetrics.onParked,
      onPublished: shareMetrics.onPublished,
      onRound: shareMetrics.onRound,
    });
    relayMetrics.watchParked(() => relay.countParked());
    shareMetrics.watch(relay);
    this.relay = relay;
    this.relay.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.relay?.stop();
  }
}
