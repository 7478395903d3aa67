import { Decider, assertNever, fold, handle, replay } from './decider';

// A small decider (a reminder that fires once, after a delay) stands in for the
// workflow interpreter to pin down the mechanics every decider relies on.
type Input = { type: 'schedule'; reminderId: string; delayMs: number } | { type: 'timer_fired'; reminderId: string };
type Event =
  | { type: 'scheduled'; reminderId: string; dueAt: string }
  | { type: 'fired'; reminderId: string; at: string };
type State = { status: 'idle' } | { status: 'waiting'; dueAt: string } | { status: 'done' };

const reminder: Decider<Input, Event, State> = {
  initialState: () => ({ status: 'idle' }),
  evolve: (_state, event) => {
    switch (event.type) {
      case 'scheduled':
        return { status: 'waiting', dueAt: event.dueAt };
      case 'fired':
        return { status: 'done' };
      default:
        return assertNever(event);
    }
  },
  decide: (input, state, now) => {
    switch (input.type) {
      case 'schedule':
        if (state.status !== 'idle') return []; // a duplicate input is a no-op
        return [{ type: 'scheduled', reminderId: input.reminderId, dueAt: new Date(now.getTime() + input.delayMs).toISOString() }];
      case 'timer_fired':
        if (state.status !== 'waiting' || now.toISOString() < state.dueAt) return [];
        return [{ type: 'fired', reminderId: input.reminderId, at: now.toISOString() }];
      default:
        return assertNever(input);
    }
  },
};

const t0 = new Date('2026-11-21T10:00:00.000Z');
const at = (ms: number): Date => new Date(t0.getTime() + ms);

describe('decider mechanics', () => {
  it('given no history, when scheduled, then one event and the new state', () => {
    const decision = handle(reminder, fold(reminder, []), { type: 'schedule', reminderId: 'r1', delayMs: 2_000 }, t0);
    expect(decision.events).toEqual([{ type: 'scheduled', reminderId: 'r1', dueAt: '2026-11-21T10:00:02.000Z' }]);
    expect(decision.state).toEqual({ status: 'waiting', dueAt: '2026-11-21T10:00:02.000Z' });
  });

  it('given a scheduled reminder, when the same schedule input comes again, then nothing happens', () => {
    const state = fold(reminder, [{ type: 'scheduled', reminderId: 'r1', dueAt: '2026-11-21T10:00:02.000Z' }]);
    expect(handle(reminder, state, { type: 'schedule', reminderId: 'r1', delayMs: 2_000 }, at(10)).events).toEqual([]);
  });

  it('replays a recorded history to the same decisions', () => {
    const history = [
      { input: { type: 'schedule', reminderId: 'r1', delayMs: 2_000 } as Input, at: t0, decided: [] as Event[] },
      { input: { type: 'timer_fired', reminderId: 'r1' } as Input, at: at(2_000), decided: [] as Event[] },
    ];
    history[0].decided = [{ type: 'scheduled', reminderId: 'r1', dueAt: '2026-11-21T10:00:02.000Z' }];
    history[1].decided = [{ type: 'fired', reminderId: 'r1', at: '2026-11-21T10:00:02.000Z' }];
    expect(replay(reminder, history)).toBeUndefined();
  });

  it('reports the first step where a replay decides differently', () => {
    const history = [
      {
        input: { type: 'schedule', reminderId: 'r1', delayMs: 2_000 } as Input,
        at: t0,
        decided: [{ type: 'scheduled', reminderId: 'r1', dueAt: '2026-11-21T10:00:05.000Z' }] as Event[],
      },
    ];
    expect(replay(reminder, history)).toMatchObject({ step: 0, replayed: [{ dueAt: '2026-11-21T10:00:02.000Z' }] });
  });

  it('refuses an unknown variant at run time', () => {
    expect(() => assertNever({ type: 'mystery' } as never)).toThrow('unexpected variant');
  });
});
