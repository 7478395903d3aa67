import { Static, Type } from '@sinclair/typebox';
import { MAX_ID_LENGTH, Nullable, SchemaKit, SealedVendorTestSchema, StringEnum } from '@herald/contracts';

/**
 * The request bodies of channel-dispatchers' routes, each one schema (docs/architecture.md,
 * "Contracts"): the handler's `@ValidBody` validates with it (or names it with
 * `@RequestBodySchema` where something else reads the body) and dispatch-openapi.ts shows
 * it. The wording is the hand readers' it replaces, which the browser SDKs' pages show.
 * Rules between fields or against the request (at least one change, `env` is the key of
 * Authorization) stay in the handler's code.
 */
export const dispatchSchemas = new SchemaKit({});

/** A message's id (`n_id`, the inbox row's uuid): anything else names no message. */
const NOTIFICATION_ID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const notificationId = (description?: string) =>
  Type.String({ pattern: NOTIFICATION_ID_PATTERN, 'x-message': 'must be a notification id (n_id)', ...(description ? { description } : {}) });

// ---- The inbox (`PATCH /v1/user/{distinct_id}/inbox/{id}/`) -------------------------------

const inboxFlag = (description?: string) => Type.Optional(Type.Boolean({ 'x-message': 'must be a boolean', ...(description ? { description } : {}) }));

export const InboxMessageUpdateSchema = dispatchSchemas.named(
  'InboxMessageUpdate',
  Type.Object(
    {
      seen: inboxFlag(),
      read: inboxFlag('true also marks the message seen'),
      archived: inboxFlag(),
      // A click is an event that happened; there is nothing to clear.
      clicked: Type.Optional(
        Type.Unsafe<true>({
          type: 'boolean',
          'x-message': 'must be a boolean',
          allOf: [{ const: true, 'x-message': 'can only be true' }],
          description: 'The recipient clicked the message; also marks it seen',
        }),
      ),
    },
    {
      'x-message': 'must be a JSON object',
      // As the old reader: any other field is refused, each by its name.
      additionalProperties: Type.Never({ 'x-message': 'is not a field of an inbox update (seen, read, archived, clicked)' }),
      description: 'At least one of seen, read, archived, clicked',
    },
  ),
);
export type InboxMessageUpdate = Static<typeof InboxMessageUpdateSchema>;

// ---- The feed (`@suprsend/web-sdk` 4.x) ---------------------------------------------------

/** At most this many ids to mark seen in one call. */
const MAX_BULK_NOTIFICATION_IDS = 1000;
const NOTIFICATION_IDS_MESSAGE = `must be an array of 1 to ${MAX_BULK_NOTIFICATION_IDS} notification ids`;

export const FeedNotificationsSeenSchema = dispatchSchemas.named(
  'FeedNotificationsSeen',
  Type.Object(
    {
      notification_ids: Type.Array(notificationId(), {
        minItems: 1,
        maxItems: MAX_BULK_NOTIFICATION_IDS,
        'x-message': NOTIFICATION_IDS_MESSAGE,
        description: "The messages to mark seen; ids that are not the user's are skipped",
      }),
    },
    { 'x-message': 'must be a JSON object', 'x-required-message': NOTIFICATION_IDS_MESSAGE },
  ),
);
export type FeedNotificationsSeen = Static<typeof FeedNotificationsSeenSchema>;

// ---- `@suprsend/js-inbox` 2.x -------------------------------------------------------------

/** A SHA-256 HMAC in URL-safe base64 is 43 characters; anything much longer is no subscriber id. */
export const MAX_SUBSCRIBER_ID_LENGTH = 128;

/**
 * The user fields a POST of the protocol carries. JsInboxUserGuard reads and checks them
 * (readJsInboxUser: from the query of a GET, this body, or a socket's connect payload)
 * before any route runs; the limits here are its limits.
 */
export const JsInboxUserSchema = dispatchSchemas.named(
  'JsInboxUser',
  Type.Object(
    {
      distinct_id: Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, 'x-message': `is required: a string of 1 to ${MAX_ID_LENGTH} characters`, description: 'The user' }),
      subscriber_id: Type.String({
        minLength: 1,
        maxLength: MAX_SUBSCRIBER_ID_LENGTH,
        'x-message': `is required: a string of 1 to ${MAX_SUBSCRIBER_ID_LENGTH} characters`,
        description: "base64url(HMAC-SHA256(workspace secret, distinct_id)), unpadded: made by the customer's backend",
      }),
      tenant_id: Nullable(
        Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, 'x-message': `must be a string of 1 to ${MAX_ID_LENGTH} characters`, description: 'The tenant whose messages (the SDK sends `default`)' }),
      ),
      // Not read: the SDK's own clock, which an older page may send in any form.
      time: Type.Optional(Type.Unknown({ description: 'ms since the epoch, as the SDK sends it; not read' })),
    },
    { 'x-message': 'must be a JSON object' },
  ),
);
export type JsInboxUser = Static<typeof JsInboxUserSchema>;

/** What `POST /notification/{id}/action` can ask. */
export const JS_INBOX_ACTIONS = ['read', 'unread', 'archive'] as const;
export type JsInboxAction = (typeof JS_INBOX_ACTIONS)[number];
const ACTION_MESSAGE = `must be one of ${JS_INBOX_ACTIONS.join(', ')}`;

export const JsInboxActionSchema = dispatchSchemas.named(
  'JsInboxAction',
  Type.Intersect([
    JsInboxUserSchema,
    Type.Object({ action: StringEnum(JS_INBOX_ACTIONS, { 'x-message': ACTION_MESSAGE }) }, { 'x-required-message': ACTION_MESSAGE }),
  ]),
);
export type JsInboxActionBody = Static<typeof JsInboxActionSchema>;

/** The only event the protocol's collector takes. */
export const JS_INBOX_CLICK_EVENT = '$notification_clicked';

export const JsInboxClickSchema = dispatchSchemas.named(
  'JsInboxClick',
  Type.Object(
    {
      event: Type.Literal(JS_INBOX_CLICK_EVENT, { 'x-message': `must be ${JS_INBOX_CLICK_EVENT} (the only event of the inbox)` }),
      env: Type.Optional(Type.String({ 'x-message': 'must be the workspace key of Authorization', description: 'The workspace key' })),
      $insert_id: Type.Optional(Type.Unknown({ description: 'A uuid the SDK makes; not read' })),
      $time: Type.Optional(Type.Unknown({ description: 'ms since the epoch; not read' })),
      properties: Type.Object({ id: notificationId('The n_id') }, { 'x-required-message': 'must be a notification id (n_id)' }),
    },
    { 'x-message': 'must be a JSON object' },
  ),
);
export type JsInboxClick = Static<typeof JsInboxClickSchema>;

// ---- Vendors' status callbacks (`POST /v1/vendor-callbacks/{vendor_id}/`) -----------------

/**
 * What vendors post as JSON, as their documentation describes it. Each vendor's signature
 * covers the raw bytes and is checked before the body is read (VendorCallbacks), and each
 * vendor's reader (callback-events.ts) then reads its own format, so this describes; the
 * route names it with `@RequestBodySchema` and validates nothing with it.
 */
export const VendorCallbackSchema = dispatchSchemas.named(
  'VendorCallback',
  Type.Union(
    [
      Type.Array(
        Type.Object({ event: Type.String(), sg_message_id: Type.Optional(Type.String()), email: Type.Optional(Type.String()) }),
        { description: 'SendGrid: an array of events (`event`, `sg_message_id`, `email`, `reason`)' },
      ),
      Type.Object(
        { signature: Type.Object({ timestamp: Type.String(), token: Type.String(), signature: Type.String() }), 'event-data': Type.Object({ event: Type.String() }) },
        { description: 'Mailgun: one event, `event-data`, signed in `signature`' },
      ),
      Type.Object({ RecordType: Type.String(), MessageID: Type.Optional(Type.String()) }, { description: 'Postmark: one record by `RecordType`' }),
      Type.Object({ type: Type.String(), data: Type.Object({ email_id: Type.Optional(Type.String()) }) }, { description: 'Resend (signed by Svix): one event, `type` and `data`' }),
      Type.Object({ object: Type.Optional(Type.String()), entry: Type.Array(Type.Object({})) }, { description: 'WhatsApp Cloud API: `entry[].changes[].value.statuses[]`' }),
      Type.Object(
        { Type: Type.String(), TopicArn: Type.String(), Message: Type.Optional(Type.String()), SigningCertURL: Type.String() },
        { description: "SES through SNS: an SNS message (SNS posts it as text/plain); a Notification's `Message` is the SES event as JSON" },
      ),
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), {
        description: 'Vonage or Plivo receipts posted as JSON: their parameters (`messageId`, `status`, `err-code`; `MessageUUID`, `Status`)',
      }),
    ],
    { description: "The vendor's own body: which one the vendor configuration of the path says" },
  ),
);

/** The vendors whose callbacks are form parameters (Twilio, Vonage, Plivo): shown beside the JSON ones. */
export const VENDOR_CALLBACK_FORM = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Twilio (`MessageSid`, `MessageStatus`, `ErrorCode`, `To`), Vonage and Plivo: form parameters, signed as sent',
};

export const DISPATCH_BODIES = {
  inboxMessageUpdate: dispatchSchemas.parser(InboxMessageUpdateSchema),
  feedNotificationsSeen: dispatchSchemas.parser(FeedNotificationsSeenSchema),
  jsInboxAction: dispatchSchemas.parser(JsInboxActionSchema),
  jsInboxClick: dispatchSchemas.parser(JsInboxClickSchema),
  /** management-api's "send a test" (internal): a body not of this shape is refused as unsealed (401), as any forged one. */
  sealedVendorTest: dispatchSchemas.parser(SealedVendorTestSchema),
} as const;
