/**
 * channel-dispatchers' part of `{base_url}/openapi.json`: the inbox a recipient's client
 * reads and marks (decisions.md "Notification API", Inbox). Authenticated by an API key
 * of the workspace (a backend, any recipient), or by a public key and a user token (a
 * browser, the token's recipient alone).
 */
import { PUBLIC_API_SHARED } from '@herald/runtime';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema, description: string): Schema => ({ description, content: { 'application/json': { schema } } });
const nullableTime: Schema = { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] };
const nullableString: Schema = { anyOf: [{ type: 'string' }, { type: 'null' }] };
const query = (name: string, schema: Schema, description: string): Schema => ({ in: 'query', name, required: false, schema, description });
const distinctId: Schema = { in: 'path', name: 'distinct_id', required: true, schema: { type: 'string' }, description: 'The recipient' };
const inboxCallers = [{ BearerAuth: [] }, { InboxPublicKey: [], InboxUserToken: [] }];
const refusals = {
  '401': json(ref('ErrorResponse'), 'Missing or invalid API key, public key or user token (unknown, expired, wrongly signed)'),
  '403': json(ref('ErrorResponse'), "A user token for another recipient, or an origin the public key does not allow"),
};

export const dispatchOpenApi = {
  security: PUBLIC_API_SHARED.security,
  paths: {
    '/v1/user/{distinct_id}/inbox/': {
      get: {
        operationId: 'listInboxMessages',
        summary: "The recipient's inbox messages, newest first, with the unseen and unread counts",
        security: inboxCallers,
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
                meta: ref('InboxListMeta'),
                results: { type: 'array', items: ref('InboxMessage') },
              },
            },
            'A page of inbox messages',
          ),
          '400': json(ref('ErrorResponse'), 'Invalid limit or cursor: every failing parameter in `detail`'),
          ...refusals,
        },
      },
    },
    '/v1/user/{distinct_id}/inbox/stream/': {
      get: {
        operationId: 'streamInboxMessages',
        summary: "Server-sent events of the recipient's inbox: `ready` (the counts), then `item` (a new message) and `update` (a changed one), and `ping`",
        description:
          'For a browser only (403 with an API key). An EventSource cannot set headers: a browser may pass the public key and the user token as the `public_key` and `token` query parameters. The stream ends when the user token expires; reconnect with a new one.',
        security: [{ InboxPublicKey: [], InboxUserToken: [] }],
        parameters: [
          distinctId,
          query('public_key', { type: 'string' }, 'The public key, when it cannot be sent in Authorization'),
          query('token', { type: 'string' }, 'The user token, when it cannot be sent in x-ss-signature'),
        ],
        responses: {
          '200': { description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...refusals,
          '403': json(ref('ErrorResponse'), 'An API key (the stream is for a browser), a user token for another recipient, or an origin the public key does not allow'),
          '429': json(ref('ErrorResponse'), 'Too many open streams for this recipient or key'),
        },
      },
    },
    '/v1/user/{distinct_id}/inbox/{id}/': {
      patch: {
        operationId: 'updateInboxMessage',
        summary: 'Set or clear seen, read and archived, or record a click; the first seen and the first click are reported to the run as delivery outcomes',
        security: inboxCallers,
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
          ...refusals,
          '404': json(ref('ErrorResponse'), "No such message in this recipient's inbox"),
        },
      },
    },
  } as Record<string, Record<string, unknown>>,
  components: {
    securitySchemes: {
      ...PUBLIC_API_SHARED.securitySchemes,
      InboxPublicKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'A workspace public key (`SS.PUBK.…`), as SuprSend\'s web SDK sends it' },
      InboxUserToken: {
        type: 'apiKey',
        in: 'header',
        name: 'x-ss-signature',
        description: 'An ES256 JWT signed with the workspace signing key by the customer backend: `distinct_id`, optional `tenant_id`, `iat`, `exp`',
      },
    },
    schemas: {
      ...PUBLIC_API_SHARED.schemas,
      InboxListMeta: {
        type: 'object',
        required: ['unseen_count', 'unread_count', 'limit', 'count', 'before', 'after', 'has_prev', 'has_next'],
        additionalProperties: false,
        properties: {
          unseen_count: { type: 'integer', description: 'Messages not seen yet (archived ones aside)' },
          unread_count: { type: 'integer', description: 'Messages not read yet (archived ones aside)' },
          limit: { type: 'integer' },
          count: { type: 'integer' },
          before: { type: ['string', 'null'], description: 'Cursor of the previous page; null when there is none' },
          after: { type: ['string', 'null'], description: 'Cursor of the next page; null when there is none' },
          has_prev: { type: 'boolean' },
          has_next: { type: 'boolean' },
        },
      },
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
