import { Background, Controls, Handle, Node, NodeProps, Position, ReactFlow } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo } from 'react';
import { ROW_HEIGHT, digestSchedule, layoutWorkflow } from './workflow-graph-layout';
import { NodeError, NodePath, WorkflowNode, nodeSummary } from './workflow-tree';

type CardData = { node: WorkflowNode; problems: number; selected: boolean };
type Card = Node<CardData, 'workflowNode'>;

/** One node of the graph: its name, type and summary, a digest's schedule, and how many problems it has. */
function NodeCard({ data }: NodeProps<Card>) {
  const { node, problems, selected } = data;
  const summary = nodeSummary(node);
  return (
    <div className={`graph-node node-${node.node_type}${selected ? ' selected' : ''}${problems > 0 ? ' has-problems' : ''}`}>
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <strong>{node.name ?? node.node_type}</strong>
      <span className="muted">
        {node.node_type}
        {summary ? ` · ${summary}` : ''}
      </span>
      {node.node_type === 'digest' && <span className="graph-schedule">{digestSchedule(node)}</span>}
      {problems > 0 && <span className="graph-problems">{problems === 1 ? '1 problem' : `${problems} problems`}</span>}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

const NODE_TYPES = { workflowNode: NodeCard };

/**
 * A workflow's tree drawn with React Flow: top to bottom, a branch's paths side by side
 * with their names and conditions on the edges that start them. Read-only as a drawing
 * (the tree list and the forms edit); in the editor a click selects the node to edit, and
 * a node with validation errors says how many.
 */
export function WorkflowGraph(props: {
  nodes: readonly WorkflowNode[];
  label: string;
  errors?: ReadonlyMap<string, readonly NodeError[]>;
  selected?: NodePath;
  onSelect?: (path: NodePath) => void;
}) {
  const { nodes, label, errors, selected, onSelect } = props;
  const layout = useMemo(() => layoutWorkflow(nodes), [nodes]);
  const selectedId = selected && layout.nodes.find((node) => node.path.length === selected.length && node.path.every((index, i) => index === selected[i]))?.id;
  const cards: Card[] = layout.nodes.map((placed) => ({
    id: placed.id,
    type: 'workflowNode',
    position: placed.position,
    data: { node: placed.node, problems: errors?.get(placed.id)?.length ?? 0, selected: placed.id === selectedId },
    draggable: false,
    connectable: false,
  }));
  const edges = layout.edges.map((edge) => ({ ...edge, type: 'smoothstep', className: edge.label ? 'branch-edge' : undefined }));
  if (nodes.length === 0) return <div className="graph-empty muted">(no nodes)</div>;
  const rows = Math.max(...layout.nodes.map((node) => node.position.y)) / ROW_HEIGHT + 1;
  return (
    <div className="workflow-graph" role="figure" aria-label={label} style={{ height: Math.min(640, Math.max(220, rows * ROW_HEIGHT + 40)) }}>
      <ReactFlow
        // Drawn anew when the tree's shape changes, so the whole of it is fitted in view again.
        key={layout.nodes.map((node) => node.id).join(' ')}
        nodes={cards}
        edges={edges}
        nodeTypes={NODE_TYPES}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        minZoom={0.25}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={Boolean(onSelect)}
        onNodeClick={(_, card) => {
          const placed = layout.nodes.find((node) => node.id === card.id);
          if (placed && onSelect) onSelect(placed.path);
        }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
