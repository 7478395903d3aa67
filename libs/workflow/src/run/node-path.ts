import { Channel } from '@herald/contracts';
import { WorkflowNode, WorkflowTree } from '../definition';

/**
 * A node's place in the tree: `[i]` is the i-th top-level node, `[i, b, j]` the j-th
 * node of branch b of the branch node at i, and so on. A tree has no loops, so a run
 * enters each path at most once, and ids derived from (run, path) are unique in a run.
 */
export type NodePath = readonly number[];

export function nodeAt(tree: WorkflowTree, path: NodePath): WorkflowNode | undefined {
  let nodes: readonly WorkflowNode[] = tree.nodes;
  let node: WorkflowNode | undefined;
  for (let i = 0; i < path.length; i += 2) {
    node = nodes[path[i]];
    if (node === undefined) return undefined;
    if (i + 1 === path.length) return node;
    const branches = 'branches' in node ? node.branches : undefined;
    const branch = branches?.[path[i + 1]];
    if (branch === undefined) return undefined;
    nodes = branch.nodes;
  }
  return undefined;
}

export const FIRST_NODE: NodePath = [0];

/** The node after `path` once it is done: the next sibling, else the next after the enclosing branch node; undefined at the end. */
export function nextAfter(tree: WorkflowTree, path: NodePath): NodePath | undefined {
  if (path.length === 0) return undefined;
  const sibling = [...path.slice(0, -1), path[path.length - 1] + 1];
  if (nodeAt(tree, sibling) !== undefined) return sibling;
  return path.length >= 3 ? nextAfter(tree, path.slice(0, -2)) : undefined;
}

/** The first node of branch `branch` of the branch node at `path`, or what follows the branch node when the branch is empty. */
export function intoBranch(tree: WorkflowTree, path: NodePath, branch: number): NodePath | undefined {
  const first = [...path, branch, 0];
  return nodeAt(tree, first) !== undefined ? first : nextAfter(tree, path);
}

/** `nodes[2].branches[1].nodes[0]`: how logs and failures name a node. */
export function pathLabel(path: NodePath): string {
  return path.map((index, i) => (i % 2 === 0 ? `nodes[${index}]` : `branches[${index}]`)).join('.');
}

/** `2.1.0`: a path inside ids. */
export const pathKey = (path: NodePath): string => path.join('.');

export const timerId = (runId: string, path: NodePath): string => `${runId}:timer:${pathKey(path)}`;
/** The one timer a run may schedule outside a node: a fresh context after its tenant changed. */
export const contextReloadTimerId = (runId: string): string => `${runId}:timer:context`;
export const httpRequestId = (runId: string, path: NodePath): string => `${runId}:http:${pathKey(path)}`;
export const deliveryId = (runId: string, path: NodePath, channel: Channel): string => `${runId}:delivery:${pathKey(path)}:${channel}`;
