/**
 * The workflow editor's pure part: where a node sits in the tree, edits of the tree that
 * return a new document (nothing is mutated, so React sees every change), each node
 * type's fields, and the management API's validation errors (`tree.nodes[1].branches[0].
 * nodes[0].template: no template ...`) mapped back to the node they belong to. The node
 * types and their fields are those of Herald's workflow definition (docs/reference.md,
 * "Node types"); the console imports no Herald library, so they are listed here.
 */

export type JsonObject = Record<string, unknown>;

export interface WorkflowNode extends JsonObject {
  readonly node_type: string;
  readonly name?: string;
  readonly branches?: readonly Branch[];
}

export interface Branch extends JsonObject {
  readonly name?: string;
  readonly is_default?: boolean;
  readonly conditions?: readonly unknown[];
  readonly nodes?: readonly WorkflowNode[];
}

/** The writable fields of a workflow (what POST /v1/{ws}/workflow/{slug}/ takes). */
export interface WorkflowDocument extends JsonObject {
  readonly tree?: { readonly nodes?: readonly WorkflowNode[] };
}

/**
 * A node's place: node indices at even positions, branch indices between them. `[2]` is
 * `tree.nodes[2]`; `[2, 1, 0]` is `tree.nodes[2].branches[1].nodes[0]`.
 */
export type NodePath = readonly number[];

/** A node list's place: `[]` is `tree.nodes`; `[2, 1]` is `tree.nodes[2].branches[1].nodes`. */
export type ListPath = readonly number[];

/** The path the management API names a node by: `tree.nodes[2].branches[1].nodes[0]`. */
export function apiPathOf(path: NodePath): string {
  let text = 'tree';
  path.forEach((index, position) => {
    text += position % 2 === 0 ? `.nodes[${index}]` : `.branches[${index}]`;
  });
  return text;
}

const NODE_STEP = /^\.nodes\[(\d+)\]/;
const BRANCH_STEP = /^\.branches\[(\d+)\]/;

/**
 * The node an error's field path belongs to (the deepest node it names) and the rest
 * of the path, relative to that node (`template`, `branches[1].conditions`); undefined
 * for an error of the workflow itself (`category`, `tree.nodes` as a whole).
 */
export function nodeOfErrorPath(fieldPath: string): { path: NodePath; field: string } | undefined {
  if (!fieldPath.startsWith('tree.nodes[')) return undefined;
  let rest = fieldPath.slice('tree'.length);
  const path: number[] = [];
  for (;;) {
    const node = NODE_STEP.exec(rest);
    if (!node) break;
    const afterNode = rest.slice(node[0].length);
    const branch = BRANCH_STEP.exec(afterNode);
    const deeper = branch && NODE_STEP.exec(afterNode.slice(branch[0].length));
    path.push(Number(node[1]));
    if (!branch || !deeper) {
      rest = afterNode;
      break;
    }
    path.push(Number(branch[1]));
    rest = afterNode.slice(branch[0].length);
  }
  if (path.length === 0) return undefined;
  return { path, field: rest.replace(/^\./, '') };
}

export interface NodeError {
  /** Relative to the node: `duration`, `branches[0].conditions`; '' for the node as a whole. */
  readonly field: string;
  readonly message: string;
}

/** Validation errors (`path: message`) by the node they belong to (keyed by apiPathOf), and those of the workflow itself. */
export function errorsByNode(errors: readonly string[]): { byNode: Map<string, NodeError[]>; workflow: string[] } {
  const byNode = new Map<string, NodeError[]>();
  const workflow: string[] = [];
  for (const error of errors) {
    const at = error.indexOf(': ');
    const [fieldPath, message] = at < 0 ? ['', error] : [error.slice(0, at), error.slice(at + 2)];
    const owner = nodeOfErrorPath(fieldPath);
    if (!owner) {
      workflow.push(error);
      continue;
    }
    const key = apiPathOf(owner.path);
    byNode.set(key, [...(byNode.get(key) ?? []), { field: owner.field, message }]);
  }
  return { byNode, workflow };
}

export function nodesOf(document: WorkflowDocument): readonly WorkflowNode[] {
  return Array.isArray(document.tree?.nodes) ? document.tree.nodes : [];
}

/** The node list at `list`, or undefined when the path leads nowhere. */
export function listAt(nodes: readonly WorkflowNode[], list: ListPath): readonly WorkflowNode[] | undefined {
  let current: readonly WorkflowNode[] | undefined = nodes;
  for (let position = 0; position < list.length; position += 2) {
    const branch: Branch | undefined = current?.[list[position]]?.branches?.[list[position + 1]];
    current = branch ? (Array.isArray(branch.nodes) ? branch.nodes : []) : undefined;
  }
  return current;
}

export function nodeAt(nodes: readonly WorkflowNode[], path: NodePath): WorkflowNode | undefined {
  return path.length === 0 ? undefined : listAt(nodes, path.slice(0, -1))?.[path[path.length - 1]];
}

/** A copy of the tree with the node list at `list` replaced by what `change` makes of it. */
function withList(nodes: readonly WorkflowNode[], list: ListPath, change: (nodes: WorkflowNode[]) => WorkflowNode[]): WorkflowNode[] {
  if (list.length === 0) return change([...nodes]);
  const [nodeIndex, branchIndex, ...deeper] = list;
  return nodes.map((node, index) => {
    if (index !== nodeIndex) return node;
    const branches = (node.branches ?? []).map((branch, b) => (b === branchIndex ? { ...branch, nodes: withList(branch.nodes ?? [], deeper, change) } : branch));
    return { ...node, branches };
  });
}

function withNodes(document: WorkflowDocument, nodes: WorkflowNode[]): WorkflowDocument {
  return { ...document, tree: { ...(document.tree ?? {}), nodes } };
}

/** Inserts `node` into the list at `list`, at `index` (the end when absent). */
export function insertNode(document: WorkflowDocument, list: ListPath, node: WorkflowNode, index?: number): WorkflowDocument {
  return withNodes(
    document,
    withList(nodesOf(document), list, (nodes) => {
      nodes.splice(index ?? nodes.length, 0, node);
      return nodes;
    }),
  );
}

export function removeNode(document: WorkflowDocument, path: NodePath): WorkflowDocument {
  const index = path[path.length - 1];
  return withNodes(
    document,
    withList(nodesOf(document), path.slice(0, -1), (nodes) => nodes.filter((_, i) => i !== index)),
  );
}

/** Moves a node up (-1) or down (+1) within its list; at either end it stays. */
export function moveNode(document: WorkflowDocument, path: NodePath, delta: -1 | 1): WorkflowDocument {
  const index = path[path.length - 1];
  return withNodes(
    document,
    withList(nodesOf(document), path.slice(0, -1), (nodes) => {
      const target = index + delta;
      if (target < 0 || target >= nodes.length) return nodes;
      [nodes[index], nodes[target]] = [nodes[target], nodes[index]];
      return nodes;
    }),
  );
}

/** Sets (or, given undefined, removes) fields of the node at `path`. */
export function updateNode(document: WorkflowDocument, path: NodePath, fields: JsonObject): WorkflowDocument {
  const index = path[path.length - 1];
  return withNodes(
    document,
    withList(nodesOf(document), path.slice(0, -1), (nodes) =>
      nodes.map((node, i) => {
        if (i !== index) return node;
        const next: JsonObject = { ...node, ...fields };
        for (const [name, value] of Object.entries(fields)) if (value === undefined) delete next[name];
        return next as WorkflowNode;
      }),
    ),
  );
}

/** Adds a branch (not the default, with a condition to fill in) before the default one of a branch node. */
export function addBranch(document: WorkflowDocument, path: NodePath): WorkflowDocument {
  const node = nodeAt(nodesOf(document), path);
  const branches = [...(node?.branches ?? [])];
  const defaultAt = branches.findIndex((branch) => branch.is_default === true);
  branches.splice(defaultAt < 0 ? branches.length : defaultAt, 0, newConditionalBranch(`branch ${branches.length + 1}`));
  return updateNode(document, path, { branches });
}

export function removeBranch(document: WorkflowDocument, path: NodePath, branchIndex: number): WorkflowDocument {
  const node = nodeAt(nodesOf(document), path);
  return updateNode(document, path, { branches: (node?.branches ?? []).filter((_, b) => b !== branchIndex) });
}

export function updateBranch(document: WorkflowDocument, path: NodePath, branchIndex: number, fields: JsonObject): WorkflowDocument {
  const node = nodeAt(nodesOf(document), path);
  return updateNode(document, path, { branches: (node?.branches ?? []).map((branch, b) => (b === branchIndex ? { ...branch, ...fields } : branch)) });
}

/** A branch condition comparing one variable, as the reference writes it. */
export function comparisonCondition(variable: string, op: string, value: string, variableNs = ''): JsonObject {
  return { type: 'expression_v1', expression_v1: { op: 'AND', args: [{ variable_ns: variableNs, variable, op, value }] } };
}

function newConditionalBranch(name: string): Branch {
  return { name, is_default: false, conditions: [comparisonCondition('plan', '==', 'pro')], nodes: [] };
}

export const SEND_NODE_TYPES = [
  'send_email',
  'send_sms',
  'send_whatsapp',
  'send_inbox',
  'send_mobile_push',
  'send_webpush',
  'send_slack',
  'send_ms_teams',
  'send_multi_channel',
  'send_smart_channel_routing',
] as const;

export const NODE_TYPES = ['delay', 'branch', ...SEND_NODE_TYPES, 'batch', 'digest', 'branch_waituntil', 'httpapi_webhook', 'httpapi_fetch'] as const;

export const CHANNELS = ['email', 'sms', 'inbox', 'androidpush', 'iospush', 'slack', 'ms_teams', 'webpush', 'whatsapp'] as const;

/** A node of the type with what it needs to be valid, but for the template to name and the nodes of its branches. */
export function newNode(nodeType: string, template = ''): WorkflowNode {
  const name = nodeType.replace(/^send_/, '').replace(/_/g, ' ');
  switch (nodeType) {
    case 'delay':
      return { name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration: '0d0h5m0s' };
    case 'batch':
      return { name: 'Collect', node_type: 'batch', mode: 'accumulate_all', window_type: 'fixed', fixed_window: '0d0h10m0s', retain_count: 10 };
    case 'digest':
      return { name: 'Digest', node_type: 'digest', schedule_type: 'static', schedule: { frequency: 'daily', interval: 1, time: '09:00', tz_selection: 'recipient' }, retain_count: 10 };
    case 'branch':
      return { name: 'Branch', node_type: 'branch', branches: [newConditionalBranch('matches'), { name: 'otherwise', is_default: true, conditions: [], nodes: [] }] };
    case 'branch_waituntil':
      return {
        name: 'Wait until',
        node_type: 'branch_waituntil',
        branches: [
          { name: 'event', is_default: false, conditions: [{ type: 'future_event', event_name: '', event_conditions: [] }], nodes: [] },
          { name: 'timeout', is_default: true, conditions: [{ type: 'delay', delay_properties: { delay_type: 'fixed', value: '1d' } }], nodes: [] },
        ],
      };
    case 'httpapi_webhook':
      return { name: 'Webhook', node_type: 'httpapi_webhook', http_method: 'POST', url: 'https://example.com/hook', body: '{}' };
    case 'httpapi_fetch':
      return { name: 'Fetch', node_type: 'httpapi_fetch', http_method: 'GET', url: 'https://example.com/data', output_key: 'fetched' };
    case 'send_multi_channel':
    case 'send_smart_channel_routing':
      return { name: name.charAt(0).toUpperCase() + name.slice(1), node_type: nodeType, template, channels: ['email', 'inbox'] };
    default:
      return { name: name.charAt(0).toUpperCase() + name.slice(1), node_type: nodeType, template };
  }
}

export type FieldKind = 'text' | 'duration' | 'jq' | 'jsonnet' | 'select' | 'template' | 'channels' | 'integer' | 'boolean';

export interface FieldSpec {
  readonly name: string;
  readonly kind: FieldKind;
  readonly options?: readonly string[];
  readonly help?: string;
  /** Shown only when the node's other fields say so (a delay's duration for its delay_type). */
  readonly when?: (node: WorkflowNode) => boolean;
}

const is = (field: string, ...values: string[]) => (node: WorkflowNode) => values.includes(String(node[field]));

const TEMPLATE: FieldSpec = { name: 'template', kind: 'template', help: 'a template slug of the workspace' };

/** The form of each node type: its fields, and which of them are durations, jq or Jsonnet. */
export function fieldsOf(nodeType: string): readonly FieldSpec[] {
  const common: FieldSpec[] = [
    { name: 'name', kind: 'text' },
    { name: 'description', kind: 'text' },
  ];
  switch (nodeType) {
    case 'delay':
      return [
        ...common,
        { name: 'delay_type', kind: 'select', options: ['fixed', 'dynamic', 'relative_to'] },
        { name: 'duration', kind: 'duration', help: 'like 0d0h30m0s or 2d', when: is('delay_type', 'fixed') },
        { name: 'duration', kind: 'jq', help: 'jq over the data, e.g. .wait', when: is('delay_type', 'dynamic') },
      ];
    case 'batch':
      return [
        ...common,
        { name: 'mode', kind: 'select', options: ['accumulate_all', 'flush_leading_item'] },
        { name: 'window_type', kind: 'select', options: ['fixed', 'dynamic', 'relative_to'] },
        { name: 'fixed_window', kind: 'duration', when: is('window_type', 'fixed') },
        { name: 'dynamic_window_expr', kind: 'jq', when: is('window_type', 'dynamic') },
        { name: 'batch_key', kind: 'jq', help: 'jq: collects per key, e.g. .project' },
        { name: 'retain_count', kind: 'integer' },
        { name: 'retain_order', kind: 'select', options: ['', 'first', 'last'] },
      ];
    case 'digest':
      return [
        ...common,
        { name: 'schedule_type', kind: 'select', options: ['static', 'dynamic', 'category_digest_schedule'] },
        { name: 'dynamic_schedule_expr', kind: 'jq', when: is('schedule_type', 'dynamic') },
        { name: 'retain_count', kind: 'integer' },
        { name: 'retain_order', kind: 'select', options: ['', 'first', 'last'] },
        { name: 'trigger_min_count', kind: 'integer' },
      ];
    case 'httpapi_webhook':
      return [
        ...common,
        { name: 'http_method', kind: 'select', options: ['GET', 'PUT', 'POST', 'PATCH', 'DELETE'] },
        { name: 'url', kind: 'text', help: 'an http(s) URL, or Jsonnet' },
        { name: 'body', kind: 'jsonnet' },
        { name: 'output_key', kind: 'text' },
      ];
    case 'httpapi_fetch':
      return [...common, { name: 'url', kind: 'text', help: 'an http(s) URL, or Jsonnet' }, { name: 'output_key', kind: 'text' }];
    case 'branch':
    case 'branch_waituntil':
      return common;
    case 'send_multi_channel':
      return [...common, TEMPLATE, { name: 'channels', kind: 'channels' }, { name: 'channels_expr', kind: 'jq', help: 'jq: the channels, computed' }];
    case 'send_smart_channel_routing':
      return [
        ...common,
        TEMPLATE,
        { name: 'channels', kind: 'channels' },
        { name: 'channels_expr', kind: 'jq' },
        { name: 'mandatory_channels', kind: 'channels' },
        { name: 'success', kind: 'text', help: 'delivered, seen, interacted, or an event name' },
        { name: 'success_is_event', kind: 'boolean' },
        { name: 'ttl_value', kind: 'duration' },
      ];
    default:
      return [...common, TEMPLATE];
  }
}

/** A short summary of a node for the tree: its duration, template or channels. */
export function nodeSummary(node: WorkflowNode): string {
  const parts = [node.template, node.delay_type === 'dynamic' ? `jq ${String(node.duration ?? '')}` : node.duration, node.fixed_window, Array.isArray(node.channels) ? node.channels.join(', ') : undefined];
  return parts.filter((part) => typeof part === 'string' && part !== '').join(' · ');
}
