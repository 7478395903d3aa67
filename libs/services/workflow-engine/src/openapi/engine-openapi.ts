/**
 * workflow-engine's part of `{base_url}/openapi.json`: cancelling runs, a run's log and
 * the message log, after the SuprSend reference (`cancel-workflow`, `list-messages`).
 */
import { DELIVERY_WARNING_CODES } from '@herald/contracts';
import { PUBLIC_API_SHARED, schemaRequestBody } from '@herald/runtime';
import { BroadcastCancelFiltersSchema, BulkMessageUpdateSchema, CancelFiltersSchema, engineSchemas } from '../http/request-bodies';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema, description: string): Schema => ({ description, content: { 'application/json': { schema } } });
const nullableTime: Schema = { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] };
const query = (name: string, schema: Schema, description: string): Schema => ({ in: 'query', name, required: false, schema, description });
const strings: Schema = { type: 'array', items: { type: 'string' } };
/** A message's warnings, as its delivery's outcome reported them. */
const messageWarnings: Schema = {
  type: 'array',
  description:
    'What the message went out without (empty when nothing): `missing_variable`, a placeholder the data had no value for (it rendered empty), ' +
    'or `missing_translation`, a translation key no locale had (it rendered as the key); `field` is the content field it was in',
  items: {
    type: 'object',
    required: ['code', 'field'],
    properties: {
      code: { type: 'string', enum: [...DELIVERY_WARNING_CODES] },
      field: { type: 'string', description: 'The content field, e.g. subject' },
      variable: { type: 'string', description: 'missing_variable: the placeholder, e.g. name or $recipient.city' },
      key: { type: 'string', description: 'missing_translation: the key' },
    },
  },
};
/** Who a run or message is for: a user by distinct_id, or an object by type and id. */
const recipientRef: Schema = {
  type: 'object',
  required: ['$type'],
  properties: {
    $type: { type: 'string', enum: ['user', 'object'] },
    distinct_id: { type: 'string', description: 'A user' },
    object_type: { type: 'string', description: 'An object' },
    id: { type: 'string', description: "An object's id within its type" },
  },
};
const RUN_STATUSES = ['running', 'completed', 'failed', 'discarded', 'cancelled'];
/** `not_sent`: a channel the send node skipped, with why in failure_reason. */
const MESSAGE_STATUSES = ['triggered', 'sent_by_vendor', 'delivered', 'delivery_failure', 'seen', 'clicked', 'not_sent', 'bounced', 'complained'];

export const engineOpenApi = {
  security: PUBLIC_API_SHARED.security,
  paths: {
    '/v1/workflow_run/cancel/': {
      post: {
        operationId: 'cancelWorkflowRuns',
        summary: 'Cancel running workflow runs matching every given filter',
        requestBody: schemaRequestBody(CancelFiltersSchema),
        responses: {
          '200': json({ type: 'object', required: ['execution_ids'], properties: { execution_ids: strings } }, 'The runs cancelled (empty when none matched)'),
          '400': json({ anyOf: [ref('ErrorResponse'), ref('ShortError')] }, 'No filter, or a filter of the wrong type'),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key or signature'),
        },
      },
    },
    '/v1/workflow_run/': {
      get: {
        operationId: 'listWorkflowRuns',
        summary: 'Follow a trigger: its runs, one per recipient, each with its outcome and messages',
        description:
          'Filter by the `message_id` POST /trigger/ answered (or the `$idempotency_key`) to see what became of every recipient: ' +
          '`status` and, for a run that ended without sending, `reason` (conditions not met, rate limited, a node that failed); ' +
          'per message, `status` (`not_sent` with the skip reason: no channel identity, preference, no variant), `failure_reason`, ' +
          '`attempts` and `next_attempt_at` while the dispatcher retries. A run appears once the engine has started it.',
        parameters: [
          query('message_id', { type: 'string' }, "The trigger's message_id, as POST /trigger/ answered it"),
          query('idempotency_key', { type: 'string' }, "The trigger's $idempotency_key"),
          query('workflow_slug', { type: 'string' }, 'Workflow'),
          query('recipient_id', { type: 'string' }, "Recipient's distinct_id"),
          query('status', { type: 'string', enum: RUN_STATUSES }, 'Run status'),
          query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, 'Most runs returned, newest first'),
        ],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['meta', 'results'],
              properties: {
                meta: { type: 'object', required: ['count', 'limit'], properties: { count: { type: 'integer' }, limit: { type: 'integer' } } },
                results: { type: 'array', items: { allOf: [ref('RunSummary'), { type: 'object', required: ['messages'], properties: { messages: { type: 'array', items: ref('RunMessage') } } }] } },
              },
            },
            'The matching runs, newest first (count: all that match)',
          ),
          '400': json(ref('ErrorResponse'), 'Invalid filter: every failing parameter in `detail`'),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key or signature'),
        },
      },
    },
    '/v1/workflow_run/{execution_id}/': {
      get: {
        operationId: 'getWorkflowRun',
        summary: "A run and its log: every input and decision, in order",
        parameters: [{ in: 'path', name: 'execution_id', required: true, schema: { type: 'string' } }],
        responses: {
          '200': json(
            {
              allOf: [
                ref('RunSummary'),
                {
                  type: 'object',
                  required: ['steps'],
                  properties: {
                    steps: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['position', 'type', 'recorded_at'],
                        properties: { position: { type: 'integer' }, type: { type: 'string' }, recorded_at: { type: 'string', format: 'date-time' } },
                        additionalProperties: true,
                      },
                    },
                  },
                },
              ],
            },
            'The run',
          ),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key or signature'),
          '404': json(ref('ErrorResponse'), "No such run in this workspace (for a trigger's message_id, the detail says where its runs are)"),
        },
      },
    },
    '/v1/broadcast_run/cancel/': {
      post: {
        operationId: 'cancelBroadcastRuns',
        summary: "Cancel the running member runs of broadcasts matching every given filter (members not yet fanned out are not stopped)",
        requestBody: schemaRequestBody(BroadcastCancelFiltersSchema),
        responses: {
          '200': json({ type: 'object', required: ['execution_ids'], properties: { execution_ids: strings } }, 'The broadcasts whose runs were cancelled (empty when none matched)'),
          '400': json({ anyOf: [ref('ErrorResponse'), ref('ShortError')] }, 'No filter, or a filter of the wrong type'),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key or signature'),
        },
      },
    },
    '/v1/template/': {
      get: {
        operationId: 'listLiveTemplates',
        summary: 'Committed templates as the engine knows them (reference fetch-template-list), offset-paged',
        parameters: [
          query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 20 }, 'Page size'),
          query('offset', { type: 'integer', minimum: 0, default: 0 }, 'Templates to skip'),
          query('has_channels_any', { type: 'string' }, 'Comma-separated channels: templates enabling any of them'),
          query('is_active', { type: 'boolean' }, 'Templates with (true) or without (false) a live channel'),
          query('is_archived', { type: 'boolean' }, 'Herald archives nothing: true finds none'),
        ],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['meta', 'results'],
              properties: {
                meta: { type: 'object', required: ['count', 'limit', 'offset'], properties: { count: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } } },
                results: { type: 'array', items: ref('LiveTemplate') },
              },
            },
            'A page of templates',
          ),
          '400': json(ref('ErrorResponse'), 'A query parameter of the wrong type, by name'),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key or signature'),
        },
      },
    },
    '/v1/template/{template_slug}/': {
      get: {
        operationId: 'getLiveTemplate',
        summary: 'One committed template (reference fetch-template-details)',
        parameters: [{ in: 'path', name: 'template_slug', required: true, schema: { type: 'string' } }],
        responses: {
          '200': json(ref('LiveTemplate'), 'The template'),
          '400': json(ref('ErrorResponse'), 'A bad template_slug'),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key or signature'),
          '404': json(ref('ErrorResponse'), 'No committed template with this slug'),
        },
      },
    },
    '/v1/template/{template_slug}/channel/{channel_slug}/': {
      get: {
        operationId: 'getLiveTemplateChannel',
        summary: "One channel of a committed template with its live variants' content (reference fetch-template-details-channel)",
        parameters: [
          { in: 'path', name: 'template_slug', required: true, schema: { type: 'string' } },
          { in: 'path', name: 'channel_slug', required: true, schema: { type: 'string' } },
        ],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['channel', 'is_active', 'is_enabled', 'versions'],
              properties: {
                channel: { type: 'object', properties: { name: { type: 'string' }, slug: { type: 'string' }, is_template_approval_needed: { type: 'boolean' } } },
                is_active: { type: 'boolean' },
                is_enabled: { type: 'boolean' },
                created_at: { type: 'string', format: 'date-time' },
                updated_at: { type: 'string', format: 'date-time' },
                disabled_languages: strings,
                versions: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      status: { type: 'string' },
                      version_tag: { type: 'string' },
                      created_at: { type: 'string', format: 'date-time' },
                      updated_at: { type: 'string', format: 'date-time' },
                      published_languages: strings,
                      templates: {
                        type: 'array',
                        items: {
                          type: 'object',
                          properties: {
                            language: { type: 'object', properties: { name: { type: 'string' }, slug: { type: 'string' } } },
                            is_enabled: { type: 'boolean' },
                            approval_status: { type: 'string' },
                            content: { type: 'object' },
                            created_at: { type: 'string', format: 'date-time' },
                            updated_at: { type: 'string', format: 'date-time' },
                            approval_cycle: { type: 'null' },
                            is_approval_needed: { type: 'boolean' },
                            is_cloned_from_last_version: { type: 'boolean' },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
            'The channel',
          ),
          '400': json(ref('ErrorResponse'), 'A bad path parameter'),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key or signature'),
          '404': json(ref('ErrorResponse'), 'No committed template with this slug, or no such channel in it'),
        },
      },
    },
    '/v1/message/': {
      get: {
        operationId: 'listMessages',
        summary: 'The message log, newest first',
        parameters: [
          query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 10 }, 'Page size'),
          query('after', { type: 'string' }, 'Cursor of the next (older) page; wins over before'),
          query('before', { type: 'string' }, 'Cursor of the previous (newer) page'),
          { ...query('status[]', { type: 'array', items: { type: 'string', enum: ['triggered', 'delivery_failed', 'delivered', 'seen', 'clicked', 'sent_by_vendor', 'delivery_failure', 'not_sent', 'bounced', 'complained'] } }, 'Statuses, ORed: a derived status of the reference, or a stored status as a row shows it'), style: 'form', explode: true },
          query('channel', { type: 'string' }, 'Channel'),
          { ...query('recipient_id[]', strings, 'Recipient distinct_ids, ORed'), style: 'form', explode: true },
          { ...query('category[]', strings, 'Categories, ORed'), style: 'form', explode: true },
          query('created_at_gte', { type: 'string', format: 'date-time' }, 'Lower bound, inclusive'),
          query('created_at_lte', { type: 'string', format: 'date-time' }, 'Upper bound, inclusive'),
          query('workflow_slug', { type: 'string' }, 'Workflow'),
          query('execution_id', { type: 'string' }, 'Run'),
          query('idempotency_key', { type: 'string' }, 'The trigger\'s $idempotency_key'),
          query('message_id', { type: 'string' }, "A message's own id, or the trigger's message_id as POST /trigger/ answered it (all of its messages)"),
          query('tenant_id', { type: 'string' }, 'Tenant'),
        ],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['meta', 'results'],
              properties: {
                meta: ref('CursorMeta'),
                results: { type: 'array', items: ref('Message') },
              },
            },
            'A page of messages',
          ),
          '400': json(ref('ErrorResponse'), 'Invalid filter or cursor: every failing parameter in `detail`'),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key or signature'),
        },
      },
    },
    '/v1/message/stats/': {
      get: {
        operationId: 'messageStats',
        summary: "Herald's own: the message log counted over a window (sent, delivered, failed, skipped by reason), per channel, vendor and workflow, and per hour or day",
        parameters: [
          query('bucket', { type: 'string', enum: ['hour', 'day'], default: 'hour' }, 'Length of each entry of `series`'),
          query('created_at_gte', { type: 'string', format: 'date-time' }, 'Window start, inclusive (default: 24 buckets before its end by the hour, 30 by the day)'),
          query('created_at_lte', { type: 'string', format: 'date-time' }, 'Window end, inclusive (default: now); at most 744 buckets in the window'),
          query('channel', { type: 'string' }, 'Only this channel'),
          query('workflow_slug', { type: 'string' }, 'Only this workflow'),
        ],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['meta', 'totals', 'skipped_by_reason', 'failed_by_reason', 'by_channel', 'by_vendor', 'by_workflow', 'series'],
              properties: {
                meta: {
                  type: 'object',
                  required: ['bucket', 'from', 'to', 'channel', 'workflow_slug'],
                  properties: {
                    bucket: { type: 'string', enum: ['hour', 'day'] },
                    from: { type: 'string', format: 'date-time' },
                    to: { type: 'string', format: 'date-time' },
                    channel: { type: ['string', 'null'] },
                    workflow_slug: { type: ['string', 'null'] },
                  },
                },
                totals: ref('MessageCounts'),
                skipped_by_reason: { type: 'array', items: ref('ReasonCount'), description: 'not_sent messages by the reason before the colon of failure_reason (preference, no identity, ...), most frequent first, at most 20' },
                failed_by_reason: { type: 'array', items: ref('ReasonCount'), description: 'Failed messages by failure_reason, most frequent first, at most 20' },
                by_channel: { type: 'array', items: { allOf: [ref('MessageCounts'), { type: 'object', required: ['channel'], properties: { channel: { type: 'string' } } }] } },
                by_vendor: {
                  type: 'array',
                  description: 'By the vendor that sent the message, or was tried last when it failed; null for messages no vendor was tried for (skipped, in flight)',
                  items: { allOf: [ref('MessageCounts'), { type: 'object', required: ['vendor'], properties: { vendor: { type: ['string', 'null'] } } }] },
                },
                by_workflow: { type: 'array', description: 'The 50 workflows with the most messages', items: { allOf: [ref('MessageCounts'), { type: 'object', required: ['workflow_slug'], properties: { workflow_slug: { type: 'string' } } }] } },
                series: {
                  type: 'array',
                  description: 'Every bucket of the window by its start (UTC), oldest first, zeros included',
                  items: { allOf: [ref('MessageCounts'), { type: 'object', required: ['start'], properties: { start: { type: 'string', format: 'date-time' } } }] },
                },
              },
            },
            'The counts',
          ),
          '400': json(ref('ErrorResponse'), 'Invalid parameter (or a window of more than 744 buckets): every failing parameter in `detail`'),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key or signature'),
        },
      },
    },
    '/v1/bulk/message/': {
      patch: {
        operationId: 'bulkUpdateMessages',
        summary: 'Marks messages seen, read (recorded as seen) or clicked, as the inbox reports them; statuses only move forward',
        requestBody: schemaRequestBody(BulkMessageUpdateSchema),
        responses: {
          '202': json(
            {
              type: 'object',
              required: ['records'],
              properties: {
                records: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['message_id', 'status_code', 'error'],
                    properties: {
                      message_id: { type: 'string' },
                      status_code: { type: 'integer' },
                      error: { oneOf: [{ type: 'null' }, { type: 'object', required: ['type', 'message'], properties: { type: { type: 'string' }, message: { type: 'string' } } }] },
                    },
                  },
                },
              },
            },
            'A result per message, in order: 202, 404 (not found) or 400 (unsupported action)',
          ),
          '400': json(ref('ErrorResponse'), 'Invalid body: every failing field in `detail`'),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key or signature'),
        },
      },
    },
  } as Record<string, Record<string, unknown>>,
  components: {
    securitySchemes: PUBLIC_API_SHARED.securitySchemes,
    schemas: {
      ...PUBLIC_API_SHARED.schemas,
      ...engineSchemas.openApiComponents(),
      MessageCounts: {
        type: 'object',
        description: "Messages by their current status, as a funnel: sent went out to a vendor (delivered, seen, clicked, bounced, complained included), delivered reached the recipient, failed will not (delivery_failure, bounced), skipped was never sent (not_sent), in_flight is still being sent (retrying: waiting for its next attempt)",
        required: ['total', 'sent', 'delivered', 'seen', 'clicked', 'failed', 'skipped', 'in_flight', 'retrying'],
        properties: Object.fromEntries(['total', 'sent', 'delivered', 'seen', 'clicked', 'failed', 'skipped', 'in_flight', 'retrying'].map((name) => [name, { type: 'integer', minimum: 0 }])),
      },
      ReasonCount: { type: 'object', required: ['reason', 'count'], properties: { reason: { type: 'string' }, count: { type: 'integer', minimum: 1 } } },
      LiveTemplate: {
        type: 'object',
        required: ['name', 'slug', 'is_active', 'channels'],
        properties: {
          name: { type: 'string' },
          slug: { type: 'string' },
          description: { type: ['string', 'null'] },
          is_active: { type: 'boolean' },
          default_language: { type: 'object', properties: { name: { type: 'string' }, slug: { type: 'string' } } },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
          is_auto_translate_enabled: { type: 'boolean' },
          enabled_languages: strings,
          tags: strings,
          channels: {
            type: 'array',
            items: {
              type: 'object',
              properties: { channel: { type: 'object', properties: { name: { type: 'string' }, slug: { type: 'string' } } }, is_active: { type: 'boolean' }, is_enabled: { type: 'boolean' }, languages: strings },
            },
          },
        },
      },
      RunSummary: {
        type: 'object',
        required: ['execution_id', 'message_id', 'status', 'reason', 'workflow', 'recipient', 'started_at', 'updated_at'],
        properties: {
          execution_id: { type: 'string' },
          message_id: { type: 'string', description: "The trigger's message_id" },
          status: { type: 'string', enum: RUN_STATUSES },
          reason: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Why the run ended without finishing its tree: failed, discarded (conditions_not_met, rate_limited) or cancelled' },
          workflow: { type: 'object', required: ['slug', 'version'], properties: { slug: { type: 'string' }, version: { type: 'integer' } } },
          recipient: recipientRef,
          tenant_id: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          idempotency_key: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          started_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
        },
      },
      RunMessage: {
        type: 'object',
        required: ['message_id', 'channel', 'status', 'failure_reason', 'attempts'],
        properties: {
          message_id: { type: 'string' },
          node: { type: 'string' },
          channel: { type: 'string' },
          template: { type: 'string' },
          status: { type: 'string', enum: MESSAGE_STATUSES },
          failure_reason: { type: 'string', description: 'Why it failed, or (not_sent) why the channel was skipped' },
          warnings: messageWarnings,
          attempts: { type: 'integer' },
          next_attempt_at: nullableTime,
          vendor: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          created_at: nullableTime,
          triggered_at: nullableTime,
          delivered_at: nullableTime,
        },
      },
      Message: {
        type: 'object',
        required: [
          'message_id',
          'created_at',
          'updated_at',
          'triggered_at',
          'delivered_at',
          'seen_at',
          'clicked_at',
          'status',
          'trigger_message_id',
          'attempts',
          'next_attempt_at',
          'channel',
          'idempotency_key',
          'failure_reason',
          'warnings',
          'recipient',
          'vendor',
          'execution_id',
          'is_campaign',
          'tenant_id',
          'workflow',
          'template',
          'channel_identity',
          'category',
        ],
        properties: {
          message_id: { type: 'string' },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
          triggered_at: nullableTime,
          delivered_at: nullableTime,
          seen_at: nullableTime,
          clicked_at: nullableTime,
          status: { type: 'string', enum: MESSAGE_STATUSES },
          trigger_message_id: { type: 'string', description: "The message_id POST /trigger/ answered" },
          attempts: { type: 'integer', description: 'Delivery attempts so far (0 before the first outcome)' },
          next_attempt_at: { ...nullableTime, description: 'While the dispatcher retries: when it tries again' },
          channel: { type: 'string' },
          idempotency_key: { type: 'string' },
          failure_reason: { type: 'string' },
          warnings: messageWarnings,
          recipient: recipientRef,
          vendor: {
            anyOf: [{ type: 'object', required: ['name', 'nickname'], properties: { name: { type: 'string' }, nickname: { type: 'string', description: 'The vendor as configured' } } }, { type: 'null' }],
          },
          execution_id: { type: 'string' },
          is_campaign: { type: 'boolean' },
          tenant_id: { type: 'string' },
          workflow: { type: 'object', required: ['slug', 'version_id', 'node_ref'], properties: { slug: { type: 'string' }, version_id: { type: 'string' }, node_ref: { type: 'string' } } },
          template: { type: 'object', required: ['slug'], properties: { slug: { type: 'string' } } },
          channel_identity: { type: 'object' },
          category: { type: 'string' },
        },
      },
    },
  },
};
