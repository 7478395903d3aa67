import { describe, expect, it } from '@jest/globals';
import { COLUMN_WIDTH, ROW_HEIGHT, branchLabel, digestSchedule, layoutWorkflow } from './workflow-graph-layout';
import { WorkflowNode } from './workflow-tree';

const pro = { type: 'expression_v1', expression_v1: { op: 'AND', args: [{ variable_ns: '', variable: 'plan', op: '==', value: 'pro' }] } };

/** Wait; a branch whose `pro` path posts to the inbox and whose default path mails twice; then a final SMS. */
const tree: WorkflowNode[] = [
  { name: 'Wait', node_type: 'delay', duration: '1h' },
  {
    name: 'Plan?',
    node_type: 'branch',
    branches: [
      { name: 'pro', conditions: [pro], nodes: [{ name: 'Inbox', node_type: 'send_inbox', template: 'order' }] },
      {
        name: 'otherwise',
        is_default: true,
        nodes: [
          { name: 'Mail', node_type: 'send_email', template: 'order' },
          { name: 'Again', node_type: 'send_email', template: 'reminder' },
        ],
      },
    ],
  },
  { name: 'Text', node_type: 'send_sms', template: 'order' },
];

const at = (column: number, row: number) => ({ x: column * COLUMN_WIDTH, y: row * ROW_HEIGHT });

describe('layoutWorkflow', () => {
  it("places nodes top to bottom, a branch's paths side by side under it, and the next node below its longest path", () => {
    const { nodes } = layoutWorkflow(tree);
    expect(nodes.map((node) => [node.id, node.position])).toEqual([
      ['tree.nodes[0]', at(0.5, 0)],
      ['tree.nodes[1]', at(0.5, 1)],
      ['tree.nodes[1].branches[0].nodes[0]', at(0, 2)],
      ['tree.nodes[1].branches[1].nodes[0]', at(1, 2)],
      ['tree.nodes[1].branches[1].nodes[1]', at(1, 3)],
      ['tree.nodes[2]', at(0.5, 4)],
    ]);
    expect(nodes.find((node) => node.node.name === 'Again')?.path).toEqual([1, 1, 1]);
  });

  it("starts each path with an edge labelled with the branch, and joins every path's end to the node after the branch", () => {
    const { edges } = layoutWorkflow(tree);
    expect(edges.map((edge) => [edge.source, edge.target, edge.label])).toEqual([
      ['tree.nodes[0]', 'tree.nodes[1]', undefined],
      ['tree.nodes[1]', 'tree.nodes[1].branches[0].nodes[0]', 'pro plan == "pro"'],
      ['tree.nodes[1]', 'tree.nodes[1].branches[1].nodes[0]', 'otherwise (default)'],
      ['tree.nodes[1].branches[1].nodes[0]', 'tree.nodes[1].branches[1].nodes[1]', undefined],
      ['tree.nodes[1].branches[0].nodes[0]', 'tree.nodes[2]', undefined],
      ['tree.nodes[1].branches[1].nodes[1]', 'tree.nodes[2]', undefined],
    ]);
    expect(new Set(edges.map((edge) => edge.id)).size).toBe(edges.length);
  });

  it('draws an empty path as a labelled edge straight to the next node, and nested branches as wide as their paths', () => {
    const nested: WorkflowNode[] = [
      {
        name: 'Outer',
        node_type: 'branch',
        branches: [
          { name: 'skip', nodes: [] },
          {
            name: 'deep',
            nodes: [
              {
                name: 'Inner',
                node_type: 'branch',
                branches: [
                  { name: 'a', nodes: [{ name: 'A', node_type: 'send_email' }] },
                  { name: 'b', nodes: [{ name: 'B', node_type: 'send_sms' }] },
                ],
              },
            ],
          },
        ],
      },
      { name: 'End', node_type: 'send_inbox' },
    ];
    const { nodes, edges } = layoutWorkflow(nested);
    // Outer spans 3 columns (1 for the empty path, 2 for the inner branch's paths).
    expect(nodes.map((node) => [node.node.name, node.position])).toEqual([
      ['Outer', at(1, 0)],
      ['Inner', at(1.5, 1)],
      ['A', at(1, 2)],
      ['B', at(2, 2)],
      ['End', at(1, 3)],
    ]);
    expect(edges.filter((edge) => edge.target === 'tree.nodes[1]').map((edge) => [edge.source, edge.label])).toEqual([
      ['tree.nodes[0]', 'skip'],
      ['tree.nodes[0].branches[1].nodes[0].branches[0].nodes[0]', undefined],
      ['tree.nodes[0].branches[1].nodes[0].branches[1].nodes[0]', undefined],
    ]);
  });

  it('draws nothing for an empty tree', () => {
    expect(layoutWorkflow([])).toEqual({ nodes: [], edges: [] });
  });
});

describe('branchLabel and digestSchedule', () => {
  it("names a branch by its name, default flag and conditions, or by its position when it has no name", () => {
    expect(branchLabel({ name: 'pro', conditions: [pro] }, 0)).toBe('pro plan == "pro"');
    expect(branchLabel({ is_default: true }, 2)).toBe('branch 2 (default)');
  });

  it("says when a digest sends", () => {
    expect(digestSchedule({ node_type: 'digest', schedule: { frequency: 'weekly', interval: 2, weekdays: ['mo', 'fr'], time: '09:00', tz_selection: 'recipient' } })).toBe(
      "every 2 weeks on mo, fr at 09:00 (recipient's time zone)",
    );
    expect(digestSchedule({ node_type: 'digest', schedule_type: 'dynamic', dynamic_schedule_expr: '.schedule' })).toBe('schedule from .schedule');
    expect(digestSchedule({ node_type: 'digest' })).toBe('no schedule');
  });
});
