import { describe, expect, it } from '@jest/globals';
import {
  WorkflowDocument,
  addBranch,
  apiPathOf,
  errorsByNode,
  fieldsOf,
  insertNode,
  moveNode,
  newNode,
  nodeAt,
  nodeOfErrorPath,
  nodesOf,
  removeBranch,
  removeNode,
  updateBranch,
  updateNode,
} from './workflow-tree';

const names = (document: WorkflowDocument): unknown => nodesOf(document).map((node) => (node.branches ? [node.name, node.branches.map((b) => (b.nodes ?? []).map((n) => n.name))] : node.name));

/** Wait, then a branch whose first path mails and whose default path posts to the inbox. */
const sample = (): WorkflowDocument => ({
  name: 'Example',
  tree: {
    nodes: [
      { name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration: '1h' },
      {
        name: 'Plan?',
        node_type: 'branch',
        branches: [
          { name: 'pro', is_default: false, conditions: [], nodes: [{ name: 'Mail', node_type: 'send_email', template: 'welcome' }] },
          { name: 'others', is_default: true, conditions: [], nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'welcome' }] },
        ],
      },
    ],
  },
});

describe('node paths and validation errors', () => {
  it('names a node as the management API does', () => {
    expect(apiPathOf([1])).toBe('tree.nodes[1]');
    expect(apiPathOf([1, 0, 2])).toBe('tree.nodes[1].branches[0].nodes[2]');
  });

  it('maps an error path to the deepest node it names, and the field within it', () => {
    expect(nodeOfErrorPath('tree.nodes[0].duration')).toEqual({ path: [0], field: 'duration' });
    expect(nodeOfErrorPath('tree.nodes[1].branches[1].nodes[0].template')).toEqual({ path: [1, 1, 0], field: 'template' });
    expect(nodeOfErrorPath('tree.nodes[3].relative_to.pivot_expr')).toEqual({ path: [3], field: 'relative_to.pivot_expr' });
    // A branch's own fields belong to the branch node.
    expect(nodeOfErrorPath('tree.nodes[1].branches[0].conditions')).toEqual({ path: [1], field: 'branches[0].conditions' });
    expect(nodeOfErrorPath('tree.nodes[1].branches[0].nodes')).toEqual({ path: [1], field: 'branches[0].nodes' });
    expect(nodeOfErrorPath('tree.nodes[2]')).toEqual({ path: [2], field: '' });
    // The workflow's own fields and the node list as a whole belong to no node.
    expect(nodeOfErrorPath('tree.nodes')).toBeUndefined();
    expect(nodeOfErrorPath('category')).toBeUndefined();
    expect(nodeOfErrorPath('tree.nodesX[1]')).toBeUndefined();
  });

  it('groups validation messages by node, keeping those of the workflow apart', () => {
    const { byNode, workflow } = errorsByNode([
      'tree.nodes[0].duration: must be a duration like 1d2h30m10s',
      'tree.nodes[1].branches[0].nodes[0].template: no template with slug "nope"',
      'tree.nodes[1].branches[0].nodes[0].name: is required',
      'category: is required',
      'a workflow definition must be a JSON object',
    ]);
    expect(Object.fromEntries(byNode)).toEqual({
      'tree.nodes[0]': [{ field: 'duration', message: 'must be a duration like 1d2h30m10s' }],
      'tree.nodes[1].branches[0].nodes[0]': [
        { field: 'template', message: 'no template with slug "nope"' },
        { field: 'name', message: 'is required' },
      ],
    });
    expect(workflow).toEqual(['category: is required', 'a workflow definition must be a JSON object']);
  });
});

describe('tree edits', () => {
  it('adds a node at the end of the tree, of a branch, or at an index, leaving the original as it was', () => {
    const before = sample();
    const added = insertNode(before, [], newNode('send_sms', 'welcome'));
    expect(names(added)).toEqual(['Wait', ['Plan?', [['Mail'], ['Inbox']]], 'Sms']);
    expect(names(insertNode(before, [1, 1], { name: 'Later', node_type: 'delay' }, 0))).toEqual(['Wait', ['Plan?', [['Mail'], ['Later', 'Inbox']]]]);
    expect(names(before)).toEqual(['Wait', ['Plan?', [['Mail'], ['Inbox']]]]);
    expect(added.name).toBe('Example');
  });

  it('moves a node up or down within its list, and not past either end', () => {
    const moved = moveNode(sample(), [1], -1);
    expect(names(moved)).toEqual([['Plan?', [['Mail'], ['Inbox']]], 'Wait']);
    expect(names(moveNode(sample(), [0], -1))).toEqual(names(sample()));
    expect(names(moveNode(sample(), [1], 1))).toEqual(names(sample()));
    const nested = insertNode(sample(), [1, 0], { name: 'Mail 2', node_type: 'send_email' });
    expect(names(moveNode(nested, [1, 0, 1], -1))).toEqual(['Wait', ['Plan?', [['Mail 2', 'Mail'], ['Inbox']]]]);
  });

  it('deletes a node, nested ones included', () => {
    expect(names(removeNode(sample(), [0]))).toEqual([['Plan?', [['Mail'], ['Inbox']]]]);
    expect(names(removeNode(sample(), [1, 0, 0]))).toEqual(['Wait', ['Plan?', [[], ['Inbox']]]]);
  });

  it('sets and removes a node field', () => {
    const before = sample();
    const updated = updateNode(before, [1, 1, 0], { template: 'other', name: undefined });
    expect(nodeAt(nodesOf(updated), [1, 1, 0])).toEqual({ node_type: 'send_inbox', template: 'other' });
    expect(nodeAt(nodesOf(before), [1, 1, 0])).toEqual({ name: 'Inbox', node_type: 'send_inbox', template: 'welcome' });
    // Nodes off the edited path are shared, not copied.
    expect(nodesOf(updated)[0]).toBe(nodesOf(before)[0]);
  });

  it('adds a branch before the default one, renames and removes branches', () => {
    const added = addBranch(sample(), [1]);
    const branches = nodeAt(nodesOf(added), [1])?.branches ?? [];
    expect(branches.map((b) => [b.name, b.is_default])).toEqual([
      ['pro', false],
      ['branch 3', false],
      ['others', true],
    ]);
    expect(branches[1].conditions).toHaveLength(1);
    const renamed = updateBranch(added, [1], 1, { name: 'enterprise' });
    expect(nodeAt(nodesOf(renamed), [1])?.branches?.map((b) => b.name)).toEqual(['pro', 'enterprise', 'others']);
    expect(nodeAt(nodesOf(removeBranch(renamed, [1], 0)), [1])?.branches?.map((b) => b.name)).toEqual(['enterprise', 'others']);
  });

  it('makes new nodes of every type with their fields, and a form for each', () => {
    const branch = newNode('branch');
    expect(branch.branches?.filter((b) => b.is_default)).toHaveLength(1);
    expect(newNode('delay')).toMatchObject({ delay_type: 'fixed', duration: '0d0h5m0s' });
    expect(newNode('send_email', 'welcome')).toEqual({ name: 'Email', node_type: 'send_email', template: 'welcome' });
    const delayFields = fieldsOf('delay').filter((field) => field.when?.({ node_type: 'delay', delay_type: 'dynamic' }) ?? true);
    expect(delayFields.map((field) => [field.name, field.kind])).toEqual([
      ['name', 'text'],
      ['description', 'text'],
      ['delay_type', 'select'],
      ['duration', 'jq'],
    ]);
    expect(fieldsOf('send_sms').map((field) => field.name)).toContain('template');
  });
});
