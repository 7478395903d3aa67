/**
 * Where each node of a workflow's tree goes in its graph, and the edges between them:
 * pure, so the layout is tested without a browser. Nodes run top to bottom; a branch's
 * paths sit side by side under it, each as wide as its widest step, and the node after
 * the branch is joined from the end of every path (an empty path is an edge straight to
 * it, labelled with the branch). React Flow (workflow-graph.tsx) draws the result.
 */
import { NodePath, WorkflowNode, apiPathOf } from './workflow-tree';

/** One column's width and one row's height, in pixels: a node card and the gap after it. */
export const COLUMN_WIDTH = 250;
export const ROW_HEIGHT = 120;

export interface GraphNode {
  /** The management API's path of the node (`tree.nodes[1].branches[0].nodes[0]`): unique, and what errors name. */
  readonly id: string;
  readonly path: NodePath;
  readonly node: WorkflowNode;
  readonly position: { readonly x: number; readonly y: number };
}

export interface GraphEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  /** A branch's name and conditions, on the edge that starts its path. */
  readonly label?: string;
}

export interface WorkflowGraph {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

/** An edge waiting for the next node of its path: from `source`, with the branch label it starts, if any. */
interface OpenEnd {
  readonly source: string;
  readonly label?: string;
}

const branchesOf = (node: WorkflowNode) => node.branches ?? [];

/** Columns a list of nodes needs: its widest step (a branch needs the sum of its paths). */
function widthOf(nodes: readonly WorkflowNode[]): number {
  return Math.max(1, ...nodes.map((node) => (node.branches ? branchesOf(node).reduce((sum, branch) => sum + widthOf(branch.nodes ?? []), 0) || 1 : 1)));
}

/** Rows a list of nodes needs: one per node, plus a branch's longest path. */
function heightOf(nodes: readonly WorkflowNode[]): number {
  return nodes.reduce((sum, node) => sum + 1 + Math.max(0, ...branchesOf(node).map((branch) => heightOf(branch.nodes ?? []))), 0);
}

/** The label of the edge that starts a branch's path: its name, `(default)`, and its conditions in short. */
export function branchLabel(branch: { name?: string; is_default?: boolean; conditions?: readonly unknown[] }, index: number): string {
  const condition = conditionText(branch.conditions);
  return [branch.name ?? `branch ${index}`, branch.is_default ? '(default)' : '', condition].filter(Boolean).join(' ');
}

export function layoutWorkflow(nodes: readonly WorkflowNode[]): WorkflowGraph {
  const placed: GraphNode[] = [];
  const edges: GraphEdge[] = [];

  /** Places a list in `width` columns from column `left` and row `top`; returns the ends the next node joins. */
  function place(list: readonly WorkflowNode[], listPath: NodePath, left: number, width: number, top: number, incoming: readonly OpenEnd[]): readonly OpenEnd[] {
    let row = top;
    let ends = incoming;
    list.forEach((node, index) => {
      const path = [...listPath, index];
      const id = apiPathOf(path);
      placed.push({ id, path, node, position: { x: (left + (width - 1) / 2) * COLUMN_WIDTH, y: row * ROW_HEIGHT } });
      for (const end of ends) edges.push({ id: `${end.source}->${id}`, source: end.source, target: id, ...(end.label ? { label: end.label } : {}) });
      row += 1;
      if (!node.branches) {
        ends = [{ source: id }];
        return;
      }
      const branches = branchesOf(node);
      const total = branches.reduce((sum, branch) => sum + widthOf(branch.nodes ?? []), 0);
      let column = left + (width - total) / 2;
      const joined: OpenEnd[] = [];
      branches.forEach((branch, branchIndex) => {
        const branchWidth = widthOf(branch.nodes ?? []);
        joined.push(...place(branch.nodes ?? [], [...path, branchIndex], column, branchWidth, row, [{ source: id, label: branchLabel(branch, branchIndex) }]));
        column += branchWidth;
      });
      row += Math.max(0, ...branches.map((branch) => heightOf(branch.nodes ?? [])));
      // A branch with no paths still leads on to the next node.
      ends = joined.length > 0 ? joined : [{ source: id }];
    });
    return ends;
  }

  place(nodes, [], 0, widthOf(nodes), 0, []);
  return { nodes: placed, edges };
}

interface Condition {
  readonly op?: string;
  readonly args?: Condition[];
  readonly variable_ns?: string;
  readonly variable?: string;
  readonly value?: unknown;
}

/** A branch's conditions in short (`plan == "pro"`); jq and other kinds by their type. */
export function conditionText(conditions: readonly unknown[] | undefined): string {
  const expression = (c: Condition): string =>
    c.args ? c.args.map(expression).join(` ${c.op ?? 'AND'} `) : `${c.variable_ns ? `${c.variable_ns}.` : ''}${c.variable ?? '?'} ${c.op ?? ''} ${JSON.stringify(c.value ?? '')}`;
  return (conditions ?? [])
    .map((condition) => {
      const { type, expression_v1 } = condition as { type?: string; expression_v1?: Condition };
      return expression_v1 ? expression(expression_v1) : (type ?? 'condition');
    })
    .join(' OR ');
}

interface DigestScheduleFields {
  readonly frequency?: string;
  readonly interval?: number;
  readonly weekdays?: readonly string[];
  readonly monthdays?: ReadonlyArray<{ pos: number; day?: string }>;
  readonly time?: string;
  readonly tz_selection?: string;
  readonly tz_fixed?: string;
}

const FREQUENCY_UNITS: Record<string, string> = { minutely: 'minute', hourly: 'hour', daily: 'day', weekly: 'week', monthly: 'month' };

/** When a digest sends, in words: its static schedule, the jq that computes it, or the category's schedule. */
export function digestSchedule(node: WorkflowNode): string {
  if (node.schedule_type === 'dynamic') return `schedule from ${typeof node.dynamic_schedule_expr === 'string' ? node.dynamic_schedule_expr : 'the data'}`;
  if (node.schedule_type === 'category_digest_schedule') return "on the category's digest schedule";
  const schedule = node.schedule as DigestScheduleFields | undefined;
  if (!schedule?.frequency) return 'no schedule';
  const unit = FREQUENCY_UNITS[schedule.frequency];
  const interval = schedule.interval ?? 1;
  const every = unit ? `every ${interval === 1 ? unit : `${interval} ${unit}s`}` : schedule.frequency;
  const days = schedule.frequency === 'weekly' && schedule.weekdays?.length ? ` on ${schedule.weekdays.join(', ')}` : '';
  const monthdays =
    schedule.frequency === 'monthly' && schedule.monthdays?.length ? ` on day ${schedule.monthdays.map((d) => `${d.pos}${d.day ? ` ${d.day}` : ''}`).join(', ')}` : '';
  const time = schedule.time ? ` at ${schedule.time}` : '';
  const zone = schedule.tz_selection === 'recipient' ? " (recipient's time zone)" : schedule.tz_fixed ? ` ${schedule.tz_fixed}` : '';
  return `${every}${days}${monthdays}${time}${zone}`;
}
