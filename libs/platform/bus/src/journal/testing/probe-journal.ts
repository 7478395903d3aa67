import { BusJournal, GroupOffset, JournalRecord, JournalState, JournalTopic } from '../bus-journal.port';

/**
 * A journal that counts appends, can hold them back, and can "crash": from then on
 * no call settles and the database connections are gone, as when the process dies.
 */
export class ProbeJournal implements BusJournal {
  appendCalls = 0;
  /** Prune rounds that have finished: a test waits for some to pass instead of sleeping. */
  prunesDone = 0;
  private crashed = false;
  private held?: Promise<void>;

  constructor(private readonly inner: BusJournal) {}

  /** Appends wait until the returned function is called. */
  holdAppends(): () => void {
    let release = (): void => undefined;
    this.held = new Promise((resolve) => (release = resolve));
    return () => {
      this.held = undefined;
      release();
    };
  }

  async crash(): Promise<void> {
    this.crashed = true;
    await this.inner.close();
  }

  load(): Promise<JournalState> {
    return this.call(() => this.inner.load());
  }

  addTopics(topics: readonly JournalTopic[]): Promise<void> {
    return this.call(() => this.inner.addTopics(topics));
  }

  append(records: readonly JournalRecord[]): Promise<void> {
    this.appendCalls += 1;
    return this.call(async () => {
      await this.held;
      await this.inner.append(records);
    });
  }

  read(topic: string, partition: number, fromOffset: number, beforeOffset: number, limit: number): Promise<JournalRecord[]> {
    return this.call(() => this.inner.read(topic, partition, fromOffset, beforeOffset, limit));
  }

  commitOffsets(offsets: readonly GroupOffset[]): Promise<void> {
    return this.call(() => this.inner.commitOffsets(offsets));
  }

  prune(cutoff: Date): Promise<number> {
    return this.call(async () => {
      const pruned = await this.inner.prune(cutoff);
      this.prunesDone += 1;
      return pruned;
    });
  }

  close(): Promise<void> {
    return this.call(() => this.inner.close());
  }

  private call<T>(run: () => Promise<T>): Promise<T> {
    return this.crashed ? new Promise<T>(() => undefined) : run();
  }
}
