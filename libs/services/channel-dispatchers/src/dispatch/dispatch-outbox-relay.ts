import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MessageBus } from '@herald/bus';
import { OutboxRelay } from '@herald/event-store';
import { HERALD_LOGGER, HeraldLogger, MESSAGE_BUS } from '@herald/runtime';

/** Publishes delivery outcomes written to `dispatch.outbox` with the ledger's final state. */
@Injectable()
export class DispatchOutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private relay?: OutboxRelay;

  constructor(
    @InjectDataSource('dispatch') private readonly db: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  onApplicationBootstrap(): void {
    const log = this.logger.child({ component: 'dispatch-outbox' });
    this.relay = new OutboxRelay(this.db, 'dispatch', this.bus, (level, message, fields) => log.write(level, message, fields));
    this.relay.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.relay?.stop();
  }
}
