import { MessageBus } from '@herald/bus';
import { DataSource, QueryRunner } from 'typeorm';
import { EventStoreLogger } from '../event-store-logger';
import { EventStoreTables, eventStoreTables } from '../event-store-tables';
import { inTransaction } from '../polling/in-transaction';
import { PollingLoop } from '../polling/polling-loop';
import { RoundPacer } from '../polling/round-pacer';
import { PollingOptions, ResolvedPollingOptions, errorMessage, resolvePollingOptions } from '../polling/polling-options';
import { ClaimedMessage, publishByTopic } from '../polling/publish-by-topic';
import { Serial } from '../polling/serial';

export interface OutboxRelayOptions extends PollingOptions {
  /** How often a standby relay tries to become the active one. Default 1 s. */
  readonly lockRetryMs?: number;
}

interface OutboxRow {
  readonly id: string;
  readonly message_id: string;
  readonly topic: string;
  readonly key: string;
  readonly value: string;
  readonly headers: Record<string, string>;
}

/**
 * Publishes a schema's outbox to the bus. Each round claims the oldest rows, publishes
 * them grouped by topic (id order within a topic), deletes them and commits; a
 * failed publish rolls back, so the rows are retried next round after a backoff.
 *
 * Delivery is at least once: a crash after the publish and before the commit sends
 * the same rows (same `message-id` header) again next time, and consumers dedupe by
 * message id.
 *
 * Per-key order needs a single relay per schema, because two relays publishing
 * disjoint claims could interleave messages of one key. The active relay holds a
 * session-level advisory lock on a dedicated connection and runs its rounds on that
 * same connection, so a relay whose session died cannot commit a round; standbys
 * retry the lock every `lockRetryMs`. In the embedded mode (PGlite) every connection
 * shares one session, so the lock does not exclude anything there; that mode runs a
 * single process with a single relay per schema, so nothing needs excluding.
 */
export class OutboxRelay {
  private readonly tables: EventStoreTables;
  private readonly options: ResolvedPollingOptions;
  private readonly pacer: RoundPacer;
  private readonly lockRetryMs: number;
  private readonly loop = new PollingLoop(() => this.tick());
  private readonly serial = new Serial();
  /** The connection holding the relay lock while this relay is the active one. */
  private lock?: QueryRunner;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
    private readonly bus: MessageBus,
    private readonly log: EventStoreLogger,
    options: OutboxRelayOptions = {},
  ) {
    this.tables = eventStoreTables(schema);
    this.options = resolvePollingOptions(options);
    this.pacer = new RoundPacer(this.options);
    this.lockRetryMs = options.lockRetryMs ?? 1_000;
  }

  start(): void {
    this.loop.start();
  }

  /** Stops relaying once the round in flight has committed or rolled back, then gives up the lock. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.serial.drain();
    await this.releaseLock();
  }

  /** Whether this relay holds the relay lock of its schema. */
  isActive(): boolean {
    return this.lock !== undefined && !this.lock.isReleased;
  }

  /**
   * One round; resolves with the number of messages published. It does not take the
   * relay lock (tests call it directly); a running relay calls it only while active.
   */
  pollOnce(): Promise<number> {
    return this.serial.run(() => this.relayRound());
  }

  private async tick(): Promise<number> {
    if (this.lock?.isReleased) {
      // The driver drops a connection that failed, and the session's lock went with it.
      this.lock = undefined;
      this.log('warn', 'outbox relay lost its lock connection; standing by', { schema: this.tables.schema });
    }
    if (!this.isActive() && !(await this.tryLock())) return this.lockRetryMs;
    try {
      return this.pacer.afterRound(await this.pollOnce());
    } catch (error) {
      const { attempt, delayMs } = this.pacer.afterFailure();
      this.log('warn', 'outbox relay round failed; its messages stay in the outbox', {
        schema: this.tables.schema,
        attempt,
        retry_in_ms: delayMs,
        error: errorMessage(error),
      });
      await this.checkLock();
      return delayMs;
    }
  }

  private async relayRound(): Promise<number> {
    const runner = this.isActive() && this.lock ? this.lock : this.dataSource.createQueryRunner();
    const borrowed = runner !== this.lock;
    try {
      return await inTransaction(runner, async () => {
        const rows: OutboxRow[] = await runner.query(
          `SELECT id, message_id, topic, key, value, headers
             FROM ${this.tables.outbox}
            ORDER BY id
            LIMIT $1
              FOR UPDATE SKIP LOCKED`,
          [this.options.batchSize],
        );
        if (rows.length === 0) return 0;
        await publishByTopic(this.bus, rows.map(toClaimedMessage));
        await runner.query(`DELETE FROM ${this.tables.outbox} WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id)]);
        return rows.length;
      });
    } finally {
      if (borrowed) await runner.release();
    }
  }

  private async tryLock(): Promise<boolean> {
    const runner = this.dataSource.createQueryRunner();
    try {
      const [row]: Array<{ locked: boolean }> = await runner.query(
        `SELECT pg_try_advisory_lock(hashtext('herald:outbox-relay:' || $1::text)) AS locked`,
        [this.tables.schema],
      );
      if (row?.locked) {
        this.lock = runner;
        this.log('info', 'outbox relay active', { schema: this.tables.schema });
        return true;
      }
    } catch (error) {
      this.log('warn', 'outbox relay could not try its lock', { schema: this.tables.schema, error: errorMessage(error) });
    }
    await runner.release();
    return false;
  }

  /** After a failed round: if the lock's connection is gone, so is the lock; become a standby. */
  private async checkLock(): Promise<void> {
    const lock = this.lock;
    if (!lock) return;
    try {
      if (lock.isReleased) throw new Error('connection closed');
      await lock.query('SELECT 1');
    } catch (error) {
      this.lock = undefined;
      await lock.release();
      this.log('warn', 'outbox relay lost its lock connection; standing by', {
        schema: this.tables.schema,
        error: errorMessage(error),
      });
    }
  }

  private async releaseLock(): Promise<void> {
    const lock = this.lock;
    if (!lock) return;
    this.lock = undefined;
    try {
      await lock.query(`SELECT pg_advisory_unlock(hashtext('herald:outbox-relay:' || $1::text))`, [this.tables.schema]);
      this.log('info', 'outbox relay stood down', { schema: this.tables.schema });
    } catch (error) {
      // The session is most likely gone, and the lock with it.
      this.log('warn', 'outbox relay could not release its lock', { schema: this.tables.schema, error: errorMessage(error) });
    } finally {
      await lock.release();
    }
  }
}

function toClaimedMessage(row: OutboxRow): ClaimedMessage {
  return {
    topic: row.topic,
    message: { key: row.key, value: row.value, headers: { ...row.headers, 'message-id': row.message_id } },
  };
}
