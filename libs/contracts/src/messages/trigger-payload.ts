import { Static, TObject, Type } from '@sinclair/typebox';
import { Contract, ChannelSchema, JsonRecordSchema, messageSchemas } from './message-schemas';

/**
 * The normalised trigger parts the bus carries (ingest-api's validators produce them,
 * the engine reads them), defined once as schemas: the types below are derived from
 * them, and the message parsers check them.
 */

/** A JSON object as parsed from a request body; values are left as the client sent them. */
export type JsonRecord = { readonly [key: string]: unknown };

const Str = () => Type.String();

/**
 * A union told apart by one tag field (`kind`, `form`): each variant is checked only
 * when the tag names it, so a wrong field is reported once, at its path, and a missing
 * or unknown tag at the tag (where `anyOf` would report every variant's differences).
 */
function Tagged<T extends TObject>(tag: string, variants: Record<string, T>) {
  const chain = Object.entries(variants).reduceRight<Record<string, unknown>>(
    (otherwise, [value, schema]) => ({ if: { required: [tag], properties: { [tag]: { const: value } } }, then: schema, ...(Object.keys(otherwise).length > 0 ? { else: otherwise } : {}) }),
    {},
  );
  return Type.Unsafe<Static<T>>({
    type: 'object',
    required: [tag],
    properties: { [tag]: { enum: Object.keys(variants), 'x-message': `must be ${Object.keys(variants).join(' or ')}` } },
    ...chain,
  });
}
const Opt = () => Type.Optional(Type.String());

/** A push token; SDKs send either the bare token or `{token, provider, device_id, bundle_id}`. */
export const PushTokenMessage = Type.Object({ token: Str(), provider: Opt(), device_id: Opt(), bundle_id: Opt() });
export type PushToken = Contract<typeof PushTokenMessage>;

/** A browser push subscription as `PushSubscription.toJSON()` gives it. */
export const WebPushSubscriptionMessage = Type.Object({ endpoint: Str(), keys: Type.Object({ p256dh: Str(), auth: Str() }) });
export type WebPushSubscription = Contract<typeof WebPushSubscriptionMessage>;

const IncomingWebhookMessage = Type.Object({ url: Str() });
export type IncomingWebhook = Contract<typeof IncomingWebhookMessage>;

/** Exactly one of the four Slack forms of interface 2.1.1, tagged by `form`. */
export const SlackIdentityMessage = Tagged('form', {
  email: Type.Object({ form: Type.Literal('email'), email: Str(), access_token: Opt() }),
  user_id: Type.Object({ form: Type.Literal('user_id'), user_id: Str(), access_token: Opt() }),
  channel: Type.Object({ form: Type.Literal('channel'), channel: Str(), access_token: Opt() }),
  incoming_webhook: Type.Object({ form: Type.Literal('incoming_webhook'), incoming_webhook: IncomingWebhookMessage }),
});
export type SlackIdentity = Contract<typeof SlackIdentityMessage>;

/** Exactly one of the three MS Teams forms of interface 2.1.1, tagged by `form`. */
export const MsTeamsIdentityMessage = Tagged('form', {
  conversation: Type.Object({ form: Type.Literal('conversation'), tenant_id: Str(), service_url: Str(), conversation_id: Str() }),
  user: Type.Object({ form: Type.Literal('user'), tenant_id: Str(), service_url: Str(), user_id: Str() }),
  incoming_webhook: Type.Object({ form: Type.Literal('incoming_webhook'), incoming_webhook: IncomingWebhookMessage }),
});
export type MsTeamsIdentity = Contract<typeof MsTeamsIdentityMessage>;

/** Channel identities passed inline (`$email`, `$sms`, ...); a key is set only when the client sent it. */
export const InlineChannelsMessage = Type.Object({
  email: Type.Optional(Type.Array(Str())),
  sms: Type.Optional(Type.Array(Str())),
  whatsapp: Type.Optional(Type.Array(Str())),
  inbox: Type.Optional(Type.Array(Str())),
  androidpush: Type.Optional(Type.Array(PushTokenMessage)),
  iospush: Type.Optional(Type.Array(PushTokenMessage)),
  webpush: Type.Optional(Type.Array(WebPushSubscriptionMessage)),
  slack: Type.Optional(Type.Array(SlackIdentityMessage)),
  ms_teams: Type.Optional(Type.Array(MsTeamsIdentityMessage)),
});
export type InlineChannels = Contract<typeof InlineChannelsMessage>;

/**
 * A recipient's channels as messages carry them. Ingest sends InlineChannels, but
 * preference-service's broadcast fan-out sends a member's channels as its profile stores
 * them (bare push tokens, Slack and MS Teams entries without `form`), which the engine
 * reads too. Until the two agree, a message's channels are checked as lists per channel
 * only, and typed as ingest sends them (docs/architecture.md, "Contracts").
 */
const MessageChannels = Type.Unsafe<Static<typeof InlineChannelsMessage>>(
  Type.Object(Object.fromEntries(Object.keys(InlineChannelsMessage.properties).map((channel) => [channel, Type.Optional(Type.Array(Type.Unknown()))]))),
);

/** What a user or an object recipient may carry inline besides its identity. */
const INLINE_PROFILE = {
  /** True when the recipient was an object in the request (its data updates the profile); false for a bare distinct_id. */
  inline: Type.Boolean(),
  channels: MessageChannels,
  /** `$channels`: send only on these channels. */
  only_channels: Type.Optional(Type.Array(ChannelSchema)),
  timezone: Opt(),
  locale: Opt(),
  /** `$context.tenant_id`; validated equal to the trigger's tenant_id. Inline data goes to that tenant's profile. */
  context_tenant_id: Opt(),
  /** Every other property, as sent (any JSON). */
  properties: JsonRecordSchema,
};
export const InlineProfileMessage = Type.Object(INLINE_PROFILE);
export type InlineProfile = Contract<typeof InlineProfileMessage>;

/** `distinct_id` is null only for a transient user sent without one. */
export const UserRecipientMessage = Type.Object({ kind: Type.Literal('user'), distinct_id: Type.Union([Str(), Type.Null()]), is_transient: Type.Boolean(), ...INLINE_PROFILE });
export type UserRecipient = Contract<typeof UserRecipientMessage>;

export const ObjectRecipientMessage = Type.Object({ kind: Type.Literal('object'), object_type: Str(), id: Str(), ...INLINE_PROFILE });
export type ObjectRecipient = Contract<typeof ObjectRecipientMessage>;

/** A user or an object, told apart by `kind` (a missing or unknown kind is reported at `kind`). */
export const RecipientMessage = messageSchemas.named('RecipientMessage', Tagged('kind', { user: UserRecipientMessage, object: ObjectRecipientMessage }));
export type Recipient = UserRecipient | ObjectRecipient;

export const AttachmentMessage = messageSchemas.named(
  'AttachmentMessage',
  Tagged('kind', {
    url: Type.Object({ kind: Type.Literal('url'), url: Str(), filename: Opt(), ignore_if_error: Type.Boolean() }),
    inline: Type.Object({
      kind: Type.Literal('inline'),
      /** The base64 text as sent. */
      data: Str(),
      size_bytes: Type.Integer({ minimum: 0 }),
      filename: Opt(),
      content_type: Opt(),
      ignore_if_error: Type.Boolean(),
    }),
  }),
);
export type Attachment = Contract<typeof AttachmentMessage>;

/** A legacy dynamic-workflow trigger's own single-step workflow (TriggerAccepted's `inline_workflow`). */
export const InlineWorkflowMessage = Type.Object({ slug: Str(), version: Type.Integer(), definition: JsonRecordSchema });

export interface NormalisedTrigger {
  readonly workflow: string;
  readonly recipients: readonly Recipient[];
  readonly actor?: UserRecipient;
  /** `data` as sent (a shallow copy; `{}` when absent), `$attachments` included. */
  readonly data: JsonRecord;
  /** `data.$attachments`, parsed. */
  readonly attachments: readonly Attachment[];
  readonly tenant_id?: string;
  /** Trimmed. */
  readonly idempotency_key?: string;
  /** A legacy dynamic-workflow trigger's own single-step workflow (TriggerAccepted's `inline_workflow`). */
  readonly inline_workflow?: Contract<typeof InlineWorkflowMessage>;
}

export interface NormalisedEvent {
  readonly distinct_id: string;
  readonly event: string;
  /** `properties` as sent (a shallow copy; `{}` when absent), `$attachments` included. */
  readonly properties: JsonRecord;
  readonly attachments: readonly Attachment[];
  readonly tenant_id?: string;
  readonly idempotency_key?: string;
}
