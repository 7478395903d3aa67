/**
 * ingest-api's part of `{base_url}/openapi.json` (triggers and events), merged with the
 * other public services' parts by the HTTP application. Written after the SuprSend
 * reference (paths, field names, statuses) and kept honest by the integration tests,
 * which check every response they receive against it.
 */
import { PUBLIC_API_SHARED } from '@herald/runtime';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema, description: string): Schema => ({ description, content: { 'application/json': { schema } } });
const strings: Schema = { type: 'array', items: { type: 'string' } };
const channelName: Schema = { type: 'string', enum: ['email', 'sms', 'inbox', 'androidpush', 'iospush', 'slack', 'ms_teams', 'webpush', 'whatsapp'] };
const context: Schema = { type: 'object', properties: { tenant_id: { type: 'string' } }, description: 'Must equal the top-level tenant_id' };
const webhook: Schema = { type: 'object', required: ['url'], properties: { url: { type: 'string', format: 'uri' } } };

const errorResponses = (...statuses: number[]): Record<string, Schema> =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      json(
        ref('ErrorResponse'),
        {
          400: 'Validation error: every failing field by its path in `detail`',
          401: 'Missing or invalid API key or signature',
          404: 'Unknown or disabled workflow, or (broadcast, dynamic workflow) a workspace key of another workspace',
          409: 'A request with this $idempotency_key, or the signed request this one replays, is still being processed; retry',
          413: 'Body larger than 800 KB',
          429:
            'Herald is overloaded: its backlog passed HERALD_INGEST_MAX_BACKLOG messages or HERALD_INGEST_MAX_BACKLOG_BYTES bytes (embedded mode), or every database connection stayed busy for as long as a request waits for one; nothing was accepted, retry after the Retry-After header\'s seconds',
          503: 'Herald cannot accept requests now (the broker or the database is unreachable); retry',
        }[status] ?? 'Error',
      ),
    ]),
  );

const bulkResponse: Schema = {
  type: 'object',
  required: ['records', 'status'],
  properties: {
    status: { type: 'string', enum: ['success'] },
    records: {
      type: 'array',
      items: {
        oneOf: [
          {
            type: 'object',
            required: ['status', 'status_code', 'message_id'],
            properties: { status: { const: 'success' }, status_code: { const: 202 }, message_id: { type: 'string', format: 'uuid' } },
          },
          {
            type: 'object',
            required: ['status', 'status_code', 'error'],
            properties: {
              status: { const: 'error' },
              status_code: {
                type: 'integer',
                minimum: 400,
                maximum: 599,
                description: 'What the record alone would have been answered: 429 when Herald is overloaded (retry it later), 503 when the database or broker is unreachable',
              },
              error: { type: 'object', required: ['message', 'type'], properties: { message: { type: 'string' }, type: { type: 'string' } } },
            },
          },
        ],
      },
    },
  },
};

const jsonBody = (schema: Schema, description: string): Schema => ({ required: true, description, content: { 'application/json': { schema } } });

export const ingestOpenApi = {
  security: PUBLIC_API_SHARED.security,
  paths: {
    '/trigger/': {
      post: {
        operationId: 'triggerWorkflow',
        summary: 'Trigger a workflow for up to 100 recipients, or up to 100 triggers at once',
        requestBody: jsonBody(
          { oneOf: [ref('WorkflowTrigger'), { type: 'array', minItems: 1, maxItems: 100, items: ref('WorkflowTrigger') }] },
          'One trigger (202) or an array of triggers (bulk, 207). At most 800 KB.',
        ),
        responses: {
          '202': json(
            { type: 'object', required: ['message_id', 'status'], properties: { message_id: { type: 'string', format: 'uuid' }, status: { const: 'success' } } },
            'Accepted: one run per recipient will start. A repeat of an $idempotency_key within 24 hours answers the first message_id. The message_id follows the trigger: GET /v1/workflow_run/?message_id= lists its runs and their messages, GET /v1/message/?message_id= its messages.',
          ),
          '207': json(bulkResponse, 'Bulk: a result per record, in order'),
          ...errorResponses(400, 401, 404, 409, 413, 429, 503),
        },
      },
    },
    '/{workspace_key}/broadcast/': {
      post: {
        operationId: 'triggerBroadcast',
        summary: 'Send a template to every member of a subscriber list',
        parameters: [{ in: 'path', name: 'workspace_key', required: true, schema: { type: 'string' }, description: "One of the authenticated workspace's keys" }],
        requestBody: jsonBody(
          {
            type: 'object',
            required: ['list_id', 'template', 'notification_category'],
            properties: {
              list_id: { type: 'string' },
              template: { type: 'string' },
              notification_category: { type: 'string' },
              channels: { type: 'array', items: channelName },
              data: { type: 'object' },
              delay: { oneOf: [{ type: 'string' }, { type: 'integer', minimum: 0 }], description: '`XXdXXhXXmXXs`, or seconds' },
              trigger_at: { type: 'string', format: 'date-time' },
              tenant_id: { type: 'string' },
              $idempotency_key: { type: 'string', maxLength: 255 },
            },
          },
          'The broadcast',
        ),
        responses: {
          '202': json({ type: 'object', required: ['message'], properties: { message: { type: 'string' } } }, 'Accepted: each member gets a run'),
          ...errorResponses(400, 401, 404, 409, 413, 429, 503),
        },
      },
    },
    '/{workspace_key}/trigger/': {
      post: {
        operationId: 'triggerDynamicWorkflow',
        summary: "The SDKs' legacy dynamic workflow: send a template to up to 100 users, or up to 100 such triggers at once",
        description:
          'An ad-hoc single-step workflow named `name`: an optional `delay` or `trigger_at`, then `template` on every channel each user can be reached on ' +
          '(`$channels` narrows it), under `notification_category`. `delivery.smart` makes it smart channel routing (the mandatory channels, then the first other channel that can send). ' +
          'Validation, idempotency and fan-out are those of `/trigger/`.',
        parameters: [{ in: 'path', name: 'workspace_key', required: true, schema: { type: 'string' }, description: "One of the authenticated workspace's keys" }],
        requestBody: jsonBody(
          { oneOf: [ref('DynamicWorkflowTrigger'), { type: 'array', minItems: 1, maxItems: 100, items: ref('DynamicWorkflowTrigger') }] },
          'One trigger (202) or an array of them (bulk, 207). At most 800 KB.',
        ),
        responses: {
          '202': json(
            { type: 'object', required: ['message', 'message_id'], properties: { message: { const: 'Accepted - OK' }, message_id: { type: 'string', format: 'uuid' } } },
            'Accepted: one run per user will start. A repeat of an $idempotency_key within 24 hours answers the first message_id.',
          ),
          '207': json(bulkResponse, 'Bulk: a result per record, in order'),
          ...errorResponses(400, 401, 404, 409, 413, 429, 503),
        },
      },
    },
    '/event/': {
      post: {
        operationId: 'trackEvent',
        summary: 'Track an event (starts workflows triggered by it, resumes wait-until nodes), or save a user (an identity event of the SuprSend SDKs)',
        requestBody: jsonBody(
          {
            oneOf: [
              ref('Event'),
              ref('IdentityEvent'),
              { type: 'array', minItems: 1, maxItems: 400, items: { anyOf: [ref('Event'), ref('IdentityEvent')] }, description: 'At most 100 track events and 400 records in all' },
            ],
          },
          'One event (202) or an array of either kind or both (207). A body with `$user_operations` is an identity event.',
        ),
        responses: {
          '202': json({ type: 'object', required: ['message'], properties: { message: { const: 'OK' } } }, 'Accepted'),
          '207': json(bulkResponse, 'Bulk: a result per record, in order'),
          ...errorResponses(400, 401, 409, 413, 429, 503),
        },
      },
    },
  },
  components: {
    securitySchemes: PUBLIC_API_SHARED.securitySchemes,
    schemas: {
      ...PUBLIC_API_SHARED.schemas,
      WorkflowTrigger: {
        type: 'object',
        required: ['workflow', 'recipients'],
        properties: {
          workflow: { type: 'string', description: 'Workflow slug' },
          recipients: { type: 'array', minItems: 1, maxItems: 100, items: { oneOf: [{ type: 'string', description: 'distinct_id' }, ref('UserRecipient'), ref('ObjectRecipient')] } },
          actor: { oneOf: [{ type: 'string' }, ref('UserRecipient')] },
          data: { type: 'object', properties: { $attachments: { type: 'array', items: ref('Attachment') } } },
          tenant_id: { type: 'string' },
          $idempotency_key: { type: 'string', maxLength: 255 },
        },
      },
      DynamicWorkflowTrigger: {
        type: 'object',
        required: ['name', 'template', 'notification_category', 'users'],
        properties: {
          name: { type: 'string', description: 'Names the workflow (and its runs in the message log)' },
          template: { type: 'string', description: 'Template slug' },
          notification_category: { type: 'string', description: 'Preference category' },
          users: { type: 'array', minItems: 1, maxItems: 100, items: { oneOf: [{ type: 'string', description: 'distinct_id' }, ref('UserRecipient')] } },
          data: { type: 'object', properties: { $attachments: { type: 'array', items: ref('Attachment') } } },
          delay: { oneOf: [{ type: 'string' }, { type: 'integer', minimum: 0 }], description: '`XXdXXhXXmXXs`, or seconds' },
          trigger_at: { type: 'string', format: 'date-time' },
          delivery: {
            type: 'object',
            properties: {
              smart: { type: 'boolean', default: false },
              success: { type: 'string', description: '`delivered`, `seen`, `interaction` (or `interacted`), or the name of your own success event' },
              time_to_live: { oneOf: [{ type: 'string' }, { type: 'integer', minimum: 1 }], description: '`XXdXXhXXmXXs`, or seconds' },
              mandatory_channels: { type: 'array', items: channelName },
            },
          },
          tenant_id: { type: 'string' },
          brand_id: { type: 'string', description: 'Older name of tenant_id (tenant_id wins when both are sent)' },
          $idempotency_key: { type: 'string', maxLength: 255 },
        },
      },
      UserRecipient: {
        type: 'object',
        description: 'distinct_id is required unless is_transient. Other properties update the profile.',
        properties: {
          distinct_id: { type: 'string' },
          is_transient: { type: 'boolean' },
          $channels: { type: 'array', items: channelName },
          $email: { type: 'array', items: { type: 'string', format: 'email' } },
          $sms: strings,
          $whatsapp: strings,
          $inbox: strings,
          $androidpush: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'object', required: ['token'] }] } },
          $iospush: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'object', required: ['token'] }] } },
          $webpush: { type: 'array', items: { type: 'object', required: ['endpoint', 'keys'] } },
          $slack: {
            type: 'array',
            items: {
              oneOf: [
                { type: 'object', required: ['email'], description: 'access_token optional: without it the Slack vendor bot token is used' },
                { type: 'object', required: ['user_id'], description: 'access_token optional: without it the Slack vendor bot token is used' },
                { type: 'object', required: ['channel'], description: 'access_token optional: without it the Slack vendor bot token is used' },
                { type: 'object', required: ['incoming_webhook'], properties: { incoming_webhook: webhook } },
              ],
            },
          },
          $ms_teams: {
            type: 'array',
            items: {
              oneOf: [
                { type: 'object', required: ['tenant_id', 'service_url', 'conversation_id'] },
                { type: 'object', required: ['tenant_id', 'service_url', 'user_id'] },
                { type: 'object', required: ['incoming_webhook'], properties: { incoming_webhook: webhook } },
              ],
            },
          },
          $timezone: { type: 'string', description: 'IANA time zone name' },
          $locale: { type: 'string' },
          $context: context,
        },
      },
      ObjectRecipient: {
        type: 'object',
        required: ['id', 'object_type'],
        properties: { id: { type: 'string' }, object_type: { type: 'string' }, $context: context },
      },
      Attachment: {
        oneOf: [
          { type: 'object', required: ['url'], properties: { url: { type: 'string', format: 'uri' }, filename: { type: 'string' }, ignore_if_error: { type: 'boolean' } } },
          {
            type: 'object',
            required: ['data'],
            properties: { data: { type: 'string', description: 'base64, below 50 KB decoded' }, filename: { type: 'string' }, contentType: { type: 'string' } },
          },
        ],
      },
      Event: {
        type: 'object',
        required: ['distinct_id', 'event'],
        properties: {
          distinct_id: { type: 'string' },
          event: { type: 'string', maxLength: 255 },
          properties: { type: 'object' },
          tenant_id: { type: 'string' },
          $idempotency_key: { type: 'string', maxLength: 255 },
        },
      },
      IdentityEvent: {
        type: 'object',
        description:
          "What the SDKs' `user.get_instance(id).save()`, `bulk_users` and `users.async_edit` send. The operations change the user's profile (created when missing), or its per-tenant profile with `tenant_id`, in order. `$schema`, `$insert_id`, `$time`, `env` and `properties` are accepted and ignored.",
        required: ['distinct_id', '$user_operations'],
        properties: {
          distinct_id: { type: 'string' },
          $user_operations: { type: 'array', items: ref('UserOperation') },
          tenant_id: { type: 'string' },
          $idempotency_key: { type: 'string', maxLength: 255 },
          $schema: { type: 'string' },
          $insert_id: { type: 'string' },
          $time: { type: 'integer' },
          env: { type: 'string' },
          properties: { type: 'object' },
        },
      },
      UserOperation: {
        type: 'object',
        description:
          'One or more operations, applied in this order. Channel keys (`$email`, `$sms`, `$whatsapp`, `$inbox`, `$androidpush`, `$iospush`, `$webpush`, `$slack`, `$ms_teams`) take values as inline recipients do; a push token may come with `$id_provider` and `$bundle_id` beside it.',
        additionalProperties: false,
        properties: {
          $set: { type: 'object', description: 'Set properties, or replace a channel\'s values. `$preferred_language` is stored as `$locale`; `$timezone` is an IANA zone.' },
          $set_once: { type: 'object', description: 'Set properties that are not set yet' },
          $add: { type: 'object', additionalProperties: { type: 'number' }, description: 'Add to numeric properties' },
          $append: { type: 'object', description: 'Add channel values, or append to list properties' },
          $remove: { type: 'object', description: 'Remove channel values, or remove from list properties' },
          $unset: { type: 'array', items: { type: 'string' }, description: 'Remove properties or whole channels' },
        },
      },
    },
  },
};
