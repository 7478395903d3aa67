import { Recipient, recipientKey } from '@herald/contracts';
import { AccumulationPlace, LiveRun, pathKey } from '@herald/workflow';

/**
 * A run's stream id names its workspace, so whatever the engine does for a run (a
 * timer, an HTTP request, a delivery command) can be keyed and enveloped from the
 * stream alone: `run:<workspace_id>:<run_id>`.
 */
export function runStreamId(workspaceId: string, runId: string): string {
  return `run:${workspaceId}:${runId}`;
}

export function parseRunStreamId(streamId: string): { readonly workspaceId: string; readonly runId: string } {
  const match = /^run:([^:]+):(.+)$/.exec(streamId);
  if (!match) throw new Error(`not a run stream id: ${streamId}`);
  return { workspaceId: match[1], runId: match[2] };
}

/** The partition key of everything about the run's recipient (so its inputs come back to the same consumer). */
export function runKey(workspaceId: string, recipient: Recipient, runId: string): string {
  return recipientKey(workspaceId, recipient, runId);
}

/**
 * The accumulator stream of a batch (per batch key) or digest: one per workflow
 * version, node and recipient, so all runs that may share a batch meet on it:
 * `batch:<workspace>:<workflow>:<version>:<node path>:<recipient key>:<batch key>`.
 */
export function accumulatorStreamId(workspaceId: string, run: LiveRun, waiting: AccumulationPlace): string {
  const { workflow, recipient, run_id: runId } = run.started;
  const node = `${workflow.slug}:${workflow.version}:${pathKey(waiting.path)}:${runKey(workspaceId, recipient, runId)}`;
  return waiting.request.node_type === 'batch' ? `batch:${workspaceId}:${node}:${waiting.request.key}` : `digest:${workspaceId}:${node}`;
}
