import { BroadcastAccepted } from '@herald/contracts';
import { WorkflowDefinition, WorkflowNode } from './definition';

/**
 * The workflow a broadcast runs for each member of its list (reference `trigger-broadcast`):
 * wait for `delay` or until `trigger_at` when given, then send the template on every
 * channel the member can be reached on (or only `channels`), under the broadcast's
 * category. The slug names the broadcast, so its runs are found in the message log.
 */
export function broadcastWorkflow(broadcast: BroadcastAccepted): { slug: string; version: number; definition: WorkflowDefinition } {
  const nodes: WorkflowNode[] = [];
  if (broadcast.delay !== undefined) nodes.push({ name: 'Broadcast delay', node_type: 'delay', delay_type: 'fixed', duration: broadcast.delay });
  if (broadcast.trigger_at !== undefined) {
    nodes.push({
      name: 'Broadcast time',
      node_type: 'delay',
      delay_type: 'relative_to',
      // A jq string literal: the pivot is the given instant itself.
      relative_to: { pivot_expr: JSON.stringify(broadcast.trigger_at), offset_type: 'after', offset_value_type: 'fixed', offset_value: '0d0h0m0s' },
    });
  }
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
