import { Channel } from '@herald/contracts';
import {
  BatchMode,
  ComparisonOp,
  FetchHttpMethod,
  Frequency,
  LogicalOp,
  NodeType,
  OffsetType,
  OffsetValueType,
  OverrideRecipientsType,
  RetainOrder,
  RoutingBasis,
  SendNodeType,
  TriggerType,
  TzSelection,
  VariableNamespace,
  WebhookHttpMethod,
  Weekday,
} from './definition-enums';

/**
 * A workflow definition as a client writes it (interface 2.2, 2.3, 2.4), after
 * validation: every node's `properties` object merged into the node, optional fields
 * that were null left out, unknown fields dropped. Durations, jq and Jsonnet stay the
 * strings the client wrote; `parseDuration` turns a fixed duration into milliseconds.
 */
export interface WorkflowDefinition {
  readonly name: string;
  readonly description?: string;
  readonly is_enabled?: boolean;
  readonly category: string;
  readonly tags?: readonly string[];
  readonly ratelimit?: RateLimit;
  readonly conditions?: readonly ExpressionCondition[];
  readonly trigger_type: TriggerType;
  readonly trigger_events?: readonly string[];
  readonly override_recipients_type?: OverrideRecipientsType;
  /** jq. */
  readonly override_recipients_user_expr?: string;
  /** jq, or (reference form) an object of jq expressions. */
  readonly override_recipients_single_object_fields_expr?: string | SingleObjectFieldsExpr;
  /** jq. */
  readonly override_actor_user_expr?: string;
  /** jq. */
  readonly override_tenant_expr?: string;
  readonly tree: WorkflowTree;
}

/** What `validateWorkflow` returns for a valid definition. */
export type NormalisedWorkflow = WorkflowDefinition;

export interface WorkflowTree {
  readonly nodes: readonly WorkflowNode[];
}

export interface RateLimit {
  readonly count: number;
  /** Fixed duration. */
  readonly sliding_window: string;
}

export interface SingleObjectFieldsExpr {
  readonly id: string;
  readonly object_type: string;
  readonly '$object_subscriptions_query.depth'?: string;
}

export type WorkflowNode =
  | DigestNode
  | DelayNode
  | BatchNode
  | HttpWebhookNode
  | HttpFetchNode
  | BranchWaitUntilNode
  | BranchNode
  | SendNode;

export interface NodeBase<T extends NodeType> {
  readonly node_type: T;
  readonly name: string;
  readonly description?: string;
}

/** A point relative to a future timestamp: `pivot_expr` (jq) before or after an offset. */
export interface RelativeTo {
  readonly pivot_expr: string;
  readonly offset_type: OffsetType;
  readonly offset_value_type: OffsetValueType;
  /** A fixed duration when offset_value_type is `fixed`, else jq. */
  readonly offset_value: string;
}

// ---- timing nodes

export const DEFAULT_DIGEST_RETAIN_COUNT = 10;

export type DigestNode = NodeBase<'digest'> & {
  readonly retain_count?: number;
  readonly retain_order?: RetainOrder;
  readonly trigger_min_count?: number;
} & (
    | { readonly schedule_type: 'static'; readonly schedule: DigestSchedule }
    | { readonly schedule_type: 'dynamic'; readonly dynamic_schedule_expr: string }
    | { readonly schedule_type: 'category_digest_schedule' }
  );

export interface DigestSchedule {
  readonly frequency: Frequency;
  readonly interval?: number;
  readonly weekdays?: readonly Weekday[];
  readonly monthdays?: readonly MonthDay[];
  /** HH:MM, 24-hour. */
  readonly time?: string;
  /** ISO date-time. */
  readonly dtstart?: string;
  readonly tz_selection?: TzSelection;
  readonly tz_fixed?: string;
}

export interface MonthDay {
  /** -31..31, never 0; negative counts from the end of the month. */
  readonly pos: number;
  readonly day?: Weekday;
}

export type DelayNode = NodeBase<'delay'> &
  (
    | { readonly delay_type: 'fixed'; /** Fixed duration. */ readonly duration: string }
    | { readonly delay_type: 'dynamic'; /** jq. */ readonly duration: string }
    | { readonly delay_type: 'relative_to'; readonly relative_to: RelativeTo }
  );

export type BatchNode = NodeBase<'batch'> & {
  readonly mode: BatchMode;
  readonly retain_count?: number;
  readonly retain_order?: RetainOrder;
  /** jq. */
  readonly batch_key?: string;
} & (
    | { readonly window_type: 'fixed'; /** Fixed duration. */ readonly fixed_window: string }
    | { readonly window_type: 'dynamic'; /** jq. */ readonly dynamic_window_expr: string }
    | { readonly window_type: 'relative_to'; readonly relative_to: RelativeTo }
  );

// ---- HTTP nodes

export const DEFAULT_BODY_CONTENT_TYPE = 'application/json';

/** A header or query parameter; the value is a literal or Jsonnet. */
export interface KeyValue {
  readonly key: string;
  readonly value: string;
}

interface HttpNodeFields {
  /** An http(s) URL, or Jsonnet that evaluates to one. */
  readonly url: string;
  readonly headers?: readonly KeyValue[];
  readonly query_params?: readonly KeyValue[];
  readonly output_key?: string;
}

export type HttpWebhookNode = NodeBase<'httpapi_webhook'> &
  HttpNodeFields & {
    readonly http_method: WebhookHttpMethod;
    readonly body_content_type?: string;
    /** Jsonnet. */
    readonly body?: string;
  };

export type HttpFetchNode = NodeBase<'httpapi_fetch'> & HttpNodeFields & { readonly http_method: FetchHttpMethod };

// ---- branch nodes

export type BranchWaitUntilNode = NodeBase<'branch_waituntil'> & { readonly branches: readonly WaitUntilBranch[] };

export interface WaitUntilBranch {
  readonly name?: string;
  readonly description?: string;
  /** True exactly for the branch that waits on the delay condition. */
  readonly is_default?: boolean;
  /** Exactly one condition. */
  readonly conditions: readonly WaitUntilCondition[];
  readonly nodes: readonly WorkflowNode[];
}

export type WaitUntilCondition = FutureEventCondition | DelayCondition;

export interface FutureEventCondition {
  readonly type: 'future_event';
  readonly event_name: string;
  readonly event_conditions?: readonly Comparison[];
}

export interface DelayCondition {
  readonly type: 'delay';
  readonly delay_properties: DelayProperties;
}

export type DelayProperties =
  | { readonly delay_type: 'fixed'; /** Fixed duration. */ readonly value: string }
  | { readonly delay_type: 'dynamic'; /** jq. */ readonly value: string }
  | { readonly delay_type: 'relative_to'; readonly relative_to: RelativeTo };

export type BranchNode = NodeBase<'branch'> & { readonly branches: readonly ConditionalBranch[] };

export interface ConditionalBranch {
  readonly name?: string;
  readonly description?: string;
  /** Exactly one branch of a branch node is the default; it runs when no other matches. */
  readonly is_default?: boolean;
  /** At least one for a branch that is not the default. */
  readonly conditions?: readonly ExpressionCondition[];
  readonly nodes: readonly WorkflowNode[];
}

/** A branch condition or a workflow trigger condition. */
export interface ExpressionCondition {
  readonly type: 'expression_v1';
  readonly expression_v1: LogicalExpression;
}

export interface LogicalExpression {
  readonly op: LogicalOp;
  readonly args: readonly ExpressionArg[];
}

/** A nested logical expression has `args`; a comparison has `variable`. */
export type ExpressionArg = LogicalExpression | Comparison;

export interface Comparison {
  /** Absent or empty: the run's payload data. */
  readonly variable_ns?: VariableNamespace;
  readonly variable: string;
  readonly op: ComparisonOp;
  readonly value?: string;
}

// ---- send nodes

export type SendNode = SingleChannelSendNode | SendMultiChannelNode | SendSmartChannelRoutingNode;

export type SingleChannelSendNodeType = Exclude<SendNodeType, 'send_multi_channel' | 'send_smart_channel_routing'>;

export type SingleChannelSendNode = NodeBase<SingleChannelSendNodeType> & { readonly template: string };

export type SendMultiChannelNode = NodeBase<'send_multi_channel'> & {
  readonly template: string;
  readonly channels?: readonly Channel[];
  /** jq. */
  readonly channels_expr?: string;
};

export type SendSmartChannelRoutingNode = NodeBase<'send_smart_channel_routing'> & {
  readonly template: string;
  readonly channels?: readonly Channel[];
  /** jq. */
  readonly channels_expr?: string;
  readonly mandatory_channels?: readonly Channel[];
  /** A notification status (delivered, seen, interacted) or, with success_is_event, an event name. */
  readonly success?: string;
  readonly success_is_event?: boolean;
  /** Fixed duration. */
  readonly ttl_value?: string;
  readonly routing_basis?: RoutingBasis;
};
