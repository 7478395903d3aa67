import { ExpressionCondition, WorkflowNode } from '../definition';
import { INTERPRETER_REVISION } from './interpreter-revision';
import { startFromTrigger } from './run-inputs';
import { RUN_ID, T0, at, context, decider, given, ofType, sendEmail, start, startEvents, timerFired, user, when, workflow } from './testing/run-builders';
import { replayRun } from './what-if';

const onlyIf = (variable: string, value: string): ExpressionCondition => ({ type: 'expression_v1', expression_v1: { op: 'AND', args: [{ variable_ns: '', variable, op: '==', value }] } });
const delay1h: WorkflowNode = { node_type: 'delay', name: 'Wait', delay_type: 'fixed', duration: '1h' };

describe('interpreter revisions', () => {
  const strict = workflow([sendEmail()], { conditions: [onlyIf('order.total', '1')] });
  const detailOf = (revision?: number): string | undefined => ofType(startEvents(strict, revision === undefined ? {} : { interpreter_revision: revision }), 'run.discarded.v1')[0]?.detail;

  it('given a run started by the host today, then its start event records the current revision', () => {
    const input = startFromTrigger(
      { message_id: 'msg-1', workspace_slug: 'staging', workflow: 'welcome', recipient: user(), data: {}, attachments: [] } as never,
      { run_id: RUN_ID, workflow: { slug: 'welcome', version: 3, definition: strict }, context: context() },
    );
    expect(ofType(decider.decide(input, decider.initialState(), T0), 'run.started.v1')[0].interpreter_revision).toBe(INTERPRETER_REVISION);
  });

  it('given a run on revision 2, when its conditions fail, then the detail names the operands compared', () => {
    expect(detailOf(2)).toBe('no condition holds (false: order.total == (42 vs "1"))');
  });

  it('given a run started before revisions (revision 1), when its conditions fail, then the detail is what revision 1 said', () => {
    expect(detailOf()).toBe('no condition holds (false: order.total ==)');
    expect(detailOf(1)).toBe('no condition holds (false: order.total ==)');
  });

  it('given a revision-1 run waiting on a delay when the interpreter changed, then it finishes and replays on revision 1', () => {
    const oldRun = start(workflow([delay1h, sendEmail()], { conditions: [onlyIf('order.total', '42')] }));
    const afterChange = when([[oldRun, T0]], timerFired(`${RUN_ID}:timer:0`), at(3_600_000));
    expect(afterChange.map((event) => event.type)).toEqual(['timer.fired.v1', 'node.entered.v1', 'delivery.requested.v1', 'run.completed.v1']);
    expect(ofType(given([[oldRun, T0]]).events, 'run.started.v1')[0].interpreter_revision).toBeUndefined();
    const replayed = replayRun(decider, { start: oldRun, started_at: T0, later: [] });
    expect(replayed.events).toEqual([...given([[oldRun, T0]]).events, ...afterChange]);
  });
});
