import { BroadcastAccepted } from '@herald/contracts';
import { WorkflowDefinition, WorkflowNode } from './definition';
import { timingNodes } from './dynamic-workflow';

/**
 * The workflow a broadcast runs for each member of its list (reference `trigger-broadcast`):
 * wait for `delay` or until `trigger_at` when given, then send the template on every
 * channel the member can be reached on (or only `channels`), under the broadcast's
 * category. The slug names the broadcast, so its runs are found in the message log.
 */
export function broadcastWorkflow(broadcast: BroadcastAccepted): { slug: string; version: number; definition: WorkflowDefinition } {
  const nodes: WorkflowNode[] = timingNodes('Broadcast', broadcast.delay, broadcast.trigger_at);
  nodes.push({
    name: 'Broadcast',
    node_type: 'send_multi_channel',
    template: broadcast.template,
    ...(broadcast.channels !== undefined ? { channels: broadcast.channels } : {}),
  });
  return {
    slug: `broadcast:${broadcast.list_id}`,
    version: 1,
    definition: { name: `Broadcast to list ${broadcast.list_id}`, category: broadcast.notification_category, trigger_type: 'api', tree: { nodes } },
  };
}
