import { Check, Formats, SchemaKit, idLengthProblem } from '@herald/contracts';
import { isDuration } from '@herald/workflow';
import { EMAIL, HTTP_URL, LOCALE, PHONE, StringFormat, TIME_ZONE, WORKFLOW_SLUG_FORMAT, base64DecodedSize } from './formats';
import { MAX_IDEMPOTENCY_KEY_LENGTH, storableDateProblems } from './shared-fields';

/** Interface section 8: an inline base64 attachment must decode to below 50 KB (50 × 1024 bytes). */
export const MAX_INLINE_ATTACHMENT_BYTES = 50 * 1024;

/**
 * Interface section 6 caps the event name a wait-until node waits for at 255 characters;
 * a longer event could never be matched, so it is refused up front.
 */
export const MAX_EVENT_NAME_LENGTH = 255;

const format =
  (rule: StringFormat) =>
  (value: string): string | undefined =>
    rule.test(value) ? undefined : rule.message;
const nonBlank = (value: string): string | undefined => (value.trim() === '' ? 'must not be empty' : undefined);
/** Not blank, then `rule`: the order the hand readers reported in. */
const nonBlankAnd =
  (rule: (value: string) => string | undefined) =>
  (value: string): string | undefined =>
    nonBlank(value) ?? rule(value);
const present = (record: Record<string, unknown>, key: string): boolean => Object.hasOwn(record, key) && record[key] !== undefined && record[key] !== null;
/** A JSON object (not null, not an array). */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A delay of the legacy and broadcast bodies: a duration, or a whole number of seconds (number or digits). */
const delayCheck =
  (message: string): Check =>
  (value) => {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return undefined;
    if (typeof value === 'string' && (/^\d+$/.test(value) || isDuration(value))) return undefined;
    return message;
  };

/**
 * Slack and MS Teams entries are each exactly one of several forms (interface 2.1.1,
 * reference `oneOf`), told by an identifying key; the error names every form.
 */
export interface ChatForm {
  readonly name: string;
  readonly label: string;
  /** Any of these keys (not null) selects the form. */
  readonly keys: readonly string[];
}

export const SLACK_FORMS: readonly ChatForm[] = [
  { name: 'email', label: 'Slack by email {email, access_token?}', keys: ['email'] },
  { name: 'user_id', label: 'Slack by member id {user_id, access_token?}', keys: ['user_id'] },
  // `channel_id` is what the SuprSend SDKs' own schema calls it; the reference says `channel`.
  { name: 'channel', label: 'Slack by channel {channel, access_token?}', keys: ['channel', 'channel_id'] },
  { name: 'incoming_webhook', label: 'Slack by incoming webhook {incoming_webhook: {url}}', keys: ['incoming_webhook'] },
];

export const MS_TEAMS_FORMS: readonly ChatForm[] = [
  { name: 'conversation', label: 'MS Teams by conversation {tenant_id, service_url, conversation_id}', keys: ['conversation_id'] },
  { name: 'user', label: 'MS Teams by user {tenant_id, service_url, user_id}', keys: ['user_id'] },
  { name: 'incoming_webhook', label: 'MS Teams by incoming webhook {incoming_webhook: {url}}', keys: ['incoming_webhook'] },
];

const formCheck =
  (forms: readonly ChatForm[], channel: string): Check =>
  (value) => {
    if (!isRecord(value)) return undefined;
    const matching = forms.filter((form) => form.keys.some((key) => present(value, key)));
    if (matching.length === 1) return undefined;
    const all = forms.map((form) => form.label).join('; ');
    const found = matching.length === 0 ? 'it matches none' : `it matches several: ${matching.map((form) => form.name).join(', ')}`;
    return `must be exactly one ${channel} form (${all}); ${found}`;
  };

/**
 * The string formats ingest's schemas use (`format: "email"`), each worded as the hand
 * readers were (the SDK compatibility specs assert some of these messages). Pure functions.
 */
const INGEST_FORMATS: Formats = {
  non_blank: nonBlank,
  /** An id (a distinct_id, an object's type or id, a tenant or list id): non-blank, and as long as every route that takes it in its path allows. */
  id: nonBlankAnd(idLengthProblem),
  workflow_slug: nonBlankAnd(format(WORKFLOW_SLUG_FORMAT)),
  email: format(EMAIL),
  non_blank_email: nonBlankAnd(format(EMAIL)),
  phone: format(PHONE),
  http_url: format(HTTP_URL),
  non_blank_http_url: nonBlankAnd(format(HTTP_URL)),
  time_zone: format(TIME_ZONE),
  locale: format(LOCALE),
  event_name: nonBlankAnd((value) => (value.length > MAX_EVENT_NAME_LENGTH ? `must be at most ${MAX_EVENT_NAME_LENGTH} characters` : undefined)),
  /** Trimmed, since a key that differs only by surrounding spaces is the same key; blank means the client meant to deduplicate but cannot. */
  idempotency_key: (value) => {
    const length = value.trim().length;
    return length >= 1 && length <= MAX_IDEMPOTENCY_KEY_LENGTH ? undefined : `must hold 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters after trimming`;
  },
  inline_attachment: nonBlankAnd((value) => {
    const size = base64DecodedSize(value);
    if (size === undefined) return 'must be base64 (standard alphabet A-Z a-z 0-9 + /, optional = padding, no line breaks)';
    if (size >= MAX_INLINE_ATTACHMENT_BYTES) return `must decode to below ${MAX_INLINE_ATTACHMENT_BYTES} bytes (50 KB); it decodes to ${size}; pass a url instead`;
    return undefined;
  }),
  /** An SDK's `$insert_id`, the idempotency key of its call unless `$idempotency_key` is given. */
  insert_id: (value) =>
    value.trim() === '' || value.length > MAX_IDEMPOTENCY_KEY_LENGTH ? `must be a string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` : undefined,
  /** A date-time Postgres can store: parsed by `Date.parse`, years 1 to 9999, a real calendar day (else acknowledged, then stranded). */
  storable_date_time: (value) => (Number.isNaN(Date.parse(value)) ? 'must be an ISO 8601 date-time' : storableDateProblems(value)[0]),
};

/** Rules on whole values (`x-check`): objects whose forms JSON Schema cannot word, and numbers-or-strings. */
const INGEST_CHECKS: Readonly<Record<string, Check>> = {
  /** Exactly one of `url` (public URL form) and `data` (inline base64 form); null counts as absent, as the SDKs send `"url": null`. */
  attachment_form: (value) => {
    if (!isRecord(value)) return undefined;
    const [hasUrl, hasData] = [present(value, 'url'), present(value, 'data')];
    if (hasUrl !== hasData) return undefined;
    return `must have exactly one of url (public URL form) or data (inline base64 form); it has ${hasUrl ? 'both' : 'neither'}`;
  },
  slack_form: formCheck(SLACK_FORMS, 'Slack'),
  ms_teams_form: formCheck(MS_TEAMS_FORMS, 'MS Teams'),
  legacy_delay: delayCheck('must be a duration like 1d2h30m10s, or a number of seconds'),
  broadcast_delay: delayCheck('must be a duration like 0d1h30m0s, or a number of seconds'),
};

/** ingest-api's schema kit: one ajv, its validators compiled once at module load. */
export const ingestSchemas = new SchemaKit(INGEST_FORMATS, INGEST_CHECKS);
