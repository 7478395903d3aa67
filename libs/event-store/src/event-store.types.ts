import type { SqlWriter } from '@herald/database';

/** An event to append; `data` and `metadata` are stored as jsonb. */
export interface NewEvent {
  readonly type: string;
  readonly data: unknown;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface RecordedEvent {
  readonly streamId: string;
  /** 1-based, gapless within the stream. */
  readonly position: number;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly recordedAt: Date;
}

/** A message the outbox relay publishes after the append commits. */
export interface OutboxMessage {
  /** Unique among pending rows; published as the `message-id` header, which consumers dedupe by. */
  readonly messageId: string;
  readonly topic: string;
  readonly key: string;
  /** The JSON envelope. */
  readonly value: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A durable timer: at `dueAt` (database clock) the poller publishes the message. */
export interface TimerSchedule {
  readonly timerId: string;
  readonly dueAt: Date;
  readonly topic: string;
  readonly key: string;
  readonly value: string;
}

export interface AppendRequest {
  readonly streamId: string;
  /** The position of the last event the caller has seen; 0 for a new stream. */
  readonly expectedPosition: number;
  readonly events: readonly NewEvent[];
  readonly outbox?: readonly OutboxMessage[];
  readonly timers?: readonly TimerSchedule[];
  /** Timers of this stream to delete (unknown or already fired ids are ignored). */
  readonly cancelTimerIds?: readonly string[];
  /**
   * Updates of read models derived from these events (a run index, a message log), run
   * in the append's transaction so they never miss or double an event. Use only `tx`.
   */
  readonly project?: (tx: SqlWriter) => Promise<void>;
  /**
   * The stream's state after these events, stored as its snapshot at the append's
   * resulting position (JSON). A snapshot only ever moves forward.
   */
  readonly snapshot?: { readonly state: unknown };
}

export interface AppendResult {
  /** The position of the last appended event: the next append's `expectedPosition`. */
  readonly position: number;
}

/** A stream's folded state as of `position`, as the caller stored it. */
export interface StreamSnapshot {
  readonly position: number;
  readonly state: unknown;
}

/** What to fold to rebuild a stream: its snapshot, if any, and the events after it. */
export interface StreamFromSnapshot {
  readonly snapshot?: StreamSnapshot;
  readonly events: RecordedEvent[];
}

export interface CompactOptions {
  /** Most events deleted by this call. */
  readonly limit: number;
  /** Covered events younger than this (by the database clock) stay. Default 0. */
  readonly minAgeMs?: number;
}

/** What `EventStore.appendBatch` wrote. */
export interface BatchAppendResult {
  /** The position each written stream is at now (the next append's `expectedPosition`). */
  readonly positions: ReadonlyMap<string, number>;
  /** Streams that were not at their expected position: nothing of theirs was written. */
  readonly conflicts: ReadonlySet<string>;
}

/**
 * Read-model updates of a whole batch, in its transaction: given the appends that are
 * written (streams that lost a race are left out), set-based statements.
 */
export type BatchProjection = (tx: SqlWriter, appended: readonly AppendRequest[]) => Promise<void>;
