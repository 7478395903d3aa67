import { MAX_EXPRESSION_DEPTH } from './validate-conditions';
import { MAX_BRANCH_DEPTH } from './validate-node';
import {
  BrokenCase,
  Json,
  branch,
  comparison,
  conditionalBranch,
  defaultBranch,
  delay,
  delayCondition,
  eventBranch,
  expectErrors,
  expectValid,
  expression,
  futureEvent,
  relativeTo,
  sendEmail,
  timeoutBranch,
  waitUntil,
  withNode,
  workflow,
} from './testing/definition-fixtures';

const N = 'tree.nodes[0]';
const JQ = 'invalid jq expression: unbalanced parentheses';
const OPS = 'must be one of ==, !=, >, <, >=, <=, EMPTY, NON_EMPTY, CONTAINS, NOT_CONTAINS, DATETIME_EQUALS, DATETIME_LT, DATETIME_GT';

describe('branch node', () => {
  const B = `${N}.branches[0]`;
  /** A branch node whose first (non-default) branch has this one condition. */
  const withCondition = (condition: Json) => withNode(branch({ branches: [conditionalBranch({ conditions: [condition] }), defaultBranch()] }));
  /** ... whose first condition's expression_v1 has these args. */
  const withArgs = (args: unknown[], op = 'AND') => withCondition(expression({ expression_v1: { op, args } }));
  const E = `${B}.conditions[0].expression_v1`;

  const cases: readonly BrokenCase[] = [
    ['branches is required', withNode(branch({ branches: undefined })), `${N}.branches: is required`],
    ['branches must be an array', withNode(branch({ branches: {} })), `${N}.branches: must be an array`],
    ['at least 2 branches', withNode(branch({ branches: [defaultBranch()] })), `${N}.branches: must hold 2 to 10 branches`],
    ['at most 10 branches', withNode(branch({ branches: [...Array.from({ length: 10 }, () => conditionalBranch()), defaultBranch()] })), `${N}.branches: must hold 2 to 10 branches`],
    ['a branch is an object', withNode(branch({ branches: ['pro', defaultBranch()] })), `${N}.branches[0]: must be an object`],
    ['one default branch, not none', withNode(branch({ branches: [conditionalBranch(), conditionalBranch()] })), `${N}.branches: exactly one branch must be the default (is_default true), found 0`],
    ['one default branch, not two', withNode(branch({ branches: [conditionalBranch({ is_default: true }), defaultBranch()] })), `${N}.branches: exactly one branch must be the default (is_default true), found 2`],
    ['is_default is a boolean', withNode(branch({ branches: [conditionalBranch(), defaultBranch(), defaultBranch({ is_default: 'true' })] })), [`${N}.branches[2].is_default: must be true or false`, `${N}.branches[2].conditions: must hold at least one condition for a branch that is not the default`]],
    ['a branch that is not the default has a condition', withNode(branch({ branches: [conditionalBranch({ conditions: [] }), defaultBranch()] })), `${B}.conditions: must hold at least one condition for a branch that is not the default`],
    ['a branch without conditions is not the default', withNode(branch({ branches: [conditionalBranch({ conditions: undefined }), defaultBranch()] })), `${B}.conditions: must hold at least one condition for a branch that is not the default`],
    ['conditions must be an array', withNode(branch({ branches: [conditionalBranch({ conditions: expression() }), defaultBranch()] })), `${B}.conditions: must be an array`],
    ['a branch has nodes', withNode(branch({ branches: [conditionalBranch({ nodes: undefined }), defaultBranch()] })), `${B}.nodes: is required`],
    ['a branch has at least one node', withNode(branch({ branches: [conditionalBranch({ nodes: [] }), defaultBranch()] })), `${B}.nodes: must hold at least one node`],
    ['branch name is a string', withNode(branch({ branches: [conditionalBranch({ name: 1 }), defaultBranch()] })), `${B}.name: must be a string`],
    ['condition type is expression_v1', withCondition(expression({ type: 'future_event' })), `${B}.conditions[0].type: must be one of expression_v1`],
    ['condition type is required', withCondition(expression({ type: undefined })), `${B}.conditions[0].type: is required`],
    ['expression_v1 is required', withCondition({ type: 'expression_v1' }), `${E}: is required`],
    ['expression op enum', withArgs([comparison()], 'XOR'), `${E}.op: must be one of AND, OR`],
    ['expression op is required', withCondition(expression({ expression_v1: { args: [comparison()] } })), `${E}.op: is required`],
    ['expression args are required', withCondition(expression({ expression_v1: { op: 'AND' } })), `${E}.args: is required`],
    ['expression args are not empty', withArgs([]), `${E}.args: must hold at least one condition`],
    ['an arg is an object', withArgs(['plan == pro']), `${E}.args[0]: must be an object`],
    ['arg variable_ns enum', withArgs([comparison({ variable_ns: '$user' })]), `${E}.args[0].variable_ns: must be one of "", $tenant, $brand, $actor, $recipient, $future_event, $workflow`],
    ['arg variable is required', withArgs([comparison({ variable: undefined })]), `${E}.args[0].variable: is required`],
    ['arg variable must not be blank', withArgs([comparison({ variable: ' ' })]), `${E}.args[0].variable: must not be empty`],
    ['arg op is required', withArgs([comparison({ op: undefined })]), `${E}.args[0].op: is required`],
    ['arg op enum', withArgs([comparison({ op: 'ARRAY_INTERSECTS' })]), `${E}.args[0].op: ${OPS}`],
    ['arg value is a string', withArgs([comparison({ value: 100 })]), `${E}.args[0].value: must be a string`],
    ['a nested expression op enum', withArgs([comparison(), { op: 'NOT', args: [comparison()] }]), `${E}.args[1].op: must be one of AND, OR`],
    ['a nested expression has args', withArgs([{ op: 'OR', args: [] }]), `${E}.args[0].args: must hold at least one condition`],
    ['a nested comparison is checked', withArgs([{ op: 'OR', args: [comparison(), comparison({ op: '~' })] }]), `${E}.args[0].args[1].op: ${OPS}`],
    ['nodes in a branch are checked', withNode(branch({ branches: [conditionalBranch({ nodes: [sendEmail(), delay({ duration: '1y' })] }), defaultBranch()] })), `${B}.nodes[1].duration: must be a duration like 1d2h30m10s`],
  ];
  it.each(cases)('%s', (_rule, input, expected) => expectErrors(input, expected));

  it.each([
    ['every variable_ns', ['', '$tenant', '$brand', '$actor', '$recipient', '$future_event', '$workflow'].map((variable_ns) => comparison({ variable_ns }))],
    ['no variable_ns (payload data)', [comparison({ variable_ns: undefined })]],
    ['every comparison op', ['==', '!=', '>', '<', '>=', '<=', 'EMPTY', 'NON_EMPTY', 'CONTAINS', 'NOT_CONTAINS', 'DATETIME_EQUALS', 'DATETIME_LT', 'DATETIME_GT'].map((op) => comparison({ op }))],
    ['nested OR inside AND inside OR', [{ op: 'AND', args: [comparison(), { op: 'OR', args: [comparison()] }] }]],
  ])('accepts %s', (_case, args) => expectValid(withArgs(args)));

  it('accepts the default branch anywhere and with conditions of its own', () =>
    expectValid(withNode(branch({ branches: [defaultBranch({ conditions: [expression()] }), conditionalBranch()] }))));

  it('reports the path of a node deep in nested branches', () => {
    const inner = branch({ branches: [conditionalBranch({ nodes: [sendEmail(), delay({ duration: 'later' })] }), defaultBranch()] });
    const input = workflow({}, [sendEmail(), sendEmail(), branch({ branches: [conditionalBranch({ nodes: [inner] }), defaultBranch()] })]);
    expectErrors(input, 'tree.nodes[2].branches[0].nodes[0].branches[0].nodes[1].duration: must be a duration like 1d2h30m10s');
  });

  it(`accepts branch nodes nested ${MAX_BRANCH_DEPTH} deep and refuses one more level`, () => {
    const nest = (levels: number): Json =>
      levels === 0 ? sendEmail() : branch({ branches: [conditionalBranch({ nodes: [nest(levels - 1)] }), defaultBranch()] });
    expectValid(withNode(nest(MAX_BRANCH_DEPTH)));
    const path = `${N}${'.branches[0].nodes[0]'.repeat(MAX_BRANCH_DEPTH)}`;
    expectErrors(withNode(nest(MAX_BRANCH_DEPTH + 1)), `${path}: branch nodes must not nest more than ${MAX_BRANCH_DEPTH} levels deep`);
  });

  it(`accepts expressions nested ${MAX_EXPRESSION_DEPTH} deep and refuses one more level`, () => {
    const nest = (levels: number): Json => (levels === 1 ? { op: 'AND', args: [comparison()] } : { op: 'OR', args: [nest(levels - 1)] });
    const at = (levels: number) => withCondition(expression({ expression_v1: nest(levels) }));
    expectValid(at(MAX_EXPRESSION_DEPTH));
    const path = `${E}${'.args[0]'.repeat(MAX_EXPRESSION_DEPTH)}.args`;
    expectErrors(at(MAX_EXPRESSION_DEPTH + 1), `${path}: expressions must not nest more than ${MAX_EXPRESSION_DEPTH} levels deep`);
  });
});

describe('branch_waituntil node', () => {
  const B0 = `${N}.branches[0]`;
  const B1 = `${N}.branches[1]`;
  const C0 = `${B0}.conditions[0]`;
  const C1 = `${B1}.conditions[0]`;
  const withEvent = (over: Json) => withNode(waitUntil({ branches: [eventBranch({ conditions: [futureEvent(over)] }), timeoutBranch()] }));
  const withTimeout = (delay_properties: unknown) => withNode(waitUntil({ branches: [eventBranch(), timeoutBranch({ conditions: [delayCondition({ delay_properties })] })] }));
  const withEventCondition = (over: Json) =>
    withEvent({ event_conditions: [{ variable_ns: '$future_event', variable: 'status', op: '==', value: 'approved', ...over }] });

  const cases: readonly BrokenCase[] = [
    ['branches is required', withNode(waitUntil({ branches: undefined })), `${N}.branches: is required`],
    ['exactly 2 branches, not 1', withNode(waitUntil({ branches: [timeoutBranch()] })), `${N}.branches: must hold exactly 2 branches`],
    ['exactly 2 branches, not 3', withNode(waitUntil({ branches: [eventBranch(), eventBranch(), timeoutBranch()] })), `${N}.branches: must hold exactly 2 branches`],
    ['a branch holds exactly one condition, not none', withNode(waitUntil({ branches: [eventBranch({ conditions: [] }), timeoutBranch()] })), `${B0}.conditions: must hold exactly one condition`],
    ['a branch holds exactly one condition, not two', withNode(waitUntil({ branches: [eventBranch({ conditions: [futureEvent(), futureEvent()] }), timeoutBranch()] })), `${B0}.conditions: must hold exactly one condition`],
    ['a branch has conditions', withNode(waitUntil({ branches: [eventBranch({ conditions: undefined }), timeoutBranch()] })), `${B0}.conditions: is required`],
    ['a branch has at least one node', withNode(waitUntil({ branches: [eventBranch({ nodes: [] }), timeoutBranch()] })), `${B0}.nodes: must hold at least one node`],
    ['the delay branch is the default', withNode(waitUntil({ branches: [eventBranch(), timeoutBranch({ is_default: false })] })), `${B1}.is_default: must be true for the branch that waits on the delay condition`],
    ['the delay branch is the default, also when is_default is absent', withNode(waitUntil({ branches: [eventBranch(), timeoutBranch({ is_default: undefined })] })), `${B1}.is_default: must be true for the branch that waits on the delay condition`],
    ['only the delay branch is the default', withNode(waitUntil({ branches: [eventBranch({ is_default: true }), timeoutBranch()] })), `${B0}.is_default: must be false: only the branch that waits on the delay condition is the default`],
    ['one branch waits on a delay', withNode(waitUntil({ branches: [eventBranch(), timeoutBranch({ is_default: false, conditions: [futureEvent()] })] })), `${N}.branches: exactly one branch must wait on a delay condition, found 0`],
    ['only one branch waits on a delay', withNode(waitUntil({ branches: [eventBranch({ conditions: [delayCondition()] }), timeoutBranch()] })), [`${B0}.is_default: must be true for the branch that waits on the delay condition`, `${N}.branches: exactly one branch must wait on a delay condition, found 2`]],
    ['condition type is required', withEvent({ type: undefined }), `${C0}.type: is required`],
    ['condition type enum', withEvent({ type: 'expression_v1' }), `${C0}.type: must be one of future_event, delay`],
    ['future_event needs event_name', withEvent({ event_name: undefined }), `${C0}.event_name: is required`],
    ['event_name must not be blank', withEvent({ event_name: '' }), `${C0}.event_name: must not be empty`],
    ['event_name at most 255 characters', withEvent({ event_name: 'e'.repeat(256) }), `${C0}.event_name: must be at most 255 characters`],
    ['event_conditions must be an array', withEvent({ event_conditions: {} }), `${C0}.event_conditions: must be an array`],
    ['event_conditions variable_ns enum', withEventCondition({ variable_ns: '$brand' }), `${C0}.event_conditions[0].variable_ns: must be one of "", $tenant, $actor, $recipient, $future_event`],
    ['event_conditions variable is required', withEventCondition({ variable: undefined }), `${C0}.event_conditions[0].variable: is required`],
    ['event_conditions op is required', withEventCondition({ op: undefined }), `${C0}.event_conditions[0].op: is required`],
    ['event_conditions op enum', withEventCondition({ op: 'LIKE' }), `${C0}.event_conditions[0].op: ${OPS}`],
    ['event_conditions value is a string', withEventCondition({ value: true }), `${C0}.event_conditions[0].value: must be a string`],
    ['a delay condition needs delay_properties', withTimeout(undefined), `${C1}.delay_properties: is required`],
    ['delay_properties is an object', withTimeout('2d'), `${C1}.delay_properties: must be an object`],
    ['delay_properties.delay_type is required', withTimeout({ value: '2d' }), `${C1}.delay_properties.delay_type: is required`],
    ['delay_properties.delay_type enum', withTimeout({ delay_type: 'static', value: '2d' }), `${C1}.delay_properties.delay_type: must be one of fixed, dynamic, relative_to`],
    ['a fixed delay needs value', withTimeout({ delay_type: 'fixed' }), `${C1}.delay_properties.value: is required`],
    ['a fixed delay value is a duration', withTimeout({ delay_type: 'fixed', value: '2 days' }), `${C1}.delay_properties.value: must be a duration like 1d2h30m10s`],
    ['a dynamic delay needs value', withTimeout({ delay_type: 'dynamic' }), `${C1}.delay_properties.value: is required`],
    ['a dynamic delay value is jq', withTimeout({ delay_type: 'dynamic', value: '.t(((' }), `${C1}.delay_properties.value: ${JQ}`],
    ['a relative delay needs relative_to', withTimeout({ delay_type: 'relative_to' }), `${C1}.delay_properties.relative_to: is required`],
    ['a relative delay checks relative_to', withTimeout({ delay_type: 'relative_to', relative_to: relativeTo({ offset_value_type: 'dynamic', offset_value: '(((' }) }), `${C1}.delay_properties.relative_to.offset_value: ${JQ}`],
  ];
  it.each(cases)('%s', (_rule, input, expected) => expectErrors(input, expected));

  it.each(['', '$tenant', '$actor', '$recipient', '$future_event'])('accepts event_conditions variable_ns %j', (variable_ns) =>
    expectValid(withEventCondition({ variable_ns })),
  );

  it('accepts a future event without event_conditions', () => expectValid(withEvent({ event_conditions: undefined })));
});
