/**
 * channel-dispatchers' part of `{base_url}/openapi.json`: the inbox a recipient's client
 * reads and marks (decisions.md "Notification API", Inbox). Authenticated by an API key
 * of the workspace (a backend, any recipient), or by a public key and a user token (a
 * browser, the token's recipient alone).
 */
import { openApiSchemaOf } from '@herald/contracts';
import { BROWSER_SDK_OPENAPI, PUBLIC_API_SHARED, schemaRequestBody } from '@herald/runtime';
import { FeedNotificationsSeenSchema, InboxMessageUpdateSchema, VENDOR_CALLBACK_FORM, VendorCallbackSchema, dispatchSchemas } from '../http/dispatch-schemas';
import { JS_INBOX_SCHEMAS, JS_INBOX_SECURITY_SCHEMES, jsInboxPaths } from './js-inbox-openapi';

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

/** SuprSend's feed API (`/v1/feed/`), as its web SDK 4.x calls it: a browser's only; errors in the SDK's shape. */
const sdkError = (description: string): Schema => json(ref('SdkErrorResponse'), description);
const feedUser: Schema[] = [
  { in: 'query', name: 'distinct_id', required: true, schema: { type: 'string' }, description: "The signed-in user: the token's" },
  query('tenant_id', { type: 'string' }, "The tenant whose messages (the SDK sends `default`); a token's tenant allows no other"),
];
const feedRefusals = {
  '400': sdkError('Invalid parameter or body: every failing one by its path in `error.message`'),
  '401': sdkError('Missing or invalid public key or user token'),
  '403': sdkError("Another user or tenant than the token's, or an origin the public key does not allow"),
};
const nId: Schema = { in: 'path', name: 'n_id', required: true, schema: { type: 'string' } };
const feedOperation = (operationId: string, summary: string, parameters: Schema[], ok: Schema, extra: Record<string, Schema> = {}): Schema => ({
  operationId,
  summary,
  security: BROWSER_SDK_OPENAPI.security,
  parameters: [...feedUser, ...parameters],
  responses: { '200': ok, ...feedRefusals, ...extra },
});
const notFound = { '404': sdkError("No such message in this user's feed") };
function feedPaths(): Record<string, Record<string, unknown>> {
  return {
    '/v1/feed/notifications': {
      get: {
        ...feedOperation(
          'listFeedNotifications',
          "The user's messages, pinned ones first (until read), then newest first, a page at a time, in one store; expired messages are left out",
          [
            query('page_size', { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'Page size'),
            query('search_after', { type: 'string' }, 'JSON `[is_pinned, created_on]` of the last message of the previous page, or `[]`'),
            query('store', { type: 'string' }, 'JSON `{store_id, query: {read, archived, tags: {or}, categories: {or}}}`; absent: every message not archived'),
          ],
          json(
            {
              type: 'object',
              required: ['results', 'meta'],
              properties: {
                results: { type: 'array', items: ref('FeedNotification') },
                meta: { type: 'object', required: ['total_count', 'has_more'], properties: { total_count: { type: 'integer' }, has_more: { type: 'boolean' } } },
              },
            },
            'A page',
          ),
        ),
        // socket.io is no HTTP route OpenAPI can describe: its contract is told here and in docs/sdk-compatibility.md.
        description:
          "Realtime: the SDK's `feed.initializeSocketConnection()` connects socket.io v4 over WebSocket to `/socket.io/` on this host, authenticated by its connect payload `{authorization: <public key>, x-ss-signature: <user token>, distinct_id, tenant_id}` as these routes are, and hears `new_notification` and `notification_update` (`{n_id}`), `bulk_notification_update` (`{action: seen, notification_ids}` or `{action: read, notification_ids: all}`) and `reset_badge`. A refusal is a `connect_error`; any token problem reads `Authentication Error: wrong auth token`.",
      },
    },
    '/v1/feed/notifications_count': {
      get: feedOperation(
        'countFeedNotifications',
        'The badge (unseen messages since the last reset) and, per store, its unread messages',
        [query('stores', { type: 'string' }, 'JSON array of stores, as in `store`')],
        json({ type: 'object', required: ['badge'], additionalProperties: { type: 'integer' }, properties: { badge: { type: 'integer' } } }, '`{badge, <store_id>: n}`'),
      ),
    },
    '/v1/feed/notifications/{n_id}': {
      get: feedOperation('getFeedNotification', 'One message', [nId], json(ref('FeedNotification'), 'The message'), notFound),
    },
    '/v1/feed/notifications/{n_id}/{mark}': {
      patch: feedOperation(
        'markFeedNotification',
        '`seen`, `read`, `unread`, `interacted` (clicked, and read) or `archive`; reported to the run as the inbox reports it',
        [nId, { in: 'path', name: 'mark', required: true, schema: { type: 'string', enum: ['seen', 'read', 'unread', 'interacted', 'archive'] } }],
        json(ref('FeedNotification'), 'The message as it is now'),
        notFound,
      ),
    },
    '/v1/feed/bulk/notifications/seen': {
      post: {
        ...feedOperation(
          'markFeedNotificationsSeen',
          "Marks each message seen; ids that are not the user's are skipped",
          [],
          json({ type: 'object', required: ['notification_ids'], properties: { notification_ids: { type: 'array', items: { type: 'string' } } } }, 'The ids marked'),
        ),
        requestBody: schemaRequestBody(FeedNotificationsSeenSchema),
      },
    },
    '/v1/feed/mark_all_read': {
      patch: feedOperation('markAllFeedNotificationsRead', 'Marks every unread message read', [], json({ type: 'object', required: ['updated'], properties: { updated: { type: 'integer' } } }, 'How many were marked')),
    },
    '/v1/feed/reset_bell_count': {
      patch: feedOperation('resetFeedBadge', 'The bell was opened: the badge counts messages stored from now on', [], json({ type: 'object', required: ['badge'], properties: { badge: { const: 0 } } }, 'Reset')),
    },
  };
}
/**
 * Vendors' status callbacks: no Herald credential, each request verified as its vendor
 * signs it (docs/reference.md, Vendor status callbacks). The body is the vendor's own
 * (JSON, a form, or SNS's text/plain JSON).
 */
function vendorCallbackPaths(): Record<string, Record<string, unknown>> {
  const vendorId: Schema = { in: 'path', name: 'vendor_id', required: true, schema: { type: 'string', format: 'uuid' }, description: "The vendor configuration's id (management API)" };
  const refused = (description: string): Schema => json({ type: 'object', required: ['message'], properties: { code: { type: 'integer' }, error_code: { type: 'string' }, message: { type: 'string' } } }, description);
  const answers = {
    '200': json({ type: 'object', properties: { received: { type: 'integer' }, recorded: { type: 'integer', description: 'Statuses recorded now (a retry records none)' }, confirmed: { type: 'boolean' } } }, 'Read'),
    '400': refused('Signed, but not the vendor\'s shape'),
    '401': refused('Unsigned or forged: nothing recorded'),
    '403': refused('The vendor configuration has no callback credentials, or another SNS topic'),
    '404': refused('No such vendor configuration, or a vendor without status callbacks'),
  };
  return {
    '/v1/vendor-callbacks/{vendor_id}/': {
      post: {
        operationId: 'receiveVendorCallback',
        summary: "A vendor's status callback: SendGrid, SES (SNS), Mailgun, Postmark, Resend, Twilio, Vonage, WhatsApp Cloud",
        security: [],
        parameters: [vendorId],
        requestBody: {
          required: false,
          content: {
            'application/json': { schema: openApiSchemaOf(VendorCallbackSchema) },
            'application/x-www-form-urlencoded': { schema: VENDOR_CALLBACK_FORM },
            'text/plain': { schema: { type: 'string', description: 'SES through SNS: the SNS message as JSON text' } },
          },
        },
        responses: answers,
      },
      get: {
        operationId: 'verifyVendorCallback',
        summary: "Meta's verify-token handshake (answers hub.challenge as text), or a Vonage receipt sent as GET",
        security: [],
        parameters: [vendorId, query('hub.mode', { type: 'string' }, 'subscribe'), query('hub.verify_token', { type: 'string' }, 'The configured verify_token'), query('hub.challenge', { type: 'string' }, 'Echoed')],
        responses: { ...answers, '200': { description: 'hub.challenge (text), or the receipt read', content: { 'text/plain': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  };
}

/**
 * Email engagement (README, Engagement tracking and unsubscribe): the open pixel and the
 * tracked links of emails, at HERALD_PUBLIC_URL. No credential: the signed token in the
 * path (the delivery and the link's index) is the whole authority.
 */
function engagementPaths(): Record<string, Record<string, unknown>> {
  const token = (kind: string): Schema => ({ in: 'path', name: 'token', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_.-]+$' }, description: `The ${kind} token Herald wrote into the email` });
  const unknown = json({ type: 'object', required: ['message'], properties: { code: { const: 404 }, error_code: { const: 'not_found' }, message: { type: 'string' } } }, 'A forged token, a delivery Herald does not hold, or a link index the email did not have: nothing recorded, no redirect');
  return {
    '/v1/engagement/open/{token}': {
      get: {
        operationId: 'emailOpened',
        summary: "An email's open pixel: records the delivery `seen` (once), answers a 1x1 GIF",
        security: [],
        parameters: [token('open pixel')],
        responses: { '200': { description: 'A transparent 1x1 GIF (Cache-Control: no-store)', content: { 'image/gif': { schema: { type: 'string', format: 'binary' } } } }, '404': unknown },
      },
    },
    '/v1/engagement/click/{token}': {
      get: {
        operationId: 'emailLinkClicked',
        summary: "A tracked link of an email: records the delivery `seen` and `clicked` (once each) and redirects to the link that was at that position in the email, never elsewhere",
        security: [],
        parameters: [token('tracked link')],
        responses: {
          '302': { description: "To the email's link (Location), as the template rendered it", headers: { Location: { schema: { type: 'string', format: 'uri' } } } },
          '404': unknown,
        },
      },
    },
  };
}

const nullableMs: Schema = { type: ['integer', 'null'], description: 'ms since the epoch' };

export const dispatchOpenApi = {
  security: PUBLIC_API_SHARED.security,
  paths: {
    ...vendorCallbackPaths(),
    ...engagementPaths(),
    '/v1/message/{message_id}/retry/': {
      post: {
        operationId: 'retryDelivery',
        summary: "Herald's own: attempts a delivery that failed for good again (e.g. once its vendor is fixed), rendered and routed afresh; its outcome reaches the run and the message log like any attempt's",
        parameters: [{ in: 'path', name: 'message_id', required: true, schema: { type: 'string' }, description: "The message's id, as GET /v1/message/ lists it" }],
        responses: {
          '202': json({ type: 'object', required: ['message_id', 'status'], properties: { message_id: { type: 'string' }, status: { type: 'string', enum: ['retry_scheduled'] } } }, 'Scheduled now'),
          '401': json(ref('ErrorResponse'), 'Missing or invalid API key'),
          '403': json(ref('ErrorResponse'), "A browser's public key: retrying takes an API key"),
          '404': json(ref('ErrorResponse'), 'No delivery with this id was attempted in the workspace (skipped, or not sent yet)'),
          '409': json(ref('ErrorResponse'), 'The delivery did not fail (sent, retrying or in flight)'),
        },
      },
    },
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
        requestBody: schemaRequestBody(InboxMessageUpdateSchema),
        responses: {
          '200': json(ref('InboxMessage'), 'The message as updated'),
          '400': json(ref('ErrorResponse'), 'Not an inbox update: every failing field in `detail`'),
          ...refusals,
          '404': json(ref('ErrorResponse'), "No such message in this recipient's inbox"),
        },
      },
    },
    ...feedPaths(),
    ...jsInboxPaths(),
  } as Record<string, Record<string, unknown>>,
  components: {
    securitySchemes: {
      ...PUBLIC_API_SHARED.securitySchemes,
      ...BROWSER_SDK_OPENAPI.securitySchemes,
      ...JS_INBOX_SECURITY_SCHEMES,
    },
    schemas: {
      ...PUBLIC_API_SHARED.schemas,
      ...BROWSER_SDK_OPENAPI.schemas,
      ...JS_INBOX_SCHEMAS,
      ...dispatchSchemas.openApiComponents(),
      FeedNotification: {
        type: 'object',
        required: ['n_id', 'n_category', 'created_on', 'seen_on', 'read_on', 'interacted_on', 'archived', 'tags', 'expiry', 'is_pinned', 'message'],
        properties: {
          n_id: { type: 'string' },
          n_category: { type: ['string', 'null'], description: "The workflow's category" },
          created_on: { type: 'integer', description: 'ms since the epoch' },
          seen_on: nullableMs,
          read_on: nullableMs,
          interacted_on: nullableMs,
          archived: { type: 'boolean' },
          tags: { type: 'array', items: { type: 'string' }, description: "The inbox template's tags (a store's `tags.or` filters on them)" },
          expiry: { ...nullableMs, description: 'When the message leaves the feed (ms since the epoch), or null' },
          is_expiry_visible: { type: 'boolean', description: 'Whether the page shows a countdown to the expiry' },
          is_pinned: { type: 'boolean', description: 'Pinned by its template and not read yet: listed first' },
          can_user_unpin: { type: 'boolean' },
          message: {
            type: 'object',
            required: ['header', 'text', 'url', 'avatar', 'actions'],
            properties: {
              header: { type: ['string', 'null'] },
              text: { type: 'string' },
              url: { type: ['string', 'null'] },
              open_in_new_tab: { type: 'boolean' },
              avatar: { anyOf: [{ type: 'null' }, { type: 'object', required: ['avatar_url'], properties: { avatar_url: { type: 'string' }, action_url: { type: ['string', 'null'] } } }] },
              subtext: { anyOf: [{ type: 'null' }, { type: 'object', required: ['text'], properties: { text: { type: 'string' }, action_url: { type: ['string', 'null'] } } }] },
              actions: {
                type: 'array',
                maxItems: 2,
                description: "The template's action buttons",
                items: { type: 'object', required: ['name', 'url', 'open_in_new_tab'], properties: { name: { type: 'string' }, url: { type: 'string' }, open_in_new_tab: { type: 'boolean' } } },
              },
              extra_data: { type: ['string', 'null'], description: "The template's extra data, as written (usually JSON text)" },
            },
          },
        },
      },
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
