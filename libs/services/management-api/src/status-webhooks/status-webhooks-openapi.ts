import { CHANNELS, MESSAGE_STATUSES } from '@herald/contracts';
import { schemaRequestBody } from '@herald/runtime';
import { WebhookEndpointCreateSchema, WebhookEndpointPatchSchema, WebhookReplayRangeSchema } from './request-bodies';
import { Schema, dateTime, errorResponses, json, nullable, offsetList, paging, pathParam, ref, workspaceParam } from '../openapi/openapi-parts';

/** The management API's description of status webhooks, merged into management-openapi.ts. */
const errors = errorResponses(
  { 400: 'Validation error: every failing field by its path in `detail`', 401: 'Missing or invalid service token' },
  'Unknown workspace, endpoint or delivery',
);
const endpointParam = pathParam('endpoint_id', 'Webhook endpoint id (uuid)');
const slugs = (description: string): Schema => ({ type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 128 }, description });
const eventTypes: Schema = { type: 'array', minItems: 1, items: { type: 'string', enum: [...MESSAGE_STATUSES] }, description: 'The statuses sent to the endpoint' };
const channels: Schema = { type: 'array', items: { type: 'string', enum: [...CHANNELS] }, description: 'Only these channels (empty: all)' };
const endpointFields: Record<string, Schema> = {
  url: { type: 'string', format: 'uri', maxLength: 2048, description: 'http or https URL the events are POSTed to' },
  description: { type: 'string', maxLength: 500 },
  event_types: eventTypes,
  workflows: slugs('Only these workflow slugs (empty: all)'),
  channels,
  categories: slugs('Only these notification categories (empty: all)'),
  enabled: { type: 'boolean', description: 'false: nothing is queued for the endpoint or sent to it; true again sends what waited' },
};
const endpointView: Schema = {
  type: 'object',
  required: ['id', 'url', 'description', 'event_types', 'workflows', 'channels', 'categories', 'enabled', 'masked_secret', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    ...endpointFields,
    masked_secret: { type: 'string', description: "The signing secret's first characters" },
    created_at: dateTime,
    updated_at: dateTime,
  },
};
const statusEvent: Schema = {
  type: 'object',
  description: "A status change, as POSTed to endpoints and published on notify.status.v1 (SuprSend's outbound webhook fields where they exist)",
  required: ['type', 'timestamp', 'event_id', 'version', 'event_type', 'status', 'channel', 'suprsend_status', 'reference', 'message_id', 'delivery_id', 'run_id'],
  properties: {
    type: { type: 'string', description: '`message.<status>`' },
    timestamp: dateTime,
    event_id: { type: 'string', description: 'Unique per status change; the webhook-id header' },
    version: { type: 'string', const: '1.0' },
    event_type: { type: 'string', const: 'status' },
    status: { type: 'string', enum: [...MESSAGE_STATUSES] },
    channel: { type: 'string', enum: [...CHANNELS] },
    distinct_id: { type: 'string' },
    recipient: { type: 'object' },
    template: { type: 'string' },
    workflow_name: { type: 'string', description: 'The workflow slug' },
    category: { type: 'string' },
    tenant_id: { type: 'string' },
    vendor_name: { type: 'string' },
    suprsend_status: { type: 'object', required: ['status', 'timestamp'], properties: { status: { type: 'string' }, timestamp: { type: 'integer', description: 'Epoch milliseconds' } } },
    reference: { type: 'object', required: ['workspace_name', 'workspace_uid', 'supr_execution_id', 'supr_ngid', 'supr_nid'] },
    message_id: { type: 'string' },
    delivery_id: { type: 'string' },
    run_id: { type: 'string' },
    error: { type: 'object', properties: { message: { type: 'string' }, retryable: { type: 'boolean' } } },
    attempts: { type: 'integer' },
    next_attempt_at: dateTime,
  },
};

export const statusWebhooksOpenApi = {
  schemas: {
    WebhookEndpoint: endpointView,
    WebhookEndpointCreated: {
      ...endpointView,
      required: [...(endpointView.required as string[]), 'secret'],
      properties: {
        ...(endpointView.properties as Schema),
        secret: { type: 'string', description: 'The Standard Webhooks signing secret (`whsec_…`): in this response only' },
      },
    },
    MessageStatusEvent: statusEvent,
    WebhookDelivery: {
      type: 'object',
      required: ['id', 'event_id', 'event_type', 'message_id', 'delivery_id', 'state', 'attempts', 'created_at', 'attempt_log', 'payload'],
      properties: {
        id: { type: 'string', description: 'The webhook delivery (replay it by this id)' },
        event_id: { type: 'string' },
        event_type: { type: 'string' },
        message_id: { type: 'string' },
        delivery_id: { type: 'string', description: "Herald's delivery (the message) the event is about" },
        state: { type: 'string', enum: ['pending', 'sending', 'delivered', 'dead'], description: 'dead: dead-lettered after the last attempt' },
        attempts: { type: 'integer' },
        next_attempt_at: nullable(dateTime),
        last_status_code: nullable({ type: 'integer' }),
        last_error: nullable({ type: 'string' }),
        replay_of: nullable({ type: 'string' }),
        created_at: dateTime,
        finished_at: nullable(dateTime),
        attempt_log: {
          type: 'array',
          items: {
            type: 'object',
            required: ['attempt', 'started_at', 'status_code', 'latency_ms', 'error'],
            properties: { attempt: { type: 'integer' }, started_at: dateTime, status_code: nullable({ type: 'integer' }), latency_ms: { type: 'integer' }, error: nullable({ type: 'string' }) },
          },
        },
        payload: ref('MessageStatusEvent'),
      },
    },
  } as Record<string, Schema>,
  paths: {
    '/v1/{workspace}/webhook_endpoint/': {
      get: {
        summary: 'List status webhook endpoints',
        parameters: [workspaceParam, ...paging],
        responses: { 200: json(offsetList(ref('WebhookEndpoint')), 'Endpoints, oldest first'), ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Create a status webhook endpoint (its signing secret is returned once)',
        parameters: [workspaceParam],
        requestBody: schemaRequestBody(WebhookEndpointCreateSchema),
        responses: { 201: json(ref('WebhookEndpointCreated'), 'Created'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/webhook_endpoint/{endpoint_id}/': {
      get: {
        summary: 'Get a status webhook endpoint',
        parameters: [workspaceParam, endpointParam],
        responses: { 200: json(ref('WebhookEndpoint'), 'The endpoint'), ...errors(401, 404) },
      },
      patch: {
        summary: 'Update a status webhook endpoint; `enabled` disables or enables it',
        parameters: [workspaceParam, endpointParam],
        requestBody: schemaRequestBody(WebhookEndpointPatchSchema),
        responses: { 200: json(ref('WebhookEndpoint'), 'Updated'), ...errors(400, 401, 404) },
      },
      delete: {
        summary: 'Delete a status webhook endpoint and its delivery log',
        parameters: [workspaceParam, endpointParam],
        responses: { 204: { description: 'Deleted' }, ...errors(401, 404) },
      },
    },
    '/v1/{workspace}/webhook_endpoint/{endpoint_id}/delivery/': {
      get: {
        summary: "The endpoint's delivery log: deliveries, newest first, each with its attempts (status code, latency, error)",
        parameters: [
          workspaceParam,
          endpointParam,
          { in: 'query', name: 'state', required: false, schema: { type: 'string', enum: ['pending', 'sending', 'delivered', 'dead'] } },
          ...paging,
        ],
        responses: { 200: json(offsetList(ref('WebhookDelivery')), 'Deliveries'), ...errors(400, 401, 404) },
      },
    },
    '/v1/{workspace}/webhook_endpoint/{endpoint_id}/delivery/{webhook_delivery_id}/replay/': {
      post: {
        summary: "Send one delivery's event again (same webhook-id), after what is queued for its message",
        parameters: [workspaceParam, endpointParam, pathParam('webhook_delivery_id', 'The webhook delivery (`id` in the log)')],
        responses: {
          202: json({ type: 'object', required: ['replayed', 'delivery_id'], properties: { replayed: { type: 'integer' }, delivery_id: { type: 'string' } } }, 'Queued'),
          ...errors(401, 404),
        },
      },
    },
    '/v1/{workspace}/webhook_endpoint/{endpoint_id}/replay/': {
      post: {
        summary: 'Send again every event first queued for the endpoint in [since, until), in order',
        parameters: [workspaceParam, endpointParam],
        requestBody: schemaRequestBody(WebhookReplayRangeSchema),
        responses: { 202: json({ type: 'object', required: ['replayed'], properties: { replayed: { type: 'integer' } } }, 'Queued'), ...errors(400, 401, 404) },
      },
    },
  } as Record<string, Record<string, Schema>>,
};
