import { MessageBus } from '@herald/bus';
import { DataSource } from 'typeorm';
import { EventStoreLogger } from '../event-store-logger';
import { EventStoreTables, eventStoreTables } from '../event-store-tables';
import { PollingLoop } from '../polling/polling-loop';
import { RoundPacer } from '../polling/round-pacer';
import { PollingOptions, ResolvedPollingOptions, errorMessage, resolvePollingOptions } from '../polling/polling-options';
import { publishByTopic } from '../polling/publish-by-topic';
import { Serial } from '../polling/serial';

export type TimerPollerOptions = PollingOptions;

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
 */
export class TimerPoller {
  private readonly tables: EventStoreTables;
  private readonly options: ResolvedPollingOptions;
  private readonly pacer: RoundPacer;
  private readonly loop = new PollingLoop(() => this.tick());
  private readonly serial = new Serial();

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
    private readonly bus: MessageBus,
    private readonly log: EventStoreLogger,
    options: TimerPollerOptions = {},
  ) {
    this.tables = eventStoreTables(schema);
    this.options = resolvePollingOptions(options);
    this.pacer = new RoundPacer(this.options);
  }

  start(): void {
    this.loop.start();
  }

  /** Stops polling once the round in flight has committed or rolled back. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.serial.drain();
  }

  /** One round; resolves with the number of timers fired. */
  pollOnce(): Promise<number> {
    return this.serial.run(() => this.fireDue());
  }

  private async tick(): Promise<number> {
    try {
      return this.pacer.afterRound(await this.pollOnce());
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

  private fireDue(): Promise<number> {
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
      if (due.length === 0) return 0;
      await publishByTopic(
        this.bus,
        due.map((t) => ({ topic: t.topic, message: { key: t.key, value: t.value, headers: { 'timer-id': t.timer_id } } })),
      );
      await tx.query(`DELETE FROM ${this.tables.timers} WHERE timer_id = ANY($1::text[])`, [due.map((t) => t.timer_id)]);
      return due.length;
    });
  }
}
