/**
 * `@suprsend/js-inbox` 2.x's protocol (under `@suprsend/react-inbox` 3.x), served at
 * `{base_url}/js-inbox/` (http/js-inbox.controller.ts): part of channel-dispatchers'
 * OpenAPI fragment (dispatch-openapi.ts). A browser's only; errors in the browser SDKs' shape.
 */
import { schemaRequestBody } from '@herald/runtime';
import { JsInboxActionSchema, JsInboxClickSchema, JsInboxUserSchema } from '../http/dispatch-schemas';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema, description: string): Schema => ({ description, content: { 'application/json': { schema } } });
const sdkError = (description: string): Schema => json(ref('SdkErrorResponse'), description);
const query = (name: string, schema: Schema, description: string, required = false): Schema => ({ in: 'query', name, required, schema, description });
const nId: Schema = { in: 'path', name: 'n_id', required: true, schema: { type: 'string' } };
const security = [{ JsInboxWorkspaceKey: [] }];
const refusals = {
  '400': sdkError('Invalid parameter or body: every failing one by its path in `error.message`'),
  '401': sdkError('Missing or unknown workspace key, or a subscriber_id that is not the HMAC of distinct_id under its secret'),
  '403': sdkError("An origin none of the workspace's public keys allows"),
};
const userQuery: Schema[] = [
  query('distinct_id', { type: 'string' }, 'The user', true),
  query('subscriber_id', { type: 'string' }, "base64url(HMAC-SHA256(workspace secret, distinct_id)), unpadded: made by the customer's backend", true),
  query('tenant_id', { type: 'string' }, 'The tenant whose messages (the SDK sends `default`)'),
];
const operation = (operationId: string, summary: string, parameters: Schema[], ok: Schema, extra: Record<string, Schema> = {}, status = '200'): Schema => ({
  operationId,
  summary,
  security,
  parameters,
  responses: { [status]: ok, ...refusals, ...extra },
});
const notFound = { '404': sdkError("No such message in this user's inbox") };
const item = json({ type: 'object', required: ['data'], properties: { data: ref('JsInboxNotification') } }, 'The message');

export function jsInboxPaths(): Record<string, Record<string, unknown>> {
  return {
    '/js-inbox/notifications/': {
      get: {
        ...operation(
          'listJsInboxNotifications',
          "The user's messages stored before `before`, newest first, page by page, in one store",
          [
            ...userQuery,
            query('page_no', { type: 'integer', minimum: 1, default: 1 }, 'Page number, from 1'),
            query('page_size', { type: 'integer', minimum: 1, maximum: 50, default: 20 }, 'Page size'),
            query('before', { type: 'integer' }, 'ms since the epoch: the time of the first fetch, so pages do not shift'),
            query('store', { type: 'string' }, 'JSON `{store_id, query: {read, archived, tags: {or}, categories: {or}}}`; absent: every message not archived'),
          ],
          json(
            {
              type: 'object',
              required: ['results', 'meta'],
              properties: {
                results: { type: 'array', items: ref('JsInboxNotification') },
                meta: {
                  type: 'object',
                  required: ['current_page', 'total_pages', 'total_count', 'page_size'],
                  properties: { current_page: { type: 'integer' }, total_pages: { type: 'integer' }, total_count: { type: 'integer' }, page_size: { type: 'integer' } },
                },
              },
            },
            'A page',
          ),
        ),
        // socket.io is no HTTP route OpenAPI can describe: its contract is told here and in docs/sdk-compatibility.md.
        description:
          'Realtime: the SDK connects socket.io v4 over WebSocket to the namespace `/js-inbox` at `/socket.io/` on this host (its `socketHost` is `{base_url}/js-inbox`), authenticated by its connect payload `{authorization: <workspace_key>:…, distinct_id, subscriber_id, tenant_id}` as these routes are, and hears `new_notification` and `notification_updated` (`{n_id}`, `type: archive` for an archived message), `mark_all_read` and `update_badge`.',
      },
    },
    '/js-inbox/notification_count/': {
      get: operation(
        'countJsInboxNotifications',
        'The bell count (unseen messages since the bell was last opened) and, per store, its unread messages',
        [...userQuery, query('stores', { type: 'string' }, 'JSON array of stores, as in `store`')],
        json({ type: 'object', required: ['ss_bell_count'], additionalProperties: { type: 'integer' }, properties: { ss_bell_count: { type: 'integer' } } }, '`{ss_bell_count, <store_id>: n}`'),
      ),
    },
    '/js-inbox/notification/{n_id}/': {
      get: operation('getJsInboxNotification', 'One message', [nId, ...userQuery], item, notFound),
    },
    '/js-inbox/notification/{n_id}/action': {
      post: {
        ...operation('actOnJsInboxNotification', '`read`, `unread` or `archive`', [nId], item, notFound),
        requestBody: schemaRequestBody(JsInboxActionSchema),
      },
    },
    '/js-inbox/bell-clicked/': {
      post: {
        ...operation('jsInboxBellClicked', 'The bell was opened: the bell count counts messages stored from now on', [], json({ type: 'object', required: ['ss_bell_count'], properties: { ss_bell_count: { const: 0 } } }, 'Reset')),
        requestBody: schemaRequestBody(JsInboxUserSchema),
      },
    },
    '/js-inbox/mark-all-read/': {
      post: {
        ...operation('jsInboxMarkAllRead', 'Marks every unread message read', [], json({ type: 'object', required: ['updated'], properties: { updated: { type: 'integer' } } }, 'How many were marked')),
        requestBody: schemaRequestBody(JsInboxUserSchema),
      },
    },
    '/js-inbox/event/': {
      post: {
        ...operation(
          'jsInboxNotificationClicked',
          "The SDK's click (`collectorHost`): the message of the key's workspace marked clicked and read, reported to the run as the inbox reports it",
          [],
          json({ type: 'object', required: ['message'], properties: { message: { const: 'OK' } } }, 'Recorded'),
          notFound,
          '202',
        ),
        requestBody: schemaRequestBody(JsInboxClickSchema),
      },
    },
  };
}

export const JS_INBOX_SECURITY_SCHEMES = {
  JsInboxWorkspaceKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`<workspace_key>:<anything>`, as `@suprsend/js-inbox` sends it; the user is proven by `subscriber_id` in the query or body',
  },
};

export const JS_INBOX_SCHEMAS = {
  /** The feed's message with `seen_on` the time it was read (this protocol's "seen"). */
  JsInboxNotification: {
    type: 'object',
    required: ['n_id', 'n_category', 'created_on', 'seen_on', 'interacted_on', 'archived', 'tags', 'expiry', 'is_expiry_visible', 'is_pinned', 'message'],
    properties: {
      n_id: { type: 'string' },
      n_category: { type: ['string', 'null'] },
      created_on: { type: 'integer', description: 'ms since the epoch' },
      seen_on: { type: ['integer', 'null'], description: 'When it was read (ms), or null' },
      interacted_on: { type: ['integer', 'null'] },
      archived: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      expiry: { type: ['integer', 'null'] },
      is_expiry_visible: { type: 'boolean' },
      is_pinned: { type: 'boolean' },
      message: { type: 'object', required: ['text'], properties: { header: { type: ['string', 'null'] }, text: { type: 'string' }, url: { type: ['string', 'null'] } } },
    },
  },
};
