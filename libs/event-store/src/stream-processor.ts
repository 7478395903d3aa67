import type { SqlWriter } from '@herald/database';
import { Decider } from '@herald/decider';
import { EventStore } from './event-store';
import { AppendRequest, NewEvent, OutboxMessage, RecordedEvent, TimerSchedule } from './event-store.types';
import { StreamConflictError } from './stream-conflict.error';

/** What the decided events cause besides being recorded: messages to publish, timers to set or cancel. */
export interface StepEffects {
  readonly outbox?: readonly OutboxMessage[];
  readonly timers?: readonly TimerSchedule[];
  readonly cancelTimerIds?: readonly string[];
  /** Read-model updates, in the append's transaction (see AppendRequest.project). */
  readonly project?: (tx: SqlWriter) => Promise<void>;
}

export interface StreamCodec<Event> {
  /** The stored form of an event: its `type` and JSON data. */
  toStored(event: Event): NewEvent;
  /** The event back from its stored form. */
  fromStored(recorded: RecordedEvent): Event;
}

export interface ProcessedStep<Event, State> {
  /** Events appended by this step (none when the decider had nothing to add, e.g. a duplicate input). */
  readonly events: readonly Event[];
  readonly state: State;
  /** The stream's position after the step. */
  readonly position: number;
  /** Appends that lost a race with another writer and were decided again. */
  readonly conflicts: number;
}

/**
 * Snapshots for a long-lived stream (a batch or digest accumulator): it is read from
 * its snapshot and the events after it, and compaction may delete what the snapshot
 * replaced. Once it has, the stream can only be read this way, so a processor of such
 * a stream must keep the policy and `decode` every form `encode` ever stored.
 */
export interface SnapshotPolicy<State> {
  /** Store a snapshot with an append that ends at least this many events after the last one. */
  readonly every: number;
  /** The stored (JSON) form; it may leave out what no decision still to come looks at. */
  encode(state: State): unknown;
  decode(stored: unknown): State;
}

/**
 * Read-model updates as rows: a step contributes its rows (`rowsOf`), and `write` puts
 * the rows of every step of a batch (one step for `process`) with set-based statements,
 * in the append's transaction.
 */
export interface BatchProjectionPolicy<Event, State, Rows> {
  rowsOf(events: readonly Event[], before: State, after: State, streamId: string, now: Date): Rows | undefined;
  write(tx: SqlWriter, rows: readonly Rows[]): Promise<void>;
}

export interface StreamProcessorOptions<State, Event = unknown, Rows = unknown> {
  /** Without it the whole stream is read and folded on every step (no extra statement). */
  readonly snapshot?: SnapshotPolicy<State>;
  readonly projection?: BatchProjectionPolicy<Event, State, Rows>;
  /**
   * Keep the state and position of at most this many streams this processor last read or
   * appended to, so the next input of such a stream is decided without reading it again
   * (a run's delivery outcome comes back moments after the trigger that started it).
   * Not with `snapshot`: a stream read from its snapshot holds only what `encode` kept.
   */
  readonly recentStreams?: number;
}

/** One input of a batch, for the stream it names. */
export interface BatchInput<Input> {
  readonly streamId: string;
  readonly input: Input;
}

/** A stream of a batch whose state may wait for another stream's answer (see `ProcessBatchOptions.followUps`). */
export interface FollowUpAsk<State> {
  readonly streamId: string;
  readonly state: State;
}

export interface ProcessBatchOptions<Input, State> {
  /**
   * As `process`'s follow-up, for the whole batch at once: after each round of inputs
   * (every stream's first input, then every stream's second, ...) it is asked with the
   * state of every stream decided in that round, and answers by stream id. So the other
   * streams it asks (a batch's accumulators) can be read and appended once per round,
   * not once per stream. It must be idempotent per stream, as `process`'s.
   */
  readonly followUps?: (asks: readonly FollowUpAsk<State>[]) => Promise<ReadonlyMap<string, Input>>;
  /** Streams the caller already loaded (`load`): they are not read again, unless they lose a race. */
  readonly loaded?: ReadonlyMap<string, LoadedStream<State>>;
  /**
   * The streams are presumed new (each a run a trigger starts): those this processor
   * does not remember are decided on the initial state at position 0, not read. One that
   * exists after all (a redelivered trigger) loses its race at the append and is read and
   * decided again, as any stream that lost one: a round trip saved on every batch, paid
   * back on a redelivery only.
   */
  readonly presumedNew?: boolean;
}

export interface LoadedStream<State> {
  readonly state: State;
  readonly position: number;
  readonly snapshotPosition: number;
}

/** Each attempt lets at least one of the racing writers win, so this outlasts any realistic race. */
const MAX_ATTEMPTS = 16;
/** Follow-up inputs in one step: a run asks its accumulator at most twice (join, then close). */
const MAX_FOLLOW_UPS = 4;

/**
 * Runs a pure decider on an event-sourced stream: read the stream, fold it, decide on
 * the input, append the new events with their effects in one transaction at the
 * expected position. When another writer got there first (two inputs of one stream on
 * two consumers during a rebalance), nothing was written: read again and decide again.
 * The decider stays pure; this is the only place that touches the store.
 */
export class StreamProcessor<Input, Event, State, Rows = unknown> {
  private readonly recent?: RecentStreams<State>;

  constructor(
    private readonly store: EventStore,
    private readonly decider: Decider<Input, Event, State>,
    private readonly codec: StreamCodec<Event>,
    private readonly effectsOf: (events: readonly Event[], before: State, after: State, streamId: string, now: Date) => StepEffects,
    private readonly options: StreamProcessorOptions<State, NoInfer<Event>, Rows> = {},
  ) {
    const every = options.snapshot?.every;
    if (every !== undefined && (!Number.isInteger(every) || every < 1)) throw new Error(`snapshot.every must be a positive integer, got ${every}`);
    const recent = options.recentStreams;
    if (recent !== undefined) {
      if (!Number.isInteger(recent) || recent < 1) throw new Error(`recentStreams must be a positive integer, got ${recent}`);
      if (options.snapshot !== undefined) throw new Error('recentStreams does not go with a snapshot policy');
      this.recent = new RecentStreams(recent);
    }
  }

  /**
   * With a snapshot policy, `state` is folded from the decoded snapshot, so it holds only
   * what `encode` kept.
   *
   * `followUp` is asked, before anything is appended, for a further input on the state
   * decided so far: the answer of another stream the decider waits for (a batch's
   * accumulator). All the events then go in one append, one transaction instead of one
   * per input. It is asked even when the input itself decided nothing, so a state left
   * waiting by an earlier step is followed up too. It must be idempotent: after a lost
   * race, or a crash before the append, it is asked again.
   */
  async process(streamId: string, input: Input, now: Date, followUp?: (state: State) => Promise<Input | undefined>): Promise<ProcessedStep<Event, State>> {
    for (let attempt = 1; ; attempt += 1) {
      const { state, position, snapshotPosition } = await this.load(streamId);
      let events = this.decider.decide(input, state, now);
      let after = events.reduce(this.decider.evolve, state);
      for (let round = 0, next = await followUp?.(after); next !== undefined && round < MAX_FOLLOW_UPS; round += 1, next = await followUp?.(after)) {
        const more = this.decider.decide(next, after, now);
        if (more.length === 0) break; // an answer the decider ignores would be asked for again
        events = [...events, ...more];
        after = more.reduce(this.decider.evolve, after);
      }
      if (events.length === 0) return { events, state, position, conflicts: attempt - 1 };
      try {
        const request = this.appendRequest(streamId, { before: state, after, events, position, snapshotPosition }, now);
        const rows = this.options.projection?.rowsOf(events, state, after, streamId, now);
        const projection = this.options.projection;
        const result = await this.store.append(
          rows === undefined || projection === undefined ? request : { ...request, project: (tx) => projection.write(tx, [rows]) },
        );
        this.recent?.remember(streamId, { state: after, position: result.position, snapshotPosition });
        return { events, state: after, position: result.position, conflicts: attempt - 1 };
      } catch (error) {
        this.recent?.forget(streamId);
        if (!(error instanceof StreamConflictError) || attempt >= MAX_ATTEMPTS) throw error;
        // Jittered backoff, so writers that collided do not collide again in lockstep.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 2 ** attempt)));
      }
    }
  }

  /**
   * A batch of inputs of many streams, each stream's in the order given: every stream
   * read in one statement (or taken from `loaded`), every input decided in memory on the
   * state its stream's earlier inputs left, and every stream's events, effects and
   * projection rows appended in one transaction (`EventStore.appendBatch`). Only the
   * streams that lost a race are read and decided again. Returns each stream's step
   * (all its inputs' events together).
   */
  async processBatch(items: readonly BatchInput<Input>[], now: Date, options: ProcessBatchOptions<Input, State> = {}): Promise<Map<string, ProcessedStep<Event, State>>> {
    const inputsOf = new Map<string, Input[]>();
    for (const { streamId, input } of items) {
      const inputs = inputsOf.get(streamId);
      if (inputs === undefined) inputsOf.set(streamId, [input]);
      else inputs.push(input);
    }
    const steps = new Map<string, ProcessedStep<Event, State>>();
    let pending = [...inputsOf.keys()];
    let loaded = options.loaded ?? new Map<string, LoadedStream<State>>();
    const missing = pending.filter((id) => !loaded.has(id));
    // A stream presumed new that is not remembered is decided on the initial state below.
    if (missing.length > 0) loaded = new Map([...loaded, ...(options.presumedNew ? this.remembered(missing) : await this.loadMany(missing))]);
    for (let attempt = 1; ; attempt += 1) {
      const decided: Array<DecidedStep<Event, State> & { streamId: string }> = [];
      const streams = pending.map((streamId) => ({ streamId, stream: loaded.get(streamId) ?? { state: this.decider.initialState(), position: 0, snapshotPosition: 0 } }));
      for (const step of await this.decideAll(streams, inputsOf, now, options.followUps)) {
        if (step.events.length === 0) steps.set(step.streamId, { events: [], state: step.before, position: step.position, conflicts: attempt - 1 });
        else decided.push(step);
      }
      if (decided.length === 0) return steps;
      const projection = this.options.projection;
      const rowsByStream = new Map<string, Rows>();
      if (projection) {
        for (const d of decided) {
          const rows = projection.rowsOf(d.events, d.before, d.after, d.streamId, now);
          if (rows !== undefined) rowsByStream.set(d.streamId, rows);
        }
      }
      const { conflicts } = await this.store.appendBatch(
        decided.map((d) => this.appendRequest(d.streamId, d, now)),
        projection && rowsByStream.size > 0
          ? (tx, appended) => projection.write(tx, appended.flatMap((a) => (rowsByStream.has(a.streamId) ? [rowsByStream.get(a.streamId) as Rows] : [])))
          : undefined,
      );
      for (const d of decided) {
        if (conflicts.has(d.streamId)) {
          this.recent?.forget(d.streamId);
          continue;
        }
        const position = d.position + d.events.length;
        steps.set(d.streamId, { events: d.events, state: d.after, position, conflicts: attempt - 1 });
        // The state as decided, as the next input of this batch would have seen it (decideAll).
        this.recent?.remember(d.streamId, { state: d.after, position, snapshotPosition: d.snapshotPosition });
      }
      if (conflicts.size === 0) return steps;
      if (attempt >= MAX_ATTEMPTS) {
        const [lost] = conflicts;
        throw new StreamConflictError(lost, decided.find((d) => d.streamId === lost)?.position ?? 0);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 2 ** attempt)));
      pending = [...conflicts];
      loaded = await this.loadMany(pending); // forgotten above: read again
    }
  }

  /** Those of the streams this processor remembers (`recentStreams`), as it left them. */
  private remembered(streamIds: readonly string[]): Map<string, LoadedStream<State>> {
    const found = new Map<string, LoadedStream<State>>();
    for (const streamId of streamIds) {
      const known = this.recent?.get(streamId);
      if (known !== undefined) found.set(streamId, known);
    }
    return found;
  }

  /** Many streams' states in one statement (those of `recentStreams` without one). */
  async loadMany(streamIds: readonly string[]): Promise<Map<string, LoadedStream<State>>> {
    const policy = this.options.snapshot;
    const loaded = this.remembered(streamIds);
    const unknown = streamIds.filter((streamId) => !loaded.has(streamId));
    if (unknown.length === 0) return loaded;
    const streams = await this.store.readStreams(unknown, { fromSnapshot: policy !== undefined });
    for (const [streamId, { snapshot, events }] of streams) {
      const snapshotPosition = snapshot?.position ?? 0;
      const initial = snapshot === undefined || policy === undefined ? this.decider.initialState() : policy.decode(snapshot.state);
      const stream = { state: this.fold(initial, events), position: lastPosition(events, snapshotPosition), snapshotPosition };
      loaded.set(streamId, stream);
      this.recent?.remember(streamId, stream);
    }
    return loaded;
  }

  /**
   * Every stream's inputs decided in order on the state its earlier ones left, in rounds
   * (every stream's first input, then its second, ...), each round's states followed up
   * together as `process` follows up one.
   */
  private async decideAll(
    streams: ReadonlyArray<{ readonly streamId: string; readonly stream: LoadedStream<State> }>,
    inputsOf: ReadonlyMap<string, readonly Input[]>,
    now: Date,
    followUps: ProcessBatchOptions<Input, State>['followUps'],
  ): Promise<Array<DecidedStep<Event, State> & { streamId: string }>> {
    const work = streams.map(({ streamId, stream }) => ({ streamId, stream, inputs: inputsOf.get(streamId) ?? [], events: [] as Event[], after: stream.state }));
    const rounds = Math.max(0, ...work.map((w) => w.inputs.length));
    for (let i = 0; i < rounds; i += 1) {
      let asking = work.filter((w) => i < w.inputs.length);
      for (const w of asking) this.decideInto(w, w.inputs[i], now);
      for (let round = 0; followUps !== undefined && asking.length > 0 && round < MAX_FOLLOW_UPS; round += 1) {
        const answers = await followUps(asking.map((w) => ({ streamId: w.streamId, state: w.after })));
        // An answer the decider ignores would be asked for again: that stream is done.
        asking = asking.filter((w) => {
          const answer = answers.get(w.streamId);
          return answer !== undefined && this.decideInto(w, answer, now) > 0;
        });
      }
    }
    return work.map(({ streamId, stream, events, after }) => ({
      streamId,
      before: stream.state,
      after,
      events,
      position: stream.position,
      snapshotPosition: stream.snapshotPosition,
    }));
  }

  /** Decides one input on the state so far and records its events; returns how many. */
  private decideInto(work: { events: Event[]; after: State }, input: Input, now: Date): number {
    const decided = this.decider.decide(input, work.after, now);
    work.events.push(...decided);
    work.after = decided.reduce(this.decider.evolve, work.after);
    return decided.length;
  }

  private appendRequest(streamId: string, step: DecidedStep<Event, State>, now: Date): AppendRequest {
    const policy = this.options.snapshot;
    const { events, before, after, position, snapshotPosition } = step;
    return {
      streamId,
      expectedPosition: position,
      events: events.map((e) => this.codec.toStored(e)),
      ...this.effectsOf(events, before, after, streamId, now),
      ...(policy !== undefined && position + events.length - snapshotPosition >= policy.every ? { snapshot: { state: policy.encode(after) } } : {}),
    };
  }

  private async load(streamId: string): Promise<LoadedStream<State>> {
    const policy = this.options.snapshot;
    if (policy === undefined) {
      const known = this.recent?.get(streamId);
      if (known !== undefined) return known;
      const history = await this.store.readStream(streamId);
      return { state: this.fold(this.decider.initialState(), history), position: lastPosition(history, 0), snapshotPosition: 0 };
    }
    const { snapshot, events } = await this.store.readStreamFromSnapshot(streamId);
    const snapshotPosition = snapshot?.position ?? 0;
    const initial = snapshot === undefined ? this.decider.initialState() : policy.decode(snapshot.state);
    return { state: this.fold(initial, events), position: lastPosition(events, snapshotPosition), snapshotPosition };
  }

  private fold(initial: State, events: readonly RecordedEvent[]): State {
    let state = initial;
    for (const recorded of events) state = this.decider.evolve(state, this.codec.fromStored(recorded));
    return state;
  }
}

interface DecidedStep<Event, State> {
  readonly before: State;
  readonly after: State;
  readonly events: readonly Event[];
  /** Where the stream was when read: the append's expected position. */
  readonly position: number;
  readonly snapshotPosition: number;
}

function lastPosition(events: readonly RecordedEvent[], otherwise: number): number {
  return events.length === 0 ? otherwise : events[events.length - 1].position;
}

/**
 * The streams a processor last read or appended to, least recent first (a Map keeps
 * insertion order). An entry may fall behind the stream (another replica appended, after
 * a rebalance): the append it leads to then conflicts, the entry is forgotten and the
 * stream read again, as for any lost race. So an entry only ever moves forward, and only
 * after a commit; the states are the decider's, never changed in place.
 */
class RecentStreams<State> {
  private readonly entries = new Map<string, LoadedStream<State>>();

  constructor(private readonly capacity: number) {}

  get(streamId: string): LoadedStream<State> | undefined {
    return this.entries.get(streamId);
  }

  remember(streamId: string, stream: LoadedStream<State>): void {
    const known = this.entries.get(streamId);
    // A slower caller's older view must not replace a newer one.
    if (known !== undefined && known.position > stream.position) return;
    this.entries.delete(streamId);
    this.entries.set(streamId, stream);
    if (this.entries.size > this.capacity) {
      const [oldest] = this.entries.keys();
      this.entries.delete(oldest);
    }
  }

  forget(streamId: string): void {
    this.entries.delete(streamId);
  }
}
