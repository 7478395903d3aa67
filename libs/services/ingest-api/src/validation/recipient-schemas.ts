import { Static, TSchema, Type } from '@sinclair/typebox';
import {
  Attachment,
  CHANNELS,
  Channel,
  FormattedString,
  InlineChannels,
  InlineProfile,
  MsTeamsIdentity,
  Nullable,
  ObjectRecipient,
  OneOrMany,
  Present,
  PushToken,
  Recipient,
  SlackIdentity,
  UserRecipient,
  WebPushSubscription,
} from '@herald/contracts';
import { ChatForm, MS_TEAMS_FORMS, SLACK_FORMS, ingestSchemas } from './ingest-checks';

/**
 * The recipient, actor and attachment parts of the trigger bodies (interface 2.1),
 * defined once as schemas (docs/architecture.md, "Contracts"): the OpenAPI components
 * and the validators come from these; the functions below turn a valid body into the
 * normalised shape the bus carries (`Recipient`, `Attachment`).
 */

export const IdString = FormattedString('id', { description: 'An id: not blank, at most 255 characters' });
const NonBlank = FormattedString('non_blank');

export const ChannelName = Type.Unsafe<Channel>({ enum: [...CHANNELS] });

/** A property a chat form requires, reported with the form's label when missing or null. */
function FormField<T extends TSchema>(schema: T, label: string) {
  return Type.Unsafe<Static<T>>({ if: { type: 'null' }, then: { not: {}, 'x-message': `is required by the form ${label}` }, else: schema });
}

const has = (key: string): Record<string, unknown> => ({ required: [key], properties: { [key]: { not: { type: 'null' } } } });
/** Matches when exactly one form's identifying key is there; the form's fields are checked only then (else `x-check` names the forms). */
const exactlyOneForm = (forms: readonly ChatForm[]): Record<string, unknown> => ({
  oneOf: forms.map((form) => (form.keys.length === 1 ? has(form.keys[0]) : { anyOf: form.keys.map(has) })),
});

const Webhook = (label: string) =>
  Type.Object({ url: FormField(FormattedString('http_url'), label) }, { 'x-required-message': `is required by the form ${label}` });

const SLACK_WEBHOOK_LABEL = SLACK_FORMS[3].label;
const SlackFields = Type.Object({
  email: Nullable(FormattedString('non_blank_email')),
  user_id: Nullable(NonBlank),
  channel: Nullable(NonBlank),
  channel_id: Nullable(NonBlank),
  access_token: Nullable(NonBlank),
  incoming_webhook: Nullable(Webhook(SLACK_WEBHOOK_LABEL)),
});

/** A Slack identity: by email, member id, channel (`channel` or the SDKs' `channel_id`) or incoming webhook; `access_token` optional (the vendor's bot token is used). */
export const SlackEntry = ingestSchemas.named(
  'SlackIdentity',
  Type.Unsafe<Static<typeof SlackFields>>({ type: 'object', 'x-check': 'slack_form', if: exactlyOneForm(SLACK_FORMS), then: SlackFields }),
);

const teamsForm = (label: string, idKey: string): Record<string, unknown> => ({
  required: ['tenant_id', 'service_url', idKey],
  'x-required-message': `is required by the form ${label}`,
  properties: { tenant_id: FormField(NonBlank, label), service_url: FormField(FormattedString('non_blank_http_url'), label), [idKey]: FormField(NonBlank, label) },
});

const MsTeamsFields = Type.Object({
  tenant_id: Nullable(Type.String()),
  service_url: Nullable(Type.String()),
  conversation_id: Nullable(Type.String()),
  user_id: Nullable(Type.String()),
  incoming_webhook: Nullable(Type.Object({ url: Type.String() })),
});

/** An MS Teams identity: by conversation, by user, or by incoming webhook. */
export const MsTeamsEntry = ingestSchemas.named(
  'MsTeamsIdentity',
  Type.Unsafe<Static<typeof MsTeamsFields>>({
    type: 'object',
    'x-check': 'ms_teams_form',
    if: exactlyOneForm(MS_TEAMS_FORMS),
    then: {
      allOf: [
        MsTeamsFields,
        { if: has('conversation_id'), then: teamsForm(MS_TEAMS_FORMS[0].label, 'conversation_id') },
        { if: has('user_id'), then: teamsForm(MS_TEAMS_FORMS[1].label, 'user_id') },
        { if: has('incoming_webhook'), then: { properties: { incoming_webhook: Webhook(MS_TEAMS_FORMS[2].label) } } },
      ],
    },
  }),
);

const PushTokenObject = Type.Object({ token: Present(NonBlank), provider: Nullable(NonBlank), device_id: Nullable(Type.String()), bundle_id: Nullable(Type.String()) });
/** A push token: the bare string of the reference, or the `{token, provider, device_id, bundle_id}` object of the SuprSend SDKs' schema. */
export const PushTokenEntry = ingestSchemas.named(
  'PushToken',
  Type.Unsafe<string | Static<typeof PushTokenObject>>({ if: { type: 'string' }, then: NonBlank, else: PushTokenObject }),
);

/** A browser push subscription as `PushSubscription.toJSON()` gives it; other keys are ignored. */
export const WebPushEntry = ingestSchemas.named(
  'WebPushSubscription',
  Type.Object({
    endpoint: Present(FormattedString('http_url')),
    keys: Present(Type.Object({ p256dh: Present(NonBlank), auth: Present(NonBlank) })),
  }),
);

/** A non-blank string, or a list of them. */
export const OneOrManyNonBlank = OneOrMany(NonBlank);

/** The inline channels of a recipient or actor: each a list, or a lone value (the SDKs' schemas allow both). */
export const CHANNEL_PROPERTIES = {
  $email: Nullable(OneOrMany(FormattedString('email'))),
  $sms: Nullable(OneOrMany(FormattedString('phone'))),
  $whatsapp: Nullable(OneOrMany(FormattedString('phone'))),
  $inbox: Nullable(OneOrManyNonBlank),
  $androidpush: Nullable(OneOrMany(PushTokenEntry)),
  $iospush: Nullable(OneOrMany(PushTokenEntry)),
  $webpush: Nullable(OneOrMany(WebPushEntry)),
  $slack: Nullable(OneOrMany(SlackEntry)),
  $ms_teams: Nullable(OneOrMany(MsTeamsEntry)),
};

const PROFILE_PROPERTIES = {
  ...CHANNEL_PROPERTIES,
  $channels: Nullable(Type.Array(ChannelName, { description: 'Send only on these channels' })),
  $timezone: Nullable(FormattedString('time_zone', { description: 'IANA time zone name' })),
  $locale: Nullable(FormattedString('locale')),
  $context: Nullable(Type.Object({ tenant_id: Nullable(IdString) }, { description: 'Must equal the top-level tenant_id' })),
};

const UserRecipientFields = Type.Object(
  { distinct_id: Nullable(IdString), is_transient: Nullable(Type.Boolean()), ...PROFILE_PROPERTIES },
  {
    description: 'distinct_id is required unless is_transient. Other properties (any JSON) update the profile.',
    if: { required: ['is_transient'], properties: { is_transient: { const: true } } },
    else: { required: ['distinct_id'], properties: { distinct_id: { not: { type: 'null' }, 'x-message': 'is required' } } },
  },
);
export const UserRecipientSchema = ingestSchemas.named('UserRecipient', UserRecipientFields);

export const ObjectRecipientSchema = ingestSchemas.named(
  'ObjectRecipient',
  Type.Object(
    { object_type: Present(IdString), id: Present(IdString), ...PROFILE_PROPERTIES },
    { description: 'An object (told apart from a user by holding object_type); its subscribers receive it' },
  ),
);

type UserBody = Static<typeof UserRecipientSchema>;
export type InlineChannelsBody = Static<ReturnType<typeof Type.Object<typeof CHANNEL_PROPERTIES>>>;
type ObjectBody = Static<typeof ObjectRecipientSchema>;

/** A distinct_id string, else an object told apart by `ifObject`, else the error `notObject`. */
const stringOr = (ifObject: Record<string, unknown>, notObject: string): Record<string, unknown> => ({
  if: { type: 'string' },
  then: IdString,
  else: { if: { type: 'object' }, then: ifObject, else: { not: {}, 'x-message': notObject } },
});

/** One entry of `recipients`: a distinct_id string, an object recipient (holding `object_type`), or an inline user. */
export const RecipientSchema = ingestSchemas.named(
  'Recipient',
  Type.Unsafe<string | UserBody | ObjectBody>(
    stringOr({ if: { required: ['object_type'] }, then: ObjectRecipientSchema, else: UserRecipientSchema }, 'must be a distinct_id string or a recipient object'),
  ),
);

/** `actor`: a distinct_id string (as the SDKs allow) or a user object (interface 2.1.3). */
export const ActorSchema = Type.Unsafe<string | UserBody>(stringOr(UserRecipientSchema, 'must be a distinct_id string or an object'));

/** Exactly one of `url` (public URL form) and `data` (inline base64 form, below 50 KB decoded). */
export const AttachmentSchema = ingestSchemas.named(
  'Attachment',
  Type.Object(
  {
    url: Nullable(FormattedString('http_url')),
    data: Nullable(FormattedString('inline_attachment', { description: 'base64, below 50 KB decoded' })),
    filename: Nullable(Type.String()),
    // false counts as absent: the Node SDK sends mime-types' lookup(), false for an unknown extension.
    contentType: Nullable(Type.Unsafe<string | false>({ if: { const: false }, else: NonBlank })),
    ignore_if_error: Nullable(Type.Boolean()),
  },
  { 'x-check': 'attachment_form' },
  ),
);

/** `data` of a trigger, `properties` of an event: any JSON object; `$attachments` checked. */
export const AttachmentHolder = Type.Object({ $attachments: Nullable(Type.Array(AttachmentSchema)) });

// ---- From a valid body to the bus's normalised shapes -----------------------------------

type AttachmentBody = Static<typeof AttachmentSchema>;

/** `$attachments` of a valid holder, normalised (absent means none). */
export function attachmentsOf(holder: Static<typeof AttachmentHolder> | null | undefined): Attachment[] {
  return (holder?.$attachments ?? []).map(attachmentOf);
}

function attachmentOf(body: AttachmentBody): Attachment {
  const filename = body.filename ?? undefined;
  const ignore_if_error = body.ignore_if_error === true;
  if (typeof body.url === 'string') return withoutUndefined({ kind: 'url' as const, url: body.url, filename, ignore_if_error });
  const data = body.data as string;
  const content_type = typeof body.contentType === 'string' ? body.contentType : undefined;
  return withoutUndefined({ kind: 'inline' as const, data, size_bytes: decodedSize(data), filename, content_type, ignore_if_error });
}

function decodedSize(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor(((base64.length - padding) * 3) / 4);
}

export const CHANNEL_KEYS: readonly string[] = Object.keys(CHANNEL_PROPERTIES);
const PROFILE_KEYS = Object.keys(PROFILE_PROPERTIES);
const USER_KEYS: ReadonlySet<string> = new Set(['distinct_id', 'is_transient', ...PROFILE_KEYS]);
const OBJECT_KEYS: ReadonlySet<string> = new Set(['id', 'object_type', ...PROFILE_KEYS]);

/** A valid `recipients` entry, normalised. */
export function recipientOf(body: string | UserBody | ObjectBody): Recipient {
  if (typeof body === 'string') return bareUser(body);
  return Object.hasOwn(body, 'object_type') ? objectOf(body as ObjectBody) : userOf(body as UserBody);
}

/** A valid `actor`, normalised. */
export function actorOf(body: string | UserBody): UserRecipient {
  return typeof body === 'string' ? bareUser(body) : userOf(body);
}

function bareUser(distinct_id: string): UserRecipient {
  return { kind: 'user', distinct_id, is_transient: false, inline: false, channels: {}, properties: {} };
}

function userOf(body: UserBody): UserRecipient {
  const is_transient = body.is_transient === true;
  return { kind: 'user', distinct_id: body.distinct_id ?? null, is_transient, ...profileOf(body, USER_KEYS) };
}

function objectOf(body: ObjectBody): ObjectRecipient {
  return { kind: 'object', object_type: body.object_type, id: body.id, ...profileOf(body, OBJECT_KEYS) };
}

/**
 * What users and objects share. Every other property is kept as sent: the reference
 * types them as strings, but SuprSend clients send numbers, booleans and nested objects
 * (templates loop over them). Only own keys are copied, and `__proto__` stays a plain key.
 */
function profileOf(body: UserBody | ObjectBody, known: ReadonlySet<string>): InlineProfile {
  return withoutUndefined({
    inline: true,
    channels: channelsOf(body),
    only_channels: body.$channels ?? undefined,
    timezone: body.$timezone ?? undefined,
    locale: body.$locale ?? undefined,
    context_tenant_id: body.$context?.tenant_id ?? undefined,
    properties: Object.fromEntries(Object.entries(body).filter(([key]) => !known.has(key))),
  });
}

/** The inline channels of a valid holder (a recipient, or an identity event's operation), normalised. */
export function channelsOf(body: InlineChannelsBody): InlineChannels {
  if (!CHANNEL_KEYS.some((key) => Object.hasOwn(body, key))) return {};
  return withoutUndefined({
    email: listOf(body.$email),
    sms: listOf(body.$sms),
    whatsapp: listOf(body.$whatsapp),
    inbox: listOf(body.$inbox),
    androidpush: listOf(body.$androidpush)?.map(pushTokenOf),
    iospush: listOf(body.$iospush)?.map(pushTokenOf),
    webpush: listOf(body.$webpush)?.map(webPushOf),
    slack: listOf(body.$slack)?.map(slackOf),
    ms_teams: listOf(body.$ms_teams)?.map(msTeamsOf),
  });
}

function listOf<T>(value: T | T[] | null | undefined): T[] | undefined {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value : [value];
}

function pushTokenOf(entry: Static<typeof PushTokenEntry>): PushToken {
  if (typeof entry === 'string') return { token: entry };
  return withoutUndefined({ token: entry.token, provider: entry.provider ?? undefined, device_id: entry.device_id ?? undefined, bundle_id: entry.bundle_id ?? undefined });
}

function webPushOf(entry: Static<typeof WebPushEntry>): WebPushSubscription {
  return { endpoint: entry.endpoint, keys: { p256dh: entry.keys.p256dh, auth: entry.keys.auth } };
}

function slackOf(entry: Static<typeof SlackEntry>): SlackIdentity {
  const token = entry.access_token ?? undefined;
  const withToken = <T extends SlackIdentity>(identity: T): T => (token === undefined ? identity : { ...identity, access_token: token });
  if (entry.email != null) return withToken({ form: 'email', email: entry.email });
  if (entry.user_id != null) return withToken({ form: 'user_id', user_id: entry.user_id });
  const channel = entry.channel ?? entry.channel_id;
  if (channel != null) return withToken({ form: 'channel', channel });
  return { form: 'incoming_webhook', incoming_webhook: { url: (entry.incoming_webhook as { url: string }).url } };
}

function msTeamsOf(entry: Static<typeof MsTeamsEntry>): MsTeamsIdentity {
  if (entry.incoming_webhook != null) return { form: 'incoming_webhook', incoming_webhook: { url: entry.incoming_webhook.url } };
  const [tenant_id, service_url] = [entry.tenant_id as string, entry.service_url as string];
  if (entry.conversation_id != null) return { form: 'conversation', tenant_id, service_url, conversation_id: entry.conversation_id };
  return { form: 'user', tenant_id, service_url, user_id: entry.user_id as string };
}

/** The object without its undefined fields, so an optional field the client did not send is absent, not `undefined`. */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
