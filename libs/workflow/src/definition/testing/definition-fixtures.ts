import { DefinitionValidationContext } from '../validation-context';
import { WorkflowValidation, validateWorkflow } from '../validate-workflow';

/**
 * Valid building blocks for definition tests: each builder returns a valid node (or
 * part), and its argument overrides fields, so a test breaks exactly one thing. An
 * override of `undefined` removes a field.
 */

export type Json = Record<string, unknown>;

/** jq fails on `(((`, Jsonnet on `}}}`; templates welcome and digest; categories transactional and marketing. */
export const fakeContext: DefinitionValidationContext = {
  jqSyntaxError: (expression) => (expression.includes('(((') ? 'unbalanced parentheses' : undefined),
  jsonnetSyntaxError: (source) => (source.includes('}}}') ? 'unexpected: "}"' : undefined),
  templateExists: (slug) => ['welcome', 'digest'].includes(slug),
  categoryExists: (slug) => ['transactional', 'marketing'].includes(slug),
};

export const validate = (input: unknown): WorkflowValidation => validateWorkflow(input, fakeContext);

export const workflow = (over: Json = {}, nodes: unknown[] = [sendEmail()]): Json => ({
  name: 'Welcome',
  category: 'transactional',
  trigger_type: 'api',
  tree: { nodes },
  ...over,
});

/** A workflow whose only node is `node`: its errors are at `tree.nodes[0]`. */
export const withNode = (node: unknown): Json => workflow({}, [node]);

// ---- timing

export const schedule = (over: Json = {}): Json => ({
  frequency: 'weekly',
  interval: 1,
  weekdays: ['mo', 'we'],
  time: '09:30',
  dtstart: '2025-01-31T09:00:00Z',
  tz_selection: 'fixed',
  tz_fixed: 'America/New_York',
  ...over,
});

export const digest = (over: Json = {}): Json => ({
  node_type: 'digest',
  name: 'Daily digest',
  schedule_type: 'static',
  schedule: schedule(),
  retain_count: 10,
  retain_order: 'last',
  trigger_min_count: 2,
  ...over,
});

export const relativeTo = (over: Json = {}): Json => ({
  pivot_expr: '.start_time',
  offset_type: 'before',
  offset_value_type: 'fixed',
  offset_value: '15m',
  ...over,
});

export const delay = (over: Json = {}): Json => ({ node_type: 'delay', name: 'Wait', delay_type: 'fixed', duration: '30m', ...over });

export const batch = (over: Json = {}): Json => ({
  node_type: 'batch',
  name: 'Batch comments',
  mode: 'accumulate_all',
  window_type: 'fixed',
  fixed_window: '1h',
  retain_count: 20,
  retain_order: 'first',
  batch_key: '.document_id',
  ...over,
});

// ---- http

export const webhook = (over: Json = {}): Json => ({
  node_type: 'httpapi_webhook',
  name: 'Notify CRM',
  http_method: 'POST',
  url: 'https://api.example.com/webhook',
  headers: [
    { key: 'Authorization', value: '"Bearer " + data["$tenant"].api_key' },
    { key: 'Content-Type', value: 'application/json' },
  ],
  query_params: [{ key: 'id', value: 'data["$recipient"].id' }],
  body_content_type: 'application/json',
  body: '{ user: data["$recipient"].distinct_id }',
  output_key: 'crm',
  ...over,
});

export const fetchNode = (over: Json = {}): Json => ({
  node_type: 'httpapi_fetch',
  name: 'Fetch user',
  http_method: 'GET',
  url: '"https://api.example.com/users/" + data.user_id',
  headers: [{ key: 'Accept', value: 'application/json' }],
  query_params: [{ key: 'q', value: 'a+b%20c' }],
  output_key: 'user',
  ...over,
});

// ---- send

export const sendEmail = (over: Json = {}): Json => ({ node_type: 'send_email', name: 'Email', template: 'welcome', ...over });

export const multiChannel = (over: Json = {}): Json => ({
  node_type: 'send_multi_channel',
  name: 'Everywhere',
  template: 'welcome',
  channels: ['email', 'inbox', 'slack'],
  channels_expr: '.channels',
  ...over,
});

export const smartRouting = (over: Json = {}): Json => ({
  node_type: 'send_smart_channel_routing',
  name: 'Smart',
  template: 'digest',
  channels: ['email', 'sms', 'androidpush'],
  mandatory_channels: ['inbox'],
  success: 'seen',
  success_is_event: false,
  ttl_value: '1h',
  routing_basis: 'cost_low_to_high',
  ...over,
});

// ---- branches

export const comparison = (over: Json = {}): Json => ({ variable_ns: '$recipient', variable: 'plan', op: '==', value: '"pro"', ...over });

export const expression = (over: Json = {}): Json => ({
  type: 'expression_v1',
  expression_v1: { op: 'AND', args: [comparison()] },
  ...over,
});

export const conditionalBranch = (over: Json = {}): Json => ({
  name: 'Pro users',
  is_default: false,
  conditions: [expression()],
  nodes: [sendEmail()],
  ...over,
});

export const defaultBranch = (over: Json = {}): Json => ({ name: 'Everyone else', is_default: true, conditions: [], nodes: [delay()], ...over });

export const branch = (over: Json = {}): Json => ({
  node_type: 'branch',
  name: 'By plan',
  branches: [conditionalBranch(), defaultBranch()],
  ...over,
});

export const futureEvent = (over: Json = {}): Json => ({
  type: 'future_event',
  event_name: 'request_approved',
  event_conditions: [{ variable_ns: '$future_event', variable: 'status', op: '==', value: 'approved' }],
  ...over,
});

export const delayCondition = (over: Json = {}): Json => ({ type: 'delay', delay_properties: { delay_type: 'fixed', value: '2d' }, ...over });

export const eventBranch = (over: Json = {}): Json => ({
  name: 'Approved',
  is_default: false,
  conditions: [futureEvent()],
  nodes: [sendEmail()],
  ...over,
});

export const timeoutBranch = (over: Json = {}): Json => ({
  name: 'Timed out',
  is_default: true,
  conditions: [delayCondition()],
  nodes: [sendEmail({ template: 'digest' })],
  ...over,
});

export const waitUntil = (over: Json = {}): Json => ({
  node_type: 'branch_waituntil',
  name: 'Wait for approval',
  branches: [eventBranch(), timeoutBranch()],
  ...over,
});

/** The definition is invalid with exactly these errors. */
export function expectErrors(input: unknown, expected: string | readonly string[]): void {
  const { definition, validation_result } = validate(input);
  expect(validation_result.errors).toEqual(typeof expected === 'string' ? [expected] : expected);
  expect(validation_result.is_valid).toBe(false);
  expect(definition).toBeUndefined();
}

/** The definition is valid: no errors, and a normalised definition. */
export function expectValid(input: unknown): void {
  const { definition, validation_result } = validate(input);
  expect(validation_result).toEqual({ is_valid: true, errors: [] });
  expect(definition).toBeDefined();
}

/** A table row: a rule, a definition that breaks only it, the error(s) it must give. */
export type BrokenCase = readonly [rule: string, input: Json, expected: string | readonly string[]];
