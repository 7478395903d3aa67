/**
 * The shape of every event-sourced process in Herald (a workflow run first of all):
 * state is a pure fold of events, and decisions are a pure function of an input, the
 * state and the time. No I/O, no clock, no randomness: ids and the current time
 * arrive as inputs, so replaying a recorded history gives the same decisions.
 */
export interface Decider<Input, Event, State> {
  readonly initialState: () => State;
  readonly evolve: (state: State, event: Event) => State;
  readonly decide: (input: Input, state: State, now: Date) => readonly Event[];
}

/** The state after a history of events. */
export function fold<Input, Event, State>(decider: Decider<Input, Event, State>, events: Iterable<Event>): State {
  let state = decider.initialState();
  for (const event of events) state = decider.evolve(state, event);
  return state;
}

export interface Decision<Event, State> {
  readonly events: readonly Event[];
  readonly state: State;
}

/** Decides on one input and folds the new events into the state. */
export function handle<Input, Event, State>(
  decider: Decider<Input, Event, State>,
  state: State,
  input: Input,
  now: Date,
): Decision<Event, State> {
  const events = decider.decide(input, state, now);
  return { events, state: events.reduce(decider.evolve, state) };
}

/** A recorded step: the input a stream consumed, when, and the events it decided. */
export interface RecordedStep<Input, Event> {
  readonly input: Input;
  readonly at: Date;
  readonly decided: readonly Event[];
}

export interface ReplayMismatch<Input, Event> {
  readonly step: number;
  readonly input: Input;
  readonly recorded: readonly Event[];
  readonly replayed: readonly Event[];
}

/**
 * Replays a recorded history and reports the first step whose decisions differ from
 * what was recorded. Used to prove that a change of the interpreter does not change
 * what existing runs would do.
 */
export function replay<Input, Event, State>(
  decider: Decider<Input, Event, State>,
  history: readonly RecordedStep<Input, Event>[],
  equals: (a: readonly Event[], b: readonly Event[]) => boolean = (a, b) => JSON.stringify(a) === JSON.stringify(b),
): ReplayMismatch<Input, Event> | undefined {
  let state = decider.initialState();
  for (const [step, recorded] of history.entries()) {
    const { events, state: next } = handle(decider, state, recorded.input, recorded.at);
    if (!equals(events, recorded.decided)) return { step, input: recorded.input, recorded: recorded.decided, replayed: events };
    state = next;
  }
  return undefined;
}

/** For the `default` of an exhaustive switch over a tagged union. */
export function assertNever(value: never): never {
  throw new Error(`unexpected variant: ${JSON.stringify(value)}`);
}
