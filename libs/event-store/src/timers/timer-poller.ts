import { MessageBus } from '@herald/bus';
import { DataSource } from 'typeorm';
import { EventStoreLogger } from '../event-store-logger';
import { EventStoreTables, eventStoreTables } from '../event-store-tables';
import { PollingLoop } from '../polling/polling-loop';
import { RoundPacer } from '../polling/round-pacer';
import { PollingOptions, ResolvedPollingOptions, errorMessage, resolvePollingOptions } from '../polling/polling-options';
import { publishByTopic } from '../polling/publish-by-topic';
import { Serial } from '../polling/serial';
import { timersWakePayload } from '../polling/wake-channel';
import { WakeListener } from '../polling/wake-listener';

export interface TimerPollerOptions extends PollingOptions {
  /** Called after each round that committed, with the timers it fired. */
  readonly onFired?: (timers: number) => void;
}

/** Due timers not fired yet, for the metrics. */
export interface TimerBacklog {
  readonly due: number;
  /** How long ago the earliest of them came due; 0 when none is. */
  readonly latenessSeconds: number;
}

interface FiredRound {
  readonly fired: number;
  /** Milliseconds until the next timer is due, by the database clock (negative: due already); undefined when none is scheduled. */
  readonly nextDueInMs?: number;
}

interface TimerRow {
  readonly timer_id: string;
  readonly topic: string;
  readonly key: string;
  readonly value: string;
}

/**
 * Fires durable timers. Each round claims timers due by the database's clock (never
 * the process's, so a replica with a fast clock cannot fire early), publishes each
 * one's message with a `timer-id` header, deletes them and commits.
 *
 * Any number of pollers may run: SKIP LOCKED hands each due timer to one of them.
 * A crash after the publish and before the commit fires the same timer again, so
 * consumers dedupe by timer id. Timers of one key claimed by different pollers may
 * be published out of due order; a consumer reads the due time from the message.
 *
 * Idle, a poller sleeps until the next timer it knows of is due (read after each
 * round), or until the timers' insert trigger wakes it (a new timer may be due
 * sooner), with a slow safety poll; while it cannot listen it polls at the idle delay.
 */
export class TimerPoller {
  private readonly tables: EventStoreTables;
  private readonly options: ResolvedPollingOptions;
  private readonly pacer: RoundPacer;
  private readonly loop = new PollingLoop(() => this.tick());
  private readonly serial = new Serial();
  private readonly wake: WakeListener;
  private unsubscribe?: () => Promise<void>;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
    private readonly bus: MessageBus,
    private readonly log: EventStoreLogger,
    private readonly pollerOptions: TimerPollerOptions = {},
  ) {
    this.tables = eventStoreTables(schema);
    this.options = resolvePollingOptions(pollerOptions);
    this.pacer = new RoundPacer(this.options);
    this.wake = WakeListener.of(dataSource, log);
  }

  start(): void {
    if (this.loop.isRunning) return;
    this.unsubscribe = this.wake.subscribe(timersWakePayload(this.tables.schema), () => {
      if (!this.pacer.failing) this.loop.wake();
    });
    this.loop.start();
  }

  /** Stops polling once the round in flight has committed or rolled back. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.serial.drain();
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    await unsubscribe?.();
  }

  /** Whether this poller is running (claiming its share of due timers each round). */
  isActive(): boolean {
    return this.loop.isRunning;
  }

  /** One round; resolves with the number of timers fired. */
  async pollOnce(): Promise<number> {
    return (await this.round()).fired;
  }

  private async round(): Promise<FiredRound> {
    const round = await this.serial.run(() => this.fireDue());
    if (round.fired > 0) this.pollerOptions.onFired?.(round.fired);
    return round;
  }

  /** Due timers waiting to fire and how late the earliest is, for the metrics. */
  async backlog(): Promise<TimerBacklog> {
    const [row]: Array<{ due: number; lateness: number | null }> = await this.dataSource.query(
      `SELECT count(*)::int AS due, extract(epoch FROM now() - min(due_at))::float8 AS lateness
         FROM ${this.tables.timers} WHERE due_at <= now()`,
    );
    return { due: row?.due ?? 0, latenessSeconds: Math.max(0, row?.lateness ?? 0) };
  }

  private async tick(): Promise<number> {
    try {
      const round = await this.round();
      const idle = this.pacer.afterRound(round.fired >= this.options.batchSize, this.wake.listening);
      if (idle === 0 || !this.wake.listening || round.nextDueInMs === undefined) return idle;
      // Due already but not claimable (another poller's round holds it): look again shortly.
      if (round.nextDueInMs <= 0) return this.options.idleDelayMs;
      return Math.min(idle, Math.ceil(round.nextDueInMs));
    } catch (error) {
      const { attempt, delayMs } = this.pacer.afterFailure();
      this.log('warn', 'timer poll failed; due timers stay for the next round', {
        schema: this.tables.schema,
        attempt,
        retry_in_ms: delayMs,
        error: errorMessage(error),
      });
      return delayMs;
    }
  }

  private fireDue(): Promise<FiredRound> {
    return this.dataSource.transaction(async (tx) => {
      const due = await tx.query<TimerRow[]>(
        `SELECT timer_id, topic, key, value
           FROM ${this.tables.timers}
          WHERE due_at <= now()
          ORDER BY due_at, timer_id
          LIMIT $1
            FOR UPDATE SKIP LOCKED`,
        [this.options.batchSize],
      );
      if (due.length > 0) {
        await publishByTopic(
        this.bus,
          due.map((t) => ({ topic: t.topic, message: { key: t.key, value: t.value, headers: { 'timer-id': t.timer_id } } })),
        );
        await tx.query(`DELETE FROM ${this.tables.timers} WHERE timer_id = ANY($1::text[])`, [due.map((t) => t.timer_id)]);
      }
      if (due.length >= this.options.batchSize) return { fired: due.length };
      const [next] = await tx.query<Array<{ ms: number | null }>>(
        `SELECT extract(epoch FROM min(due_at) - now())::float8 * 1000 AS ms FROM ${this.tables.timers}`,
      );
      return { fired: due.length, nextDueInMs: next?.ms ?? undefined };
    });
  }
}
