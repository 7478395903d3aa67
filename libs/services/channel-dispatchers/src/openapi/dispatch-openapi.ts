/**
 * channel-dispatchers' part of `{base_url}/openapi.json`: the inbox a recipient's client
 * reads and marks (decisions.md "Notification API", Inbox). Authenticated by an API key
 * of the workspace.
 */
import { PUBLIC_API_SHARED } from '@herald/runtime';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema, description: string): Schema => ({ description, content: { 'application/json': { schema } } });
const nullableTime: Schema = { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] };
const nullableString: Schema = { anyOf: [{ type: 'string' }, { type: 'null' }] };
const query = (name: string, schema: Schema, description: string): Schema => ({ in: 'query', name, required: false, schema, description });
const distinctId: Schema = { in: 'path', name: 'distinct_id', required: true, schema: { type: 'string' }, description: 'The recipient' };
const bearerOnly = [{ BearerAuth: [] }];

export const dispatchOpenApi = {
  security: PUBLIC_API_SHARED.security,
  paths: {
    '/v1/user/{distinct_id}/inbox/': {
      get: {
        operationId: 'listInboxMessages',
        summary: "The recipient's inbox messages, newest first",
        security: bearerOnly,
        parameters: [
          distinctId,
          query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 20 }, 'Page size'),
          query('after', { type: 'string' }, 'Cursor of the next (older) page'),
          query('before', { type: 'string' }, 'Cursor of the previous (newer) page; not with after'),
        ],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['meta', 'results'],
              properties: {
                meta: ref('CursorMeta'),
                results: { type: 'array', items: ref('InboxMessage') },
              },
            },
            'A page of inbox messages',
          ),
          '400': json(ref('ErrorResponse'), 'Invalid limit or cursor: every failing parameter in `detail`'),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key'),
        },
      },
    },
    '/v1/user/{distinct_id}/inbox/{id}/': {
      patch: {
        operationId: 'updateInboxMessage',
        summary: 'Set or clear seen, read and archived, or record a click; the first seen and the first click are reported to the run as delivery outcomes',
        security: bearerOnly,
        parameters: [distinctId, { in: 'path', name: 'id', required: true, schema: { type: 'string', format: 'uuid' } }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                minProperties: 1,
                additionalProperties: false,
                properties: {
                  seen: { type: 'boolean' },
                  read: { type: 'boolean', description: 'true also marks the message seen' },
                  archived: { type: 'boolean' },
                  clicked: { type: 'boolean', enum: [true], description: 'The recipient clicked the message; also marks it seen' },
                },
              },
            },
          },
        },
        responses: {
          '200': json(ref('InboxMessage'), 'The message as updated'),
          '400': json(ref('ErrorResponse'), 'Not an inbox update: every failing field in `detail`'),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key'),
          '404': json(ref('ErrorResponse'), "No such message in this recipient's inbox"),
        },
      },
    },
  } as Record<string, Record<string, unknown>>,
  components: {
    securitySchemes: PUBLIC_API_SHARED.securitySchemes,
    schemas: {
      ...PUBLIC_API_SHARED.schemas,
      InboxMessage: {
        type: 'object',
        required: ['id', 'created_at', 'title', 'body', 'avatar', 'action_url', 'seen_at', 'read_at', 'archived_at', 'clicked_at'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', format: 'uuid' },
          created_at: { type: 'string', format: 'date-time' },
          title: nullableString,
          body: { type: 'string' },
          avatar: nullableString,
          action_url: nullableString,
          seen_at: nullableTime,
          read_at: nullableTime,
          archived_at: nullableTime,
          clicked_at: nullableTime,
        },
      },
    },
  },
};
