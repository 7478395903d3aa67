import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { MessageBus } from '@herald/bus';
import { OutboxRelay, StreamCompactor, TimerPoller } from '@herald/event-store';
import { Registry } from 'prom-client';
import { HERALD_CONFIG, HERALD_LOGGER, HeraldConfig, HeraldLogger, MESSAGE_BUS, METRICS_REGISTRY, timerPollerMetrics } from '@herald/runtime';
import { EngineEventStoreRepository } from '../runs/engine-event-store.repository';

/**
 * The engine's background loops over its schema: the outbox relay (delivery commands,
 * HTTP requests, follow-up inputs the runs decided), the timer poller (delays, windows,
 * timeouts that came due, by the database clock) and the compactor (deletes accumulator
 * events their snapshots replaced, once a minute). Every replica runs all three and
 * each claims its share: the relay by key slot (per-key order kept), and SKIP LOCKED
 * hands each timer to one poller and each event to one compactor.
 */
@Injectable()
export class EngineLoops implements OnApplicationBootstrap, OnModuleDestroy {
  private relay?: OutboxRelay;
  private poller?: TimerPoller;
  private compactor?: StreamCompactor;

  constructor(
    private readonly eventStore: EngineEventStoreRepository,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    @Inject(METRICS_REGISTRY) private readonly metrics: Registry,
  ) {}

  onApplicationBootstrap(): void {
    const timerLog = this.logger.child({ component: 'engine-timers' });
    const compactionLog = this.logger.child({ component: 'engine-compaction' });
    const timerMetrics = timerPollerMetrics(this.metrics, 'engine');
    this.poller = this.eventStore.timerPoller(this.bus, (level, message, fields) => timerLog.write(level, message, fields), {
      onFired: timerMetrics.onFired,
    });
    timerMetrics.watch(this.poller);
    this.compactor = new StreamCompactor(this.eventStore.streams, (level, message, fields) => compactionLog.write(level, message, fields));
    this.relay = this.eventStore.startOutboxRelay({ bus: this.bus, logger: this.logger, config: this.config, metrics: this.metrics });
    this.poller.start();
    this.compactor.start();
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.relay?.stop(), this.poller?.stop(), this.compactor?.stop()]);
  }
}
