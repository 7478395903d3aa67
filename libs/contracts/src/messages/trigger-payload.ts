import { Channel } from '../channels';

/** A JSON object as parsed from a request body; values are left as the client sent them. */
export type JsonRecord = { readonly [key: string]: unknown };

/** A push token; SDKs send either the bare token or `{token, provider, device_id, bundle_id}`. */
export interface PushToken {
  readonly token: string;
  readonly provider?: string;
  readonly device_id?: string;
  readonly bundle_id?: string;
}

/** A browser push subscription as `PushSubscription.toJSON()` gives it. */
export interface WebPushSubscription {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

export interface IncomingWebhook {
  readonly url: string;
}

/** Exactly one of the four Slack forms of interface 2.1.1, tagged by `form`. */
export type SlackIdentity =
  | { readonly form: 'email'; readonly email: string; readonly access_token?: string }
  | { readonly form: 'user_id'; readonly user_id: string; readonly access_token?: string }
  | { readonly form: 'channel'; readonly channel: string; readonly access_token?: string }
  | { readonly form: 'incoming_webhook'; readonly incoming_webhook: IncomingWebhook };

/** Exactly one of the three MS Teams forms of interface 2.1.1, tagged by `form`. */
export type MsTeamsIdentity =
  | { readonly form: 'conversation'; readonly tenant_id: string; readonly service_url: string; readonly conversation_id: string }
  | { readonly form: 'user'; readonly tenant_id: string; readonly service_url: string; readonly user_id: string }
  | { readonly form: 'incoming_webhook'; readonly incoming_webhook: IncomingWebhook };

/** Channel identities passed inline (`$email`, `$sms`, ...); a key is set only when the client sent it. */
export interface InlineChannels {
  readonly email?: readonly string[];
  readonly sms?: readonly string[];
  readonly whatsapp?: readonly string[];
  readonly inbox?: readonly string[];
  readonly androidpush?: readonly PushToken[];
  readonly iospush?: readonly PushToken[];
  readonly webpush?: readonly WebPushSubscription[];
  readonly slack?: readonly SlackIdentity[];
  readonly ms_teams?: readonly MsTeamsIdentity[];
}

/** What a user or an object recipient may carry inline besides its identity. */
export interface InlineProfile {
  /** True when the recipient was an object in the request (its data updates the profile); false for a bare distinct_id. */
  readonly inline: boolean;
  readonly channels: InlineChannels;
  /** `$channels`: send only on these channels. */
  readonly only_channels?: readonly Channel[];
  readonly timezone?: string;
  readonly locale?: string;
  /** `$context.tenant_id`; validated equal to the trigger's tenant_id. Inline data goes to that tenant's profile. */
  readonly context_tenant_id?: string;
  /** Every other property, as sent (any JSON). */
  readonly properties: JsonRecord;
}

export interface UserRecipient extends InlineProfile {
  readonly kind: 'user';
  /** Null only for a transient user sent without one. */
  readonly distinct_id: string | null;
  readonly is_transient: boolean;
}

export interface ObjectRecipient extends InlineProfile {
  readonly kind: 'object';
  readonly object_type: string;
  readonly id: string;
}

export type Recipient = UserRecipient | ObjectRecipient;

export type Attachment =
  | { readonly kind: 'url'; readonly url: string; readonly filename?: string; readonly ignore_if_error: boolean }
  | {
      readonly kind: 'inline';
      /** The base64 text as sent. */
      readonly data: string;
      readonly size_bytes: number;
      readonly filename?: string;
      readonly content_type?: string;
      readonly ignore_if_error: boolean;
    };

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
  readonly inline_workflow?: { readonly slug: string; readonly version: number; readonly definition: JsonRecord };
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
