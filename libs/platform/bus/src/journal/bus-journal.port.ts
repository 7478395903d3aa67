import { MessageHeaders } from '../message-bus.port';

/**
 * Durable storage behind the in-process bus (`new InProcessBus({ journal })`). The bus
 * keeps the tail of every partition in memory and writes through to the journal:
 * records before `publish` resolves, consumer-group offsets shortly after they move.
 * At start it resumes from what the journal holds; what memory no longer has is read
 * back from it.
 */
export interface BusJournal {
  /** Prepares the storage (migrations) and reads what the bus restarts from. */
  load(): Promise<JournalState>;
  /** Records topics and their partition counts; a topic already recorded keeps its count. */
  addTopics(topics: readonly JournalTopic[]): Promise<void>;
  /** Writes records all together or not at all. */
  append(records: readonly JournalRecord[]): Promise<void>;
  /** Records of one partition with `fromOffset <= offset < beforeOffset`, in offset order, at most `limit`. */
  read(topic: string, partition: number, fromOffset: number, beforeOffset: number, limit: number): Promise<JournalRecord[]>;
  /** Stores each group's next offset per partition, stamped with the time of the commit. */
  commitOffsets(offsets: readonly GroupOffset[]): Promise<void>;
  /**
   * Deletes records published before `cutoff` that every group with a committed
   * offset on their partition has consumed; returns how many went.
   */
  prune(cutoff: Date): Promise<number>;
  close(): Promise<void>;
}

export interface JournalTopic {
  readonly name: string;
  readonly partitions: number;
}

export interface JournalRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: MessageHeaders;
  /** Producer timestamp, epoch milliseconds. */
  readonly timestamp: number;
}

export interface GroupOffset {
  readonly groupId: string;
  readonly topic: string;
  readonly partition: number;
  /** The offset the group consumes next. */
  readonly nextOffset: number;
}

export interface PartitionEnd {
  readonly topic: string;
  readonly partition: number;
  /** The offset the next record of this partition gets. */
  readonly endOffset: number;
}

export interface JournalState {
  readonly topics: readonly JournalTopic[];
  /** Partitions that ever held a record or a committed offset; the others start at 0. */
  readonly ends: readonly PartitionEnd[];
  readonly groupOffsets: readonly GroupOffset[];
}
