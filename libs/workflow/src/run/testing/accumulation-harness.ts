import { JsonRecord } from '@herald/contracts';
import { WorkflowDefinition } from '../../definition';
import { handle } from '@herald/decider';
import { AccumulatorState, createAccumulatorDecider } from '../accumulator';
import { RunContext } from '../run-context';
import { RunEvent } from '../run-events';
import { RunInput } from '../run-inputs';
import { LiveRun, RunState } from '../run-state';
import { accumulationClosed, accumulationJoined, context, decider, start, timerFired } from './run-builders';

const accumulator = createAccumulatorDecider();

/**
 * The engine host's part in batches and digests, in memory: several runs of one
 * recipient, each input followed by what the host does for a run at a batch or digest
 * node (join the accumulator of its key, close it when the owner's window ends).
 */
export class AccumulationHarness {
  private readonly runs = new Map<string, RunState>();
  private readonly logs = new Map<string, RunEvent[]>();
  private readonly accumulators = new Map<string, AccumulatorState>();

  constructor(
    private readonly definition: WorkflowDefinition,
    private readonly ctx: RunContext = context(),
  ) {}

  trigger(runId: string, data: JsonRecord, now: Date): readonly RunEvent[] {
    return this.feed(runId, start(this.definition, { run_id: runId, data, context: this.ctx }), now);
  }

  /** The run's pending timer fires (its window or schedule ended). */
  fire(runId: string, now: Date): readonly RunEvent[] {
    const run = this.run(runId);
    const timer = run.waiting?.kind === 'accumulation' && run.waiting.stage === 'open' ? run.waiting.timer_id : undefined;
    if (timer === undefined) throw new Error(`${runId} waits for no batch timer`);
    return this.feed(runId, timerFired(timer, this.ctx), now);
  }

  /** The run is cancelled (RunHost.cancel): a run at a batch leaves it, and a cancelled owner hands it on. */
  cancel(runId: string, now: Date): readonly RunEvent[] {
    return this.feed(runId, { type: 'cancel', reason: 'test', context: this.ctx }, now);
  }

  log(runId: string): readonly RunEvent[] {
    return this.logs.get(runId) ?? [];
  }

  run(runId: string): LiveRun {
    const state = this.runs.get(runId);
    if (state === undefined || state.status === 'new') throw new Error(`no run ${runId}`);
    return state;
  }

  private feed(runId: string, input: RunInput, now: Date): readonly RunEvent[] {
    const decision = handle(decider, this.runs.get(runId) ?? decider.initialState(), input, now);
    this.runs.set(runId, decision.state);
    this.logs.set(runId, [...this.log(runId), ...decision.events]);
    return [...decision.events, ...this.followUp(runId, decision.state, now)];
  }

  private followUp(runId: string, state: RunState, now: Date): readonly RunEvent[] {
    if (state.status === 'cancelled' && state.left !== undefined) return this.leave(runId, `${state.left.request.node_type}:${state.left.request.key}`, now);
    if (state.status !== 'running' || state.waiting?.kind !== 'accumulation') return [];
    const waiting = state.waiting;
    switch (waiting.stage) {
      case 'joining': {
        const key = `${waiting.request.node_type}:${waiting.request.key}`;
        const after = this.accumulate(key, { type: 'join', run_id: runId, request: waiting.request }, now);
        return this.feed(runId, accumulationJoined(waiting.path, after.joined[runId], this.ctx), now);
      }
      case 'closing': {
        const key = Array.from(this.accumulators.entries()).find(([, acc]) => acc.open[waiting.batch_id] !== undefined || acc.closed[waiting.batch_id] !== undefined)?.[0];
        if (key === undefined) throw new Error(`no accumulator holds ${waiting.batch_id}`);
        const after = this.accumulate(key, { type: 'close', run_id: runId, batch_id: waiting.batch_id }, now);
        const closed = after.closed[waiting.batch_id];
        return this.feed(runId, accumulationClosed(waiting.path, waiting.batch_id, closed.events, closed.count, this.ctx), now);
      }
      case 'open':
        return [];
    }
  }

  private leave(runId: string, key: string, now: Date): readonly RunEvent[] {
    const after = this.accumulate(key, { type: 'leave', run_id: runId }, now);
    const left = after.left[runId];
    if (left?.successor_run_id === undefined) return [];
    const successor = this.run(left.successor_run_id);
    if (successor.merged === undefined) return [];
    const closes_at = after.joined[left.successor_run_id].closes_at;
    return this.feed(left.successor_run_id, { type: 'accumulation_handed_over', path: successor.merged.path, batch_id: left.batch_id, from_run_id: runId, closes_at, context: this.ctx }, now);
  }

  private accumulate(key: string, input: Parameters<typeof accumulator.decide>[0], now: Date): AccumulatorState {
    const decision = handle(accumulator, this.accumulators.get(key) ?? accumulator.initialState(), input, now);
    this.accumulators.set(key, decision.state);
    return decision.state;
  }
}
