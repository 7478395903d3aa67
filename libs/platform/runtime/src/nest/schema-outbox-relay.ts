import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy, Type } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { MessageBus } from '@herald/bus';
import { OutboxRelay } from '@herald/event-store';
import { HeraldConfig } from '../config/herald-config';
import { HeraldLogger } from '../logging/logger';
import { outboxRelayMetrics } from '../metrics/metrics';
import { outboxShareMetrics } from '../metrics/relay-poller-metrics';
import { HERALD_CONFIG, HERALD_LOGGER, MESSAGE_BUS, METRICS_REGISTRY } from './tokens';

/** What a service's outbox relay is made of: its schema's data source and the platform's ports. */
export interface OutboxRelayParts {
  readonly db: DataSource;
  readonly schema: string;
  readonly bus: MessageBus;
  readonly logger: HeraldLogger;
  readonly config: HeraldConfig;
  readonly metrics: Registry;
}

/**
 * The outbox relay of one schema, logging as `<schema>-outbox` and observed as every
 * relay is (parked rows, this replica's share and rounds, the backlog), started. The
 * caller stops it at shutdown.
 */
export function startOutboxRelay({ db, schema, bus, logger, config, metrics }: OutboxRelayParts): OutboxRelay {
  const log = logger.child({ component: `${schema}-outbox` });
  const relayMetrics = outboxRelayMetrics(metrics, schema);
  const shareMetrics = outboxShareMetrics(metrics, schema);
  const relay = new OutboxRelay(db, schema, bus, (level, message, fields) => log.write(level, message, fields), {
    maxPublishAttempts: config.messageMaxAttempts,
    onParked: relayMetrics.onParked,
    onPublished: shareMetrics.onPublished,
    onRound: shareMetrics.onRound,
  });
  relayMetrics.watchParked(() => relay.countParked());
  shareMetrics.watch(relay);
  relay.start();
  return relay;
}

/**
 * A provider that runs the outbox relay of `schema` (its data source of the same name)
 * from bootstrap to shutdown: `export class DispatchOutboxRelay extends
 * SchemaOutboxRelay('dispatch') {}`. A service whose schema has other loops too (the
 * engine's timers) calls `startOutboxRelay` from its own provider.
 */
export function SchemaOutboxRelay(schema: string): Type<OnApplicationBootstrap & OnModuleDestroy> {
  @Injectable()
  class RelayOfSchema implements OnApplicationBootstrap, OnModuleDestroy {
    private relay?: OutboxRelay;

    constructor(
      @InjectDataSource(schema) private readonly db: DataSource,
      @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
      @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
      @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
      @Inject(METRICS_REGISTRY) private readonly metrics: Registry,
    ) {}

    onApplicationBootstrap(): void {
      this.relay = startOutboxRelay({ db: this.db, schema, bus: this.bus, logger: this.logger, config: this.config, metrics: this.metrics });
    }

    async onModuleDestroy(): Promise<void> {
      await this.relay?.stop();
    }
  }
  return RelayOfSchema;
}
