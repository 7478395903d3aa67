import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MessageBus } from '@herald/bus';
import { EventStore, EventStoreLogger, OutboxRelay, TimerPoller, TimerPollerOptions } from '@herald/event-store';
import { OutboxRelayParts, startOutboxRelay } from '@herald/runtime';

/**
 * The engine's event store (`@herald/event-store` in the `engine` schema): its streams,
 * and the relay and timer poller over its outbox and timers, built on the engine's data
 * source here and nowhere else. One per process: RunHost's run and accumulator
 * processors append and read through `streams`, and EngineLoops compacts it and runs the
 * loops. The statements are the event store's own (libs/event-store), unchanged.
 */
@Injectable()
export class EngineEventStoreRepository {
  /** The engine's run and accumulator streams. */
  readonly streams: EventStore;

  constructor(@InjectDataSource('engine') private readonly db: DataSource) {
    this.streams = new EventStore(db, 'engine');
  }

  /** A poller of the engine's timers, not started: it publishes each timer that came due (by the database clock) and deletes it. */
  timerPoller(bus: MessageBus, log: EventStoreLogger, options: TimerPollerOptions = {}): TimerPoller {
    return new TimerPoller(this.db, 'engine', bus, log, options);
  }

  /** The relay of the engine's outbox, started, logged and metered as every service's relay (`startOutboxRelay`); the caller stops it. */
  startOutboxRelay(ports: Omit<OutboxRelayParts, 'db' | 'schema'>): OutboxRelay {
    return startOutboxRelay({ ...ports, db: this.db, schema: 'engine' });
  }
}
