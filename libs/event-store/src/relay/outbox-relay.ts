import { MessageBus, classifyFailure } from '@herald/bus';
import { DataSource, QueryRunner } from 'typeorm';
import { EventStoreLogger } from '../event-store-logger';
import { EventStoreTables, eventStoreTables } from '../event-store-tables';
import { inTransaction } from '../polling/in-transaction';
import { PollingLoop } from '../polling/polling-loop';
import { RoundPacer } from '../polling/round-pacer';
import { PollingOptions, ResolvedPollingOptions, errorMessage, resolvePollingOptions } from '../polling/polling-options';
import { ClaimedMessage, publishEachTopic } from '../polling/publish-by-topic';
import { Serial } from '../polling/serial';

export interface OutboxRelayOptions extends PollingOptions {
  /** How often a standby relay tries to become the active one. Default 1 s. */
  readonly lockRetryMs?: number;
  /**
   * Failed publishes of one row, other than an outage, before it is parked (while the
   * broker answers). Default 10.
   */
  readonly maxPublishAttempts?: number;
  /** Called for each row parked, after its round committed. */
  readonly onParked?: (row: ParkedRow) => void;
}

export interface ParkedRow {
  readonly outboxId: string;
  readonly messageId: string;
  readonly topic: string;
  readonly key: string;
  readonly reason: string;
}

interface OutboxRow {
  readonly id: string;
  readonly message_id: string;
  readonly topic: string;
  readonly key: string;
  readonly value: string;
  readonly headers: Record<string, string>;
  readonly publish_failures: number;
}

interface RoundResult {
  /** Rows published or parked. */
  readonly handled: number;
  readonly parked: readonly ParkedRow[];
  /** Why the round stopped at a row it could neither publish nor park. */
  readonly stalledBy?: unknown;
}

/**
 * Publishes a schema's outbox to the bus. Each round claims the oldest rows, publishes
 * them grouped by topic (id order within a topic), deletes them and commits; a
 * failed publish rolls back, so the rows are retried next round after a backoff.
 *
 * No row can hold the outbox up for good. When a round's publish to a topic fails for
 * a reason that is not an outage (see `classifyFailure`), the round publishes that
 * topic's rows one by one, in id order, to find the culprit (the other topics' rows
 * went out and are not sent again):
 * - a row that can never be published (larger than the broker takes) is parked at
 *   once: moved to `outbox_parked` with the reason, in the round's transaction;
 * - a row failing otherwise has its failure counted (`publish_failures`) and the
 *   round stops there (what went out before it is committed), so order holds while
 *   it is retried; past `maxPublishAttempts` it is parked, if the broker answers (a
 *   publish of this round went through, or the bus's health check passes).
 * The rows behind a parked row go on, including later rows of its key: consumers see
 * that key's later messages without the parked one. An outage (the broker or the
 * database unreachable) parks nothing and counts nothing: the round rolls back and
 * is retried after a backoff for as long as it lasts.
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
  private readonly maxPublishAttempts: number;
  private readonly loop = new PollingLoop(() => this.tick());
  private readonly serial = new Serial();
  /** The connection holding the relay lock while this relay is the active one. */
  private lock?: QueryRunner;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
    private readonly bus: MessageBus,
    private readonly log: EventStoreLogger,
    private readonly relayOptions: OutboxRelayOptions = {},
  ) {
    this.tables = eventStoreTables(schema);
    this.options = resolvePollingOptions(relayOptions);
    this.pacer = new RoundPacer(this.options);
    this.lockRetryMs = relayOptions.lockRetryMs ?? 1_000;
    this.maxPublishAttempts = relayOptions.maxPublishAttempts ?? 10;
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
   * One round; resolves with the number of rows published or parked, or rejects when
   * it stopped at a row it could neither publish nor park yet (what went out before
   * it is committed). It does not take the relay lock (tests call it directly); a
   * running relay calls it only while active.
   */
  async pollOnce(): Promise<number> {
    const result = await this.serial.run(() => this.relayRound());
    for (const row of result.parked) {
      this.log('error', 'outbox row parked: it cannot be published; the rows behind it go on', {
        schema: this.tables.schema,
        outbox_id: row.outboxId,
        message_id: row.messageId,
        topic: row.topic,
        key: row.key,
        reason: row.reason,
      });
      this.relayOptions.onParked?.(row);
    }
    if (result.stalledBy !== undefined) throw result.stalledBy;
    return result.handled;
  }

  /** Rows parked in this schema's outbox, for the metrics. */
  async countParked(): Promise<number> {
    const [row]: Array<{ n: number }> = await this.dataSource.query(`SELECT count(*)::int AS n FROM ${this.tables.outboxParked}`);
    return row?.n ?? 0;
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

  private async relayRound(): Promise<RoundResult> {
    const runner = this.isActive() && this.lock ? this.lock : this.dataSource.createQueryRunner();
    const borrowed = runner !== this.lock;
    try {
      return await inTransaction(runner, async () => {
        const rows: OutboxRow[] = await runner.query(
          `SELECT id, message_id, topic, key, value, headers, publish_failures
             FROM ${this.tables.outbox}
            ORDER BY id
            LIMIT $1
              FOR UPDATE SKIP LOCKED`,
          [this.options.batchSize],
        );
        if (rows.length === 0) return { handled: 0, parked: [] };
        const failedTopics = await publishEachTopic(this.bus, rows.map(toClaimedMessage));
        // An outage: roll back, retry the whole round after a backoff.
        const outage = [...failedTopics.values()].find((error) => classifyFailure(error).kind === 'transient');
        if (outage !== undefined) throw outage;
        const published = rows.filter((r) => !failedTopics.has(r.topic));
        await this.deleteRows(runner, published.map((r) => r.id));
        if (failedTopics.size === 0) return { handled: rows.length, parked: [] };
        // The other topics' rows went out; the failed topics' rows are tried one by one.
        const alone = await this.publishOneByOne(
          runner,
          rows.filter((r) => failedTopics.has(r.topic)),
          published.length > 0,
        );
        return { ...alone, handled: published.length + alone.handled };
      });
    } finally {
      if (borrowed) await runner.release();
    }
  }

  /**
   * After a round's publish to their topic failed for a reason other than an outage:
   * publishes the rows alone, in id order, parking those that cannot be published, and
   * stops at a row that failed but may not be parked yet.
   */
  private async publishOneByOne(runner: QueryRunner, rows: readonly OutboxRow[], brokerAnswered: boolean): Promise<RoundResult> {
    const published: string[] = [];
    const parked: ParkedRow[] = [];
    let stalledBy: unknown;
    for (const row of rows) {
      const { topic, message } = toClaimedMessage(row);
      try {
        await this.bus.publish(topic, [message]);
        published.push(row.id);
        continue;
      } catch (error) {
        const failure = classifyFailure(error);
        if (failure.kind === 'transient') {
          stalledBy = error;
          break;
        }
        const failures = row.publish_failures + 1;
        const reason = `${failure.because}: ${errorMessage(error)}`;
        const exhausted = failure.kind === 'permanent' || (failures >= this.maxPublishAttempts && (brokerAnswered || published.length > 0 || (await this.busAnswers())));
        if (!exhausted) {
          await runner.query(`UPDATE ${this.tables.outbox} SET publish_failures = $2, last_error = $3 WHERE id = $1`, [row.id, failures, reason]);
          stalledBy = error;
          break;
        }
        await this.park(runner, row, failures, reason);
        parked.push({ outboxId: row.id, messageId: row.message_id, topic: row.topic, key: row.key, reason });
      }
    }
    await this.deleteRows(runner, published);
    return { handled: published.length + parked.length, parked, stalledBy };
  }

  /** Moves a row to `outbox_parked`, in the round's transaction. */
  private async park(runner: QueryRunner, row: OutboxRow, failures: number, reason: string): Promise<void> {
    await runner.query(
      `WITH moved AS (DELETE FROM ${this.tables.outbox} WHERE id = $1 RETURNING *)
       INSERT INTO ${this.tables.outboxParked} (outbox_id, message_id, topic, key, value, headers, created_at, publish_failures, reason)
       SELECT id, message_id, topic, key, value, headers, created_at, $2, $3 FROM moved`,
      [row.id, failures, reason],
    );
  }

  private async deleteRows(runner: QueryRunner, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await runner.query(`DELETE FROM ${this.tables.outbox} WHERE id = ANY($1::bigint[])`, [ids]);
  }

  /** Whether the broker answers now: if it does, a row that keeps failing is the row's fault. */
  private async busAnswers(): Promise<boolean> {
    try {
      await this.bus.checkHealth();
      return true;
    } catch {
      return false;
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
