import { ExpressionArg, WorkflowNode } from '../definition';
import { context, last, ofType, sendEmail, startEvents, types, user, workflow } from './testing/run-builders';

const condition = (op: 'AND' | 'OR', ...args: ExpressionArg[]) => ({ type: 'expression_v1' as const, expression_v1: { op, args } });

const branchNode = (...conditionsPerBranch: ReturnType<typeof condition>[][]): WorkflowNode => ({
  node_type: 'branch',
  name: 'Route',
  branches: [
    ...conditionsPerBranch.map((conditions, index) => ({ name: `b${index}`, conditions, nodes: [sendEmail({ name: `Email ${index}` })] })),
    { name: 'fallback', is_default: true, nodes: [sendEmail({ name: 'Email default' })] },
  ],
});

const taken = (node: WorkflowNode, over = {}) => ofType(startEvents(workflow([node]), over), 'branch.taken.v1')[0];

describe('branch node', () => {
  describe('reads every namespace', () => {
    const over = {
      data: { plan: 'gold', nested: { level: 3 }, 'a.b': 'dotted key' },
      actor: user({ distinct_id: 'admin-7', properties: { role: 'admin' } }),
      tenant_id: 'acme',
      context: context({ tenant: { tenant_id: 'acme', properties: { tier: 'enterprise' } } }),
    };
    it.each([
      ['', 'plan', 'gold'],
      ['', 'nested.level', '3'],
      ['', 'a.b', 'dotted key'],
      ['$recipient', 'name', 'Ada'],
      ['$recipient', 'plan', 'pro'],
      ['$recipient', 'distinct_id', 'u1'],
      ['$recipient', '$locale', 'en'],
      ['$actor', 'role', 'admin'],
      ['$actor', 'distinct_id', 'admin-7'],
      ['$tenant', 'tier', 'enterprise'],
      ['$brand', 'tenant_id', 'acme'],
      ['$workflow', 'slug', 'welcome'],
    ] as const)('given variable_ns %j and variable %s equal to %j, then the first branch is taken', (variable_ns, variable, value) => {
      const node = branchNode([condition('AND', { variable_ns, variable, op: '==', value })]);
      expect(taken(node, over)).toMatchObject({ branch_index: 0, is_default: false });
    });

    it('given the $future_event namespace outside a wait-until, then it reads as missing', () => {
      const node = branchNode([condition('AND', { variable_ns: '$future_event', variable: 'x', op: 'EMPTY' })]);
      expect(taken(node, over)).toMatchObject({ branch_index: 0 });
    });
  });

  it('given several matching branches, then the first one runs, then the run continues after the branch node', () => {
    const node = branchNode(
      [condition('AND', { variable: 'order.total', op: '>', value: '100' })],
      [condition('AND', { variable: 'order.total', op: '>', value: '10' })],
      [condition('AND', { variable: 'order.total', op: '>', value: '1' })],
    );
    const events = startEvents(workflow([node, sendEmail({ name: 'After' })]));
    expect(ofType(events, 'branch.taken.v1')[0]).toEqual({
      type: 'branch.taken.v1',
      path: [0],
      branch_index: 1,
      branch_name: 'b1',
      is_default: false,
      evaluations: [
        { variable_ns: '', variable: 'order.total', op: '>', left: 42, right: '100', result: false },
        { variable_ns: '', variable: 'order.total', op: '>', left: 42, right: '10', result: true },
      ],
    });
    expect(ofType(events, 'node.entered.v1').map((event) => event.node.label)).toEqual(['nodes[0]', 'nodes[0].branches[1].nodes[0]', 'nodes[1]']);
    expect(ofType(events, 'delivery.requested.v1').map((event) => event.delivery.delivery_id)).toEqual(['run-1:delivery:0.1.0:email', 'run-1:delivery:1:email']);
    expect(last(events).type).toBe('run.completed.v1');
  });

  it('given no branch matches, then the default branch runs', () => {
    const node = branchNode([condition('AND', { variable: 'plan', op: '==', value: 'gold' })]);
    expect(taken(node)).toMatchObject({ branch_index: 1, branch_name: 'fallback', is_default: true });
  });

  it.each([
    ['AND of two true', condition('AND', { variable: 'a', op: '==', value: '1' }, { variable: 'b', op: '==', value: '2' }), true],
    ['AND with one false', condition('AND', { variable: 'a', op: '==', value: '1' }, { variable: 'b', op: '==', value: '3' }), false],
    ['OR with one true', condition('OR', { variable: 'a', op: '==', value: '9' }, { variable: 'b', op: '==', value: '2' }), true],
    ['OR of two false', condition('OR', { variable: 'a', op: '==', value: '9' }, { variable: 'b', op: '==', value: '9' }), false],
    [
      'AND holding a nested OR',
      condition('AND', { variable: 'a', op: '==', value: '1' }, { op: 'OR', args: [{ variable: 'b', op: '==', value: '9' }, { variable: 'c', op: 'NON_EMPTY' }] }),
      true,
    ],
    [
      'OR holding a nested AND that fails',
      condition('OR', { variable: 'a', op: '==', value: '9' }, { op: 'AND', args: [{ variable: 'b', op: '==', value: '2' }, { variable: 'c', op: 'EMPTY' }] }),
      false,
    ],
  ])('given %s, then the branch matches: %s', (_label, expression, matches) => {
    expect(taken(branchNode([expression]), { data: { a: 1, b: 2, c: 'x' } }).branch_index).toBe(matches ? 0 : 1);
  });

  it('given a branch with two conditions, then either one is enough', () => {
    const node = branchNode([condition('AND', { variable: 'a', op: '==', value: '9' }), condition('AND', { variable: 'a', op: '==', value: '1' })]);
    expect(taken(node, { data: { a: 1 } }).branch_index).toBe(0);
  });

  it('given a value written as Jsonnet, then it is evaluated against the data', () => {
    const node = branchNode([condition('AND', { variable: 'owner', op: '==', value: 'data["$recipient"].distinct_id' })]);
    expect(taken(node, { data: { owner: 'u1' } })).toMatchObject({ branch_index: 0, evaluations: [{ left: 'u1', right: 'u1', result: true }] });
  });

  it('given a value whose Jsonnet fails, then the run fails naming the node', () => {
    const node = branchNode([condition('AND', { variable: 'owner', op: '==', value: 'error "bad"' })]);
    expect(last(startEvents(workflow([node])))).toMatchObject({
      type: 'run.failed.v1',
      reason: 'branch b0: the value of the condition on "owner": Jsonnet error: RUNTIME ERROR: bad',
      node: { label: 'nodes[0]', node_type: 'branch' },
    });
  });

  it('given nested branches, then paths and ids follow the nesting', () => {
    const inner = branchNode([condition('AND', { variable: 'a', op: '==', value: '1' })]);
    const outer: WorkflowNode = { node_type: 'branch', name: 'Outer', branches: [{ name: 'only', is_default: true, nodes: [inner] }, { name: 'x', conditions: [condition('AND', { variable: 'a', op: 'EMPTY' })], nodes: [sendEmail()] }] };
    const events = startEvents(workflow([outer]), { data: { a: 1 } });
    expect(ofType(events, 'node.entered.v1').map((event) => event.node.label)).toEqual(['nodes[0]', 'nodes[0].branches[0].nodes[0]', 'nodes[0].branches[0].nodes[0].branches[0].nodes[0]']);
    expect(types(events).slice(-2)).toEqual(['delivery.requested.v1', 'run.completed.v1']);
  });
});
