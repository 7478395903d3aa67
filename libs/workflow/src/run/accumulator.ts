import { JsonRecord } from '@herald/contracts';
import { Decider, assertNever } from '@herald/decider';
import { eventsAtClose, retainEvents } from '../schedule/batch-content';
import { isRecord } from './comparison';
import { AccumulationRequest } from './run-events';

/**
 * The accumulator of one batch key (or one digest): its own stream, next to the runs
 * that feed it, so that runs of one recipient share a batch without a lock. The host
 * keys the stream by workspace, workflow version, node path, recipient and batch key;
 * every append is at an expected position, so a join racing a close is decided again.
 *
 * A stream holds successive batches. A run that finds no batch accepting (none open, or
 * the open one past its end) opens one at its own `closes_at`: the window is never
 * extended by later runs. In `accumulate_all` the opener owns the batch: it waits for
 * the end and then sends. In `flush_leading_item` the opener goes on at once (the
 * leading item) and the next run to join owns the rest; a batch that only ever held its
 * leading item is dropped when the next one opens. Everyone else is merged and ends.
 *
 * A run cancelled at the node leaves: its event is taken out of the open batch, and if
 * it owned the batch, ownership passes to the earliest remaining merged run (the host
 * hands it the window, which still ends at the same `closes_at`). A batch left with no
 * one to own it stays open for the next run to own, as after a leading item.
 */
export type AccumulatorDecider = Decider<AccumulatorInput, AccumulatorEvent, AccumulatorState>;

export type AccumulatorInput = JoinAccumulator | CloseAccumulator | LeaveAccumulator;

export interface JoinAccumulator {
  readonly type: 'join';
  readonly run_id: string;
  readonly request: AccumulationRequest;
}

/** The owner's window ended: close its batch. */
export interface CloseAccumulator {
  readonly type: 'close';
  readonly run_id: string;
  readonly batch_id: string;
}

/** A run at the node was cancelled: take it out of the batch it joined (if still open). */
export interface LeaveAccumulator {
  readonly type: 'leave';
  readonly run_id: string;
}

export type AccumulatorEvent = AccumulatorOpened | AccumulatorJoinedEvent | AccumulatorClosed | AccumulatorLeft;

export interface AccumulatorOpened {
  readonly type: 'accumulator.opened.v1';
  /** The opener's run id: unique, and names the batch in both streams. */
  readonly batch_id: string;
  readonly opened_at: string;
  readonly closes_at: string;
  readonly mode: AccumulationRequest['mode'];
  readonly retain_count: number;
  readonly retain_order: AccumulationRequest['retain_order'];
}

export type JoinRole = 'owner' | 'leading' | 'merged';

export interface AccumulatorJoinedEvent {
  readonly type: 'accumulator.joined.v1';
  readonly batch_id: string;
  readonly run_id: string;
  readonly role: JoinRole;
  readonly data: JsonRecord;
}

/** The batch as sent: the retained events, in arrival order, and the count of all it held. */
export interface AccumulatorClosed {
  readonly type: 'accumulator.closed.v1';
  readonly batch_id: string;
  readonly owner_run_id: string;
  readonly events: readonly JsonRecord[];
  readonly count: number;
}

/** A run left the open batch; its event is no longer in it. `successor_run_id`: the merged run that owns the batch now. */
export interface AccumulatorLeft {
  readonly type: 'accumulator.left.v1';
  readonly batch_id: string;
  readonly run_id: string;
  readonly successor_run_id?: string;
}

/** What a run learns from joining: its role, and the batch's end and owner. */
export interface AccumulatorJoined {
  readonly batch_id: string;
  readonly role: JoinRole;
  readonly closes_at: string;
  /** Absent while a flush_leading_item batch holds only its leading item. */
  readonly owner_run_id?: string;
}

interface BatchItem {
  readonly run_id: string;
  readonly role: JoinRole;
  readonly data: JsonRecord;
}

interface OpenBatch {
  readonly opened: AccumulatorOpened;
  readonly owner_run_id?: string;
  /** In arrival order; a run that left is taken out. */
  readonly items: readonly BatchItem[];
}

export interface AccumulatorState {
  /** Batches not closed yet, by id; at most one of them accepts joins (`current`). */
  readonly open: Readonly<Record<string, OpenBatch>>;
  readonly current?: string;
  /** Every run that joined, with its answer, so a repeated join gets the same one. */
  readonly joined: Readonly<Record<string, AccumulatorJoined>>;
  /** Closed batches, so a repeated close gets the same content. */
  readonly closed: Readonly<Record<string, AccumulatorClosed>>;
  /** Runs that left, with what they left, so a repeated leave gets the same answer (and the successor is handed the batch again). */
  readonly left: Readonly<Record<string, AccumulatorLeft>>;
}

export function createAccumulatorDecider(): AccumulatorDecider {
  return { initialState: () => ({ open: {}, joined: {}, closed: {}, left: {} }), evolve: evolveAccumulator, decide: decideAccumulator };
}

function decideAccumulator(input: AccumulatorInput, state: AccumulatorState, now: Date): readonly AccumulatorEvent[] {
  switch (input.type) {
    case 'join':
      return state.joined[input.run_id] === undefined ? join(input, state, now) : [];
    case 'close':
      return close(input, state);
    case 'leave':
      return leave(input, state);
    default:
      return assertNever(input);
  }
}

function join(input: JoinAccumulator, state: AccumulatorState, now: Date): readonly AccumulatorEvent[] {
  const { run_id, request } = input;
  const current = state.current === undefined ? undefined : state.open[state.current];
  if (current !== undefined && now.getTime() < Date.parse(current.opened.closes_at)) {
    const role = current.owner_run_id === undefined ? 'owner' : 'merged';
    return [{ type: 'accumulator.joined.v1', batch_id: current.opened.batch_id, run_id, role, data: request.data }];
  }
  const opened: AccumulatorOpened = {
    type: 'accumulator.opened.v1',
    batch_id: run_id,
    opened_at: now.toISOString(),
    closes_at: request.closes_at,
    mode: request.mode,
    retain_count: request.retain_count,
    retain_order: request.retain_order,
  };
  const role = request.mode === 'flush_leading_item' ? 'leading' : 'owner';
  return [opened, { type: 'accumulator.joined.v1', batch_id: run_id, run_id, role, data: request.data }];
}

function close(input: CloseAccumulator, state: AccumulatorState): readonly AccumulatorEvent[] {
  const batch = state.open[input.batch_id];
  if (batch === undefined || batch.owner_run_id !== input.run_id) return [];
  const { mode, retain_count, retain_order } = batch.opened;
  const sent = eventsAtClose(mode, batch.items).map((item) => item.data);
  return [
    { type: 'accumulator.closed.v1', batch_id: input.batch_id, owner_run_id: input.run_id, events: retainEvents(sent, retain_count, retain_order), count: sent.length },
  ];
}

/** Only a member of a batch still open can leave it; the owner's successor is the earliest merged run left. */
function leave(input: LeaveAccumulator, state: AccumulatorState): readonly AccumulatorEvent[] {
  const batch_id = state.joined[input.run_id]?.batch_id;
  const batch = batch_id === undefined ? undefined : state.open[batch_id];
  if (batch_id === undefined || batch === undefined || state.left[input.run_id] !== undefined) return [];
  if (!batch.items.some((item) => item.run_id === input.run_id)) return [];
  const successor = batch.owner_run_id === input.run_id ? batch.items.find((item) => item.role === 'merged' && item.run_id !== input.run_id) : undefined;
  return [{ type: 'accumulator.left.v1', batch_id, run_id: input.run_id, ...(successor === undefined ? {} : { successor_run_id: successor.run_id }) }];
}

export function evolveAccumulator(state: AccumulatorState, event: AccumulatorEvent): AccumulatorState {
  switch (event.type) {
    case 'accumulator.opened.v1':
      return { ...state, open: { ...withoutUnowned(state), [event.batch_id]: { opened: event, items: [] } }, current: event.batch_id };
    case 'accumulator.joined.v1':
      return joined(state, event);
    case 'accumulator.closed.v1': {
      const { [event.batch_id]: _closed, ...open } = state.open;
      return { ...state, open, closed: { ...state.closed, [event.batch_id]: event } };
    }
    case 'accumulator.left.v1':
      return leftBatch(state, event);
    default:
      return assertNever(event);
  }
}

function joined(state: AccumulatorState, event: AccumulatorJoinedEvent): AccumulatorState {
  const batch = state.open[event.batch_id];
  if (batch === undefined) return state; // decide never joins a batch that is not open
  const owner_run_id = event.role === 'owner' ? event.run_id : batch.owner_run_id;
  const answer: AccumulatorJoined = {
    batch_id: event.batch_id,
    role: event.role,
    closes_at: batch.opened.closes_at,
    ...(owner_run_id === undefined ? {} : { owner_run_id }),
  };
  const item: BatchItem = { run_id: event.run_id, role: event.role, data: event.data };
  const updated: OpenBatch = { ...batch, items: [...batch.items, item], ...(owner_run_id === undefined ? {} : { owner_run_id }) };
  return { ...state, open: { ...state.open, [event.batch_id]: updated }, joined: { ...state.joined, [event.run_id]: answer } };
}

function leftBatch(state: AccumulatorState, event: AccumulatorLeft): AccumulatorState {
  const left = { ...state.left, [event.run_id]: event };
  const batch = state.open[event.batch_id];
  if (batch === undefined) return { ...state, left };
  const items = batch.items.filter((item) => item.run_id !== event.run_id).map((item) => (item.run_id === event.successor_run_id ? { ...item, role: 'owner' as const } : item));
  const { owner_run_id: _owner, ...rest } = batch;
  const owner_run_id = batch.owner_run_id === event.run_id ? event.successor_run_id : batch.owner_run_id;
  const updated: OpenBatch = { ...rest, items, ...(owner_run_id === undefined ? {} : { owner_run_id }) };
  return { ...state, open: { ...state.open, [event.batch_id]: updated }, left };
}

/** A batch that only ever held its leading item has nothing left to send and no owner to close it. */
function withoutUnowned(state: AccumulatorState): Record<string, OpenBatch> {
  return Object.fromEntries(Object.entries(state.open).filter(([, batch]) => batch.owner_run_id !== undefined));
}

/** Finished batches a compacted accumulator state remembers, newest first. */
export const KEPT_FINISHED_BATCHES = 50;

/**
 * The accumulator state without what no live run can still ask about, for a snapshot
 * of a long-lived stream. Kept: every open batch and `current`, and the newest
 * `keepClosed` finished batches (closed, or dropped after only a leading item; newest
 * by `closes_at`) with the joins, closes and leaves of all those batches. So joins of
 * new runs, closes, leaves and the repeats the host makes after a crash are decided
 * exactly as on the full state. Forgotten: older finished batches, whose runs have
 * long moved on; a join repeated after that many further batches would be taken as a
 * new run's.
 */
export function compactAccumulatorState(state: AccumulatorState, keepClosed = KEPT_FINISHED_BATCHES): AccumulatorState {
  // Every batch has a join: its opener's, which carries the batch's closes_at.
  const closesAt = new Map<string, number>();
  for (const answer of Object.values(state.joined)) closesAt.set(answer.batch_id, Date.parse(answer.closes_at));
  const finished = [...new Set([...closesAt.keys(), ...Object.keys(state.closed), ...Object.values(state.left).map((l) => l.batch_id)])].filter(
    (batchId) => state.open[batchId] === undefined,
  );
  if (finished.length <= keepClosed) return state;
  const newestFirst = (a: string, b: string): number => (closesAt.get(b) || 0) - (closesAt.get(a) || 0) || (a < b ? 1 : a > b ? -1 : 0);
  const kept = new Set([...Object.keys(state.open), ...finished.sort(newestFirst).slice(0, keepClosed)]);
  const ofKeptBatch = <T extends { readonly batch_id: string }>(entries: Readonly<Record<string, T>>): Record<string, T> =>
    Object.fromEntries(Object.entries(entries).filter(([, entry]) => kept.has(entry.batch_id)));
  return {
    open: state.open,
    ...(state.current === undefined ? {} : { current: state.current }),
    joined: ofKeptBatch(state.joined),
    closed: ofKeptBatch(state.closed),
    left: ofKeptBatch(state.left),
  };
}

/** The snapshot form of an accumulator's state: it is JSON already, so compacted on the way in and checked on the way out. */
export const accumulatorSnapshotCodec = {
  encode: (state: AccumulatorState): unknown => compactAccumulatorState(state),
  decode: (stored: unknown): AccumulatorState => {
    if (!isAccumulatorState(stored)) throw new Error('the stored accumulator snapshot is not an accumulator state');
    return stored;
  },
};

function isAccumulatorState(value: unknown): value is AccumulatorState {
  if (!isRecord(value)) return false;
  const { open, current, joined, closed, left } = value;
  return [open, joined, closed, left].every(isRecord) && (current === undefined || typeof current === 'string');
}
