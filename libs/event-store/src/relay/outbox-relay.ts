import { MessageBus, classifyFailure } from '@herald/bus';
import { BEGIN, COMMIT, PROCESS_ORIGIN, inOneRoundTrip } from '@herald/database';
import { DataSource, QueryRunner } from 'typeorm';
import { EventStoreLogger } from '../event-store-logger';
import { EventStoreTables, eventStoreTables } from '../event-store-tables';
import { PollingLoop } from '../polling/polling-loop';
import { RoundPacer } from '../polling/round-pacer';
import { PollingOptions, ResolvedPollingOptions, errorMessage, resolvePollingOptions } from '../polling/polling-options';
import { ClaimedMessage, publishEachTopic } from '../polling/publish-by-topic';
import { Serial } from '../polling/serial';
import { OUTBOX_SLOTS, outboxWakePayload } from '../polling/wake-channel';
import { WakeListener } from '../polling/wake-listener';

export interface OutboxRelayOptions extends PollingOptions {
  /**
   * Most key slots one round serves (of OUTBOX_SLOTS). Default all: one append's rows
   * span most slots, and a round per quarter of them held its last rows back by two or
   * three rounds (docs/architecture.md, the event store). Other replicas' relays claim
   * the slots that receive rows during a round.
   */
  readonly slotsPerRound?: number;
  /**
   * Failed publishes of one row, other than an outage, before it is parked (while the
   * broker answers). Default 10.
   */
  readonly maxPublishAttempts?: number;
  /**
   * How long after another process's rows were written this relay looks at them (their
   * own process's relay takes them at once; this is for a process that stopped first).
   * Default 1 s.
   */
  readonly othersWakeDelayMs?: number;
  /** Called for each row parked, after its round committed. */
  readonly onParked?: (row: ParkedRow) => void;
  /** Called after each round that committed, with the rows it published. */
  readonly onPublished?: (rows: number) => void;
  /**
   * Called after every round that committed, with the rows it published or parked, 0
   * for a round that found its slots empty or taken: a round's statements are paid
   * either way, so rows per round is what a relay's work costs per row.
   */
  readonly onRound?: (rows: number) => void;
}

const DEFAULT_OTHERS_WAKE_DELAY_MS = 1_000;

/** The transaction-local setting a round's slots travel in, from the statement that locks them to the one that reads their rows. */
const RELAY_SLOTS_SETTING = 'herald.relay_slots';

export interface ParkedRow {
  readonly outboxId: string;
  readonly messageId: string;
  readonly topic: string;
  readonly key: string;
  readonly reason: string;
}

/** What waits in a schema's outbox, for the metrics. */
export interface OutboxBacklog {
  readonly rows: number;
  /** Age of the oldest row; 0 when the outbox is empty. */
  readonly oldestAgeSeconds: number;
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

interface ClaimedRow extends OutboxRow {
  /** Slots the round locked. */
  readonly slots: number;
}

interface RoundResult {
  /** Rows published or parked. */
  readonly handled: number;
  /** Whether more rows may be waiting (a full batch, or every slot the round could take). */
  readonly moreWaiting?: boolean;
  readonly parked: readonly ParkedRow[];
  /** Why the round stopped at a row it could neither publish nor park. */
  readonly stalledBy?: unknown;
}

/**
 * Publishes a schema's outbox to the bus. Each round claims rows, publishes them
 * grouped by topic (id order within a topic), deletes them and commits; a failed
 * publish rolls back, so the rows are retried next round after a backoff.
 *
 * Every replica runs a relay and each round claims its own share. Per-key order is
 * kept by slots rather than by a single leader: a row's slot is a hash of its key
 * (OUTBOX_SLOTS of them), and a round first locks up to `slotsPerRound` slots that have
 * rows, oldest row first, with `FOR UPDATE SKIP LOCKED` on `outbox_slots`, then claims
 * the oldest rows of those slots only. So all rows of one key are published by one
 * round at a time, in id order, and the next round serving that slot starts after the
 * previous one deleted what it sent; meanwhile other replicas' rounds lock other slots.
 * (Claiming rows alone with SKIP LOCKED would let two rounds take two rows of one key
 * and publish them in either order; claiming only the oldest row per key would make a
 * busy key trickle out one row per round.) The slot locks are row locks of the round's
 * transaction: a relay whose connection dies holds nothing, and no standby waits.
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
 * Idle, a relay sleeps until the outbox's insert trigger wakes it (WakeListener), with
 * a slow safety poll; while it cannot listen it polls at the idle delay. The wake-up
 * names the writing process (PROCESS_ORIGIN): a relay rounds at once on its own
 * process's rows and only after `othersWakeDelayMs` on another's, which that process's
 * own relay takes (see wakeLater).
 *
 * Delivery is at least once: a crash after the publish and before the commit sends
 * the same rows (same `message-id` header) again next time, and consumers dedupe by
 * message id.
 */
export class OutboxRelay {
  private readonly tables: EventStoreTables;
  private readonly options: ResolvedPollingOptions;
  private readonly pacer: RoundPacer;
  private readonly slotsPerRound: number;
  private readonly maxPublishAttempts: number;
  private readonly wake: WakeListener;
  private readonly loop = new PollingLoop(() => this.tick());
  private readonly serial = new Serial();
  private readonly othersWakeDelayMs: number;
  private othersWake?: NodeJS.Timeout;
  private unsubscribe?: () => Promise<void>;

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
    this.slotsPerRound = relayOptions.slotsPerRound ?? OUTBOX_SLOTS;
    if (!Number.isInteger(this.slotsPerRound) || this.slotsPerRound < 1) throw new Error(`slotsPerRound must be a positive integer, got ${this.slotsPerRound}`);
    this.maxPublishAttempts = relayOptions.maxPublishAttempts ?? 10;
    this.othersWakeDelayMs = relayOptions.othersWakeDelayMs ?? DEFAULT_OTHERS_WAKE_DELAY_MS;
    this.wake = WakeListener.of(dataSource, log);
  }

  start(): void {
    if (this.loop.isRunning) return;
    this.unsubscribe = this.wake.subscribe(outboxWakePayload(this.tables.schema), (origin) => {
      if (this.pacer.failing) return;
      if (origin === undefined || origin === PROCESS_ORIGIN) this.loop.wake();
      else this.wakeLater();
    });
    this.loop.start();
  }

  /**
   * Another process's rows: its own relay takes them at once. This one looks after
   * `othersWakeDelayMs` (once, however many wake-ups came meanwhile), in case that
   * process stopped before it could: with a round on every append of every replica,
   * two replicas' relays had run 1.45-2.7x the rounds of one for the same rows.
   */
  private wakeLater(): void {
    if (this.othersWake !== undefined) return;
    this.othersWake = setTimeout(() => {
      this.othersWake = undefined;
      if (!this.pacer.failing) this.loop.wake();
    }, this.othersWakeDelayMs);
    this.othersWake.unref();
  }

  /** Stops relaying once the round in flight has committed or rolled back. */
  async stop(): Promise<void> {
    clearTimeout(this.othersWake);
    this.othersWake = undefined;
    await this.loop.stop();
    await this.serial.drain();
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    await unsubscribe?.();
  }

  /** Whether this relay is running (claiming its share each round). */
  isActive(): boolean {
    return this.loop.isRunning;
  }

  /**
   * One round; resolves with the number of rows published or parked, or rejects when
   * it stopped at a row it could neither publish nor park yet (what went out before
   * it is committed).
   */
  async pollOnce(): Promise<number> {
    return (await this.round()).handled;
  }

  /** Rows parked in this schema's outbox, for the metrics. */
  async countParked(): Promise<number> {
    const [row]: Array<{ n: number }> = await this.dataSource.query(`SELECT count(*)::int AS n FROM ${this.tables.outboxParked}`);
    return row?.n ?? 0;
  }

  /** Rows waiting in this schema's outbox and the oldest one's age, for the metrics. */
  async backlog(): Promise<OutboxBacklog> {
    const [row]: Array<{ rows: number; age: number | null }> = await this.dataSource.query(
      `SELECT count(*)::int AS rows, extract(epoch FROM now() - min(created_at))::float8 AS age FROM ${this.tables.outbox}`,
    );
    return { rows: row?.rows ?? 0, oldestAgeSeconds: Math.max(0, row?.age ?? 0) };
  }

  private async round(): Promise<RoundResult> {
    const result = await this.serial.run(() => this.relayRound());
    this.relayOptions.onRound?.(result.handled);
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
    const published = result.handled - result.parked.length;
    if (published > 0) this.relayOptions.onPublished?.(published);
    if (result.stalledBy !== undefined) throw result.stalledBy;
    return result;
  }

  private async tick(): Promise<number> {
    try {
      const result = await this.round();
      return this.pacer.afterRound(result.moreWaiting === true, this.wake.listening);
    } catch (error) {
      const { attempt, delayMs } = this.pacer.afterFailure();
      this.log('warn', 'outbox relay round failed; its messages stay in the outbox', {
        schema: this.tables.schema,
        attempt,
        retry_in_ms: delayMs,
        error: errorMessage(error),
      });
      return delayMs;
    }
  }

  /**
   * One round in two round trips to Postgres: the transaction opens with the claim (the
   * slots locked, then their rows read, two statements sent together) and closes with
   * the delete. A round was five (BEGIN, slots, rows, DELETE, COMMIT), and on the VMs
   * Herald is measured on a round trip costs more than these statements' work
   * (StatementBatch).
   * What a failed publish needs (counting a failure, parking a row) goes on the round's
   * connection as statements of their own: a rare path.
   */
  private async relayRound(): Promise<RoundResult> {
    const runner = this.dataSource.createQueryRunner();
    let open = false;
    try {
      // First the slots with rows, oldest row first, that no other round holds (locked
      // until commit), kept in a transaction-local setting; then the oldest rows of those
      // slots. Two statements, sent together: under READ COMMITTED a statement sees what
      // was committed before it began, so the rows must be read by a statement that
      // begins after the slots are locked. Read by the statement that locks them, a slot
      // whose holder committed meanwhile would show rows that holder already published
      // and deleted.
      open = true;
      const [, , claimed] = await inOneRoundTrip(runner, [
        BEGIN,
        {
          sql: `SELECT set_config('${RELAY_SLOTS_SETTING}', coalesce(string_agg(locked.slot::text, ','), ''), true)
                  FROM (SELECT s.slot
                          FROM ${this.tables.outboxSlots} s
                         WHERE EXISTS (SELECT 1 FROM ${this.tables.outbox} o WHERE o.slot = s.slot)
                         ORDER BY (SELECT min(o.id) FROM ${this.tables.outbox} o WHERE o.slot = s.slot)
                         LIMIT $1
                           FOR UPDATE OF s SKIP LOCKED) locked`,
          parameters: [this.slotsPerRound],
        },
        {
          sql: `SELECT cardinality(string_to_array(current_setting('${RELAY_SLOTS_SETTING}'), ',')) AS slots,
                       o.id, o.message_id, o.topic, o.key, o.value, o.headers, o.publish_failures
                  FROM ${this.tables.outbox} o
                 WHERE o.slot = ANY (string_to_array(current_setting('${RELAY_SLOTS_SETTING}'), ',')::smallint[])
                 ORDER BY o.id
                 LIMIT $1`,
          parameters: [this.options.batchSize],
        },
      ]);
      const rows = claimed as ClaimedRow[];
      const moreWaiting = rows.length >= this.options.batchSize || (rows[0]?.slots ?? 0) >= this.slotsPerRound;
      if (rows.length === 0) {
        await inOneRoundTrip(runner, [COMMIT]);
        open = false;
        return { handled: 0, parked: [], moreWaiting };
      }
      const failedTopics = await publishEachTopic(this.bus, rows.map(toClaimedMessage));
      // An outage: roll back, retry the whole round after a backoff.
      const outage = [...failedTopics.values()].find((error) => classifyFailure(error).kind === 'transient');
      if (outage !== undefined) throw outage;
      const published = rows.filter((r) => !failedTopics.has(r.topic));
      let result: RoundResult = { handled: rows.length, parked: [], moreWaiting };
      if (failedTopics.size > 0) {
        await this.deleteRows(runner, published.map((r) => r.id));
        // The other topics' rows went out; the failed topics' rows are tried one by one.
        const alone = await this.publishOneByOne(
          runner,
          rows.filter((r) => failedTopics.has(r.topic)),
          published.length > 0,
        );
        result = { ...alone, handled: published.length + alone.handled, moreWaiting };
        await inOneRoundTrip(runner, [COMMIT]);
      } else {
        await inOneRoundTrip(runner, [{ sql: this.deleteStatement, parameters: [published.map((r) => r.id)] }, COMMIT]);
      }
      open = false;
      return result;
    } finally {
      // A failure left the transaction open, or aborted: nothing of the round is kept.
      if (open) await inOneRoundTrip(runner, [{ sql: 'ROLLBACK', parameters: [] }]).catch(() => undefined);
      await runner.release();
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
    await runner.query(this.deleteStatement, [ids]);
  }

  /** Deletes the published rows (`$1`: their ids), alone or sent with the round's COMMIT. */
  private get deleteStatement(): string {
    return `DELETE FROM ${this.tables.outbox} WHERE id = ANY($1::bigint[])`;
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
}

function toClaimedMessage(row: OutboxRow): ClaimedMessage {
  return {
    topic: row.topic,
    message: { key: row.key, value: row.value, headers: { ...row.headers, 'message-id': row.message_id } },
  };
}
