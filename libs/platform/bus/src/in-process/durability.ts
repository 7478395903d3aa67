import { MessageHeaders } from '../message-bus.port';
import { sleep } from '../sleep';
import { BusJournal, GroupOffset, JournalRecord, JournalState, JournalTopic } from '../journal/bus-journal.port';
import { PartitionLog, StoredMessage } from './partition-log';

export interface DurabilityOptions {
  /**
   * How long a record stays in the journal at least, even once every group has consumed
   * it, so a group that starts later from `earliest` still sees it. Default 7 days
   * (Kafka's default retention).
   */
  readonly retentionMs?: number;
  /** How often moved group offsets are written. Default 200 ms; also on close. */
  readonly offsetCommitIntervalMs?: number;
  /** How often records past retention are pruned. Default 5 minutes. */
  readonly pruneIntervalMs?: number;
  /** A journal operation failed; it is retried (publish failures reject the publish instead). */
  readonly onJournalError?: (error: unknown, operation: JournalOperation) => void;
}

export type JournalOperation = 'load' | 'read' | 'commit-offsets' | 'prune';

export interface NewMessage {
  readonly partition: number;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: MessageHeaders;
  readonly timestamp: number;
}

interface PendingAppend {
  readonly topic: string;
  readonly logs: readonly PartitionLog[];
  readonly messages: readonly NewMessage[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const DEFAULTS = { retentionMs: 7 * 24 * 3_600_000, offsetCommitIntervalMs: 200, pruneIntervalMs: 5 * 60_000 };
/** Records one INSERT carries at most (a larger single publish still goes whole). */
const MAX_RECORDS_PER_FLUSH = 5_000;
/** Records read back per query by a group behind the in-memory tail. */
const HISTORY_PAGE = 500;
/** Like the services' TypeORM connections: Postgres may come up after Herald. */
const LOAD_ATTEMPTS = 20;
const RETRY_DELAY_MS = 3_000;
const READ_RETRY_DELAY_MS = 1_000;

/**
 * The journal side of a durable in-process bus: group-committed appends (one INSERT
 * for every publish that arrived while the previous one was being written), batched
 * offset commits, pruning, and reading back what memory no longer holds.
 */
export class Durability {
  private readonly settings: Required<Omit<DurabilityOptions, 'onJournalError'>>;
  private readonly closing = new AbortController();
  private queue: PendingAppend[] = [];
  private appending?: Promise<void>;
  private readonly movedOffsets = new Map<string, GroupOffset>();
  private offsetWrite?: Promise<void>;
  private pruning?: Promise<void>;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly journal: BusJournal,
    private readonly options: DurabilityOptions,
  ) {
    this.settings = {
      retentionMs: options.retentionMs ?? DEFAULTS.retentionMs,
      offsetCommitIntervalMs: options.offsetCommitIntervalMs ?? DEFAULTS.offsetCommitIntervalMs,
      pruneIntervalMs: options.pruneIntervalMs ?? DEFAULTS.pruneIntervalMs,
    };
  }

  /** Loads the journal, retrying while the database does not answer (until closed). */
  async open(): Promise<JournalState> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.journal.load();
      } catch (error) {
        if (attempt >= LOAD_ATTEMPTS) throw error;
        this.report(error, 'load');
        if (!(await sleep(RETRY_DELAY_MS, this.closing.signal))) throw error;
      }
    }
  }

  /** Starts the periodic offset commits and pruning, unless already closing. */
  start(): void {
    if (this.closing.signal.aborted) return;
    const every = (ms: number, run: () => void): void => {
      const timer = setInterval(run, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.settings.offsetCommitIntervalMs, () => {
      this.commitOffsets().catch((error: unknown) => this.report(error, 'commit-offsets'));
    });
    every(this.settings.pruneIntervalMs, () => this.prune());
  }

  addTopic(topic: JournalTopic): Promise<void> {
    return this.journal.addTopics([topic]);
  }

  /**
   * Resolves once the messages are in the journal, then in memory (where consumers
   * see them). Offsets are assigned when a batch is written, never reserved ahead, so
   * a failed write leaves no gap in any partition.
   */
  append(topic: string, logs: readonly PartitionLog[], messages: readonly NewMessage[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ topic, logs, messages, resolve, reject });
      this.appending ??= this.drainAppends();
    });
  }

  offsetMoved(offset: GroupOffset): void {
    this.movedOffsets.set(`${offset.groupId}\n${offset.topic}\n${offset.partition}`, offset);
  }

  /**
   * Records below the in-memory tail, for a group that is behind it (after a restart,
   * or a group that starts from `earliest`). Undefined after a failed read, once a
   * pause has passed, so the caller tries again.
   */
  async readHistory(
    topic: string,
    partition: number,
    fromOffset: number,
    beforeOffset: number,
    signal: AbortSignal,
  ): Promise<StoredMessage[] | undefined> {
    try {
      return await this.journal.read(topic, partition, fromOffset, beforeOffset, HISTORY_PAGE);
    } catch (error) {
      this.report(error, 'read');
      await sleep(READ_RETRY_DELAY_MS, signal);
      return undefined;
    }
  }

  /** Writes what is in flight and the latest offsets, then closes the journal. Called once consumers have stopped. */
  async close(opened: Promise<unknown>): Promise<void> {
    this.closing.abort();
    for (const timer of this.timers) clearInterval(timer);
    try {
      await opened;
      await this.appending;
      await this.pruning;
      await this.flushOffsets().catch((error: unknown) => this.report(error, 'commit-offsets'));
    } catch {
      // The journal never loaded: nothing was accepted, nothing to write.
    } finally {
      await this.journal.close();
    }
  }

  /** Serial: a batch is written only after the previous one, so offsets follow publish order. */
  private async drainAppends(): Promise<void> {
    while (this.queue.length > 0) await this.writeBatch(this.takeBatch());
    // Same tick as the emptiness check: a publish arriving later starts a new drain.
    this.appending = undefined;
  }

  private takeBatch(): PendingAppend[] {
    let records = this.queue[0].messages.length;
    let count = 1;
    while (count < this.queue.length && records + this.queue[count].messages.length <= MAX_RECORDS_PER_FLUSH) {
      records += this.queue[count].messages.length;
      count++;
    }
    return this.queue.splice(0, count);
  }

  private async writeBatch(batch: readonly PendingAppend[]): Promise<void> {
    const placed = placeMessages(batch);
    try {
      await this.journal.append(placed.map((p) => p.record));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    for (const { log, record } of placed) log.append(record);
    for (const pending of batch) pending.resolve();
  }

  /** One write at a time: a tick that finds one in flight leaves its offsets to the next. */
  private commitOffsets(): Promise<void> {
    this.offsetWrite ??= this.writeMovedOffsets().finally(() => (this.offsetWrite = undefined));
    return this.offsetWrite;
  }

  private async writeMovedOffsets(): Promise<void> {
    if (this.movedOffsets.size === 0) return;
    const batch = new Map(this.movedOffsets);
    this.movedOffsets.clear();
    try {
      await this.journal.commitOffsets([...batch.values()]);
    } catch (error) {
      // Put back what has not moved again since, for the next attempt.
      for (const [key, offset] of batch) if (!this.movedOffsets.has(key)) this.movedOffsets.set(key, offset);
      throw error;
    }
  }

  /**
   * The journal prunes by the offsets it holds, so every offset that moved in memory
   * is written first: a group whose offset was still waiting for its periodic write
   * (a group that just joined has none in the journal at all) would otherwise lose the
   * records it has not consumed yet. The cutoff is taken once they are written.
   */
  private prune(): void {
    this.pruning ??= this.flushOffsets()
      .then(
        () => this.journal.prune(new Date(Date.now() - this.settings.retentionMs)),
        (error: unknown) => this.report(error, 'commit-offsets'),
      )
      .then(
        () => undefined,
        (error: unknown) => this.report(error, 'prune'),
      )
      .finally(() => (this.pruning = undefined));
  }

  /** Writes every offset that moved before this call: waits for a write in flight, which may predate some of them, then writes. */
  private async flushOffsets(): Promise<void> {
    await this.offsetWrite?.catch(() => undefined);
    await this.commitOffsets();
  }

  private report(error: unknown, operation: JournalOperation): void {
    this.options.onJournalError?.(error, operation);
  }
}

/** Gives each message the next offset of its partition, in queue order. */
function placeMessages(batch: readonly PendingAppend[]): Array<{ log: PartitionLog; record: JournalRecord }> {
  const next = new Map<PartitionLog, number>();
  return batch.flatMap(({ topic, logs, messages }) =>
    messages.map((message) => {
      const log = logs[message.partition];
      const offset = next.get(log) ?? log.endOffset;
      next.set(log, offset + 1);
      return { log, record: { topic, ...message, offset } };
    }),
  );
}
