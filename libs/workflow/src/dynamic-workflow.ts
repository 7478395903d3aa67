import { Channel, JsonRecord } from '@herald/contracts';
import { WorkflowDefinition, WorkflowNode } from './definition';

/** `delivery` of a dynamic workflow (reference `dynamic-workflow-trigger`), as validated by ingest-api. */
export interface DynamicDelivery {
  readonly smart: boolean;
  /** A notification status (`delivered`, `seen`, `interacted`) or, with success_is_event, an event name. */
  readonly success?: string;
  readonly success_is_event?: boolean;
  /** A fixed duration. */
  readonly time_to_live?: string;
  readonly mandatory_channels?: readonly Channel[];
}

/** What a legacy `POST /{workspace_key}/trigger/` body says about the single-step workflow it creates. */
export interface DynamicWorkflowSpec {
  readonly name: string;
  readonly template: string;
  readonly notification_category: string;
  /** A fixed duration. */
  readonly delay?: string;
  /** ISO 8601. */
  readonly trigger_at?: string;
  readonly delivery?: DynamicDelivery;
}

/** The inline workflow a trigger.accepted message carries (its `inline_workflow`). */
export interface InlineWorkflow {
  readonly slug: string;
  readonly version: number;
  readonly definition: JsonRecord;
}

/**
 * The ad-hoc workflow of SuprSend's "dynamic workflow" trigger (the SDKs' legacy
 * `trigger_workflow`/`triggerWorkflow`): wait for `delay` or until `trigger_at` when
 * given, then send the template on every channel the recipient can be reached on
 * (`$channels` on a user narrows it), under the given category. `delivery.smart` makes
 * it smart channel routing: the mandatory channels, then the first other channel that
 * can send. The slug is the workflow's name, so its runs are found by it in the message log.
 */
export function dynamicWorkflow(spec: DynamicWorkflowSpec): InlineWorkflow {
  const nodes: WorkflowNode[] = [...timingNodes('Workflow', spec.delay, spec.trigger_at)];
  const delivery = spec.delivery;
  if (delivery?.smart === true) {
    nodes.push({
      name: 'Send',
      node_type: 'send_smart_channel_routing',
      template: spec.template,
      ...(delivery.mandatory_channels !== undefined ? { mandatory_channels: delivery.mandatory_channels } : {}),
      ...(delivery.success !== undefined ? { success: delivery.success } : {}),
      ...(delivery.success_is_event === true ? { success_is_event: true } : {}),
      ...(delivery.time_to_live !== undefined ? { ttl_value: delivery.time_to_live } : {}),
    });
  } else {
    nodes.push({ name: 'Send', node_type: 'send_multi_channel', template: spec.template });
  }
  const definition: WorkflowDefinition = { name: spec.name, category: spec.notification_category, trigger_type: 'api', tree: { nodes } };
  return { slug: spec.name, version: 1, definition: definition as unknown as JsonRecord };
}

/** A fixed delay and/or a wait until an instant, as broadcasts and dynamic workflows take them. */
export function timingNodes(label: string, delay: string | undefined, triggerAt: string | undefined): WorkflowNode[] {
  const nodes: WorkflowNode[] = [];
  if (delay !== undefined) nodes.push({ name: `${label} delay`, node_type: 'delay', delay_type: 'fixed', duration: delay });
  if (triggerAt !== undefined) {
    nodes.push({
      name: `${label} time`,
      node_type: 'delay',
      delay_type: 'relative_to',
      // A jq string literal: the pivot is the given instant itself.
      relative_to: { pivot_expr: JSON.stringify(triggerAt), offset_type: 'after', offset_value_type: 'fixed', offset_value: '0d0h0m0s' },
    });
  }
  return nodes;
}
