/**
 * The enumerated values of a workflow definition (interface 2.2 to 2.4, the reference's
 * node schemas where the interface is silent). Each list is the single source of its
 * type and of the validator's "must be one of" message.
 */

export const TRIGGER_TYPES = ['event', 'dynamic', 'api'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export const OVERRIDE_RECIPIENTS_TYPES = ['user', 'single_object_fields'] as const;
export type OverrideRecipientsType = (typeof OVERRIDE_RECIPIENTS_TYPES)[number];

/** Herald's node types: the seven of interface 2.3 and the send nodes of the reference. */
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
export type SendNodeType = (typeof SEND_NODE_TYPES)[number];

export const NODE_TYPES = [
  'digest',
  'delay',
  'batch',
  'httpapi_webhook',
  'httpapi_fetch',
  'branch_waituntil',
  'branch',
  ...SEND_NODE_TYPES,
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const DELAY_TYPES = ['fixed', 'dynamic', 'relative_to'] as const;
export type DelayType = (typeof DELAY_TYPES)[number];

export const WINDOW_TYPES = ['fixed', 'dynamic', 'relative_to'] as const;
export type WindowType = (typeof WINDOW_TYPES)[number];

export const BATCH_MODES = ['accumulate_all', 'flush_leading_item'] as const;
export type BatchMode = (typeof BATCH_MODES)[number];

export const RETAIN_ORDERS = ['first', 'last'] as const;
export type RetainOrder = (typeof RETAIN_ORDERS)[number];

export const OFFSET_TYPES = ['before', 'after'] as const;
export type OffsetType = (typeof OFFSET_TYPES)[number];

export const OFFSET_VALUE_TYPES = ['fixed', 'dynamic'] as const;
export type OffsetValueType = (typeof OFFSET_VALUE_TYPES)[number];

/** Interface 2.3 adds `category_digest_schedule` to the reference's static and dynamic. */
export const SCHEDULE_TYPES = ['static', 'dynamic', 'category_digest_schedule'] as const;
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];

export const FREQUENCIES = ['minutely', 'hourly', 'daily', 'weekly_mo2fr', 'weekly', 'monthly'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export const WEEKDAYS = ['su', 'mo', 'tu', 'we', 'th', 'fr', 'sa'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const TZ_SELECTIONS = ['fixed', 'recipient'] as const;
export type TzSelection = (typeof TZ_SELECTIONS)[number];

export const WEBHOOK_HTTP_METHODS = ['GET', 'PUT', 'POST', 'PATCH', 'DELETE'] as const;
export type WebhookHttpMethod = (typeof WEBHOOK_HTTP_METHODS)[number];

export const FETCH_HTTP_METHODS = ['GET'] as const;
export type FetchHttpMethod = (typeof FETCH_HTTP_METHODS)[number];

export const WAIT_UNTIL_CONDITION_TYPES = ['future_event', 'delay'] as const;
export type WaitUntilConditionType = (typeof WAIT_UNTIL_CONDITION_TYPES)[number];

export const EXPRESSION_CONDITION_TYPES = ['expression_v1'] as const;
export type ExpressionConditionType = (typeof EXPRESSION_CONDITION_TYPES)[number];

export const LOGICAL_OPS = ['AND', 'OR'] as const;
export type LogicalOp = (typeof LOGICAL_OPS)[number];

/** Workflow trigger conditions: the reference allows only AND. */
export const TRIGGER_CONDITION_LOGICAL_OPS = ['AND'] as const;

export const COMPARISON_OPS = [
  '==',
  '!=',
  '>',
  '<',
  '>=',
  '<=',
  'EMPTY',
  'NON_EMPTY',
  'CONTAINS',
  'NOT_CONTAINS',
  'DATETIME_EQUALS',
  'DATETIME_LT',
  'DATETIME_GT',
] as const;
/** Workflow trigger conditions also take the two array operators of the reference. */
export const TRIGGER_CONDITION_COMPARISON_OPS = [...COMPARISON_OPS, 'ARRAY_INTERSECTS', 'NOT_ARRAY_INTERSECTS'] as const;
export type ComparisonOp = (typeof TRIGGER_CONDITION_COMPARISON_OPS)[number];

/** Wait-until event_conditions (interface 2.3). */
export const WAIT_UNTIL_VARIABLE_NAMESPACES = ['', '$tenant', '$actor', '$recipient', '$future_event'] as const;
/** Branch condition args: the reference's BranchNode list, plus `$tenant`, the interface's name for `$brand`. */
export const BRANCH_VARIABLE_NAMESPACES = ['', '$tenant', '$brand', '$actor', '$recipient', '$future_event', '$workflow'] as const;
/** Workflow trigger conditions (reference WorkflowCreateUpdate). */
export const TRIGGER_CONDITION_VARIABLE_NAMESPACES = ['', '$recipient', '$tenant'] as const;
export type VariableNamespace = (typeof BRANCH_VARIABLE_NAMESPACES)[number];

export const ROUTING_BASES = ['cost_low_to_high'] as const;
export type RoutingBasis = (typeof ROUTING_BASES)[number];

/** Notification statuses a smart-routing `success` names when it is not a custom event. */
export const ROUTING_SUCCESS_STATUSES = ['delivered', 'seen', 'interacted'] as const;
