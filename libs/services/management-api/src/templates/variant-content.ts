import { Channel, FieldError } from '@herald/contracts';

/**
 * The content of a variant, per channel. Herald defines these shapes (interface 2.5
 * leaves them open); every string may hold Handlebars placeholders, which are stored
 * as written and rendered by the dispatchers.
 */
export interface EmailContent {
  readonly subject: string;
  readonly html?: string;
  readonly text?: string;
  readonly from?: string;
  readonly reply_to?: string;
}
export interface SmsContent {
  readonly text: string;
}
export interface WhatsappContent {
  readonly template_name: string;
  readonly language: string;
  readonly parameters?: readonly string[];
}
export interface MobilePushContent {
  readonly title: string;
  readonly body: string;
  readonly image?: string;
  readonly data?: Readonly<Record<string, string>>;
  readonly deep_link?: string;
}
export interface WebpushContent {
  readonly title: string;
  readonly body: string;
  readonly icon?: string;
  readonly url?: string;
}
export interface SlackContent {
  readonly text?: string;
  readonly blocks?: readonly Record<string, unknown>[];
}
export interface MsTeamsContent {
  readonly text?: string;
  readonly card?: Record<string, unknown>;
}
export interface InboxContent {
  readonly title?: string;
  readonly body: string;
  readonly avatar?: string;
  readonly action_url?: string;
}

export type VariantContent =
  | EmailContent
  | SmsContent
  | WhatsappContent
  | MobilePushContent
  | WebpushContent
  | SlackContent
  | MsTeamsContent
  | InboxContent;

type FieldRule =
  | { readonly kind: 'string'; readonly required?: boolean; readonly max: number }
  | { readonly kind: 'string_list'; readonly maxItems: number }
  | { readonly kind: 'string_map'; readonly maxEntries: number }
  | { readonly kind: 'object_list'; readonly maxItems: number }
  | { readonly kind: 'object' };

interface ContentRules {
  readonly fields: Readonly<Record<string, FieldRule>>;
  /** Groups of which at least one field must be present (email: html or text). */
  readonly atLeastOne?: readonly (readonly string[])[];
}

/** Long enough for any real message; the request body limit (1 MB) bounds it anyway. */
const LONG = 500_000;
const URL_MAX = 2048;

const required = (max: number): FieldRule => ({ kind: 'string', required: true, max });
const optional = (max: number): FieldRule => ({ kind: 'string', max });

const MOBILE_PUSH: ContentRules = {
  fields: {
    title: required(1000),
    body: required(4000),
    image: optional(URL_MAX),
    data: { kind: 'string_map', maxEntries: 100 },
    deep_link: optional(URL_MAX),
  },
};

// Limits follow the channels: RFC 5322 line length for subjects, 10 concatenated SMS
// segments, Slack's 50 blocks per message, WhatsApp's 512-character template names.
export const CONTENT_RULES: Readonly<Record<Channel, ContentRules>> = {
  email: {
    fields: { subject: required(998), html: optional(LONG), text: optional(LONG), from: optional(320), reply_to: optional(320) },
    atLeastOne: [['html', 'text']],
  },
  sms: { fields: { text: required(1600) } },
  whatsapp: {
    fields: { template_name: required(512), language: required(20), parameters: { kind: 'string_list', maxItems: 100 } },
  },
  androidpush: MOBILE_PUSH,
  iospush: MOBILE_PUSH,
  webpush: { fields: { title: required(1000), body: required(4000), icon: optional(URL_MAX), url: optional(URL_MAX) } },
  slack: { fields: { text: optional(40_000), blocks: { kind: 'object_list', maxItems: 50 } }, atLeastOne: [['text', 'blocks']] },
  ms_teams: { fields: { text: optional(28_000), card: { kind: 'object' } }, atLeastOne: [['text', 'card']] },
  inbox: { fields: { title: optional(1000), body: required(10_000), avatar: optional(URL_MAX), action_url: optional(URL_MAX) } },
};

/**
 * Every problem of a variant's content, by path relative to the content
 * (`subject`, `data.order_id`, `blocks[2]`). An empty list means it can go live.
 */
export function validateContent(channel: Channel, content: unknown): FieldError[] {
  if (!isRecord(content)) return [{ path: '', message: 'must be an object' }];
  const rules = CONTENT_RULES[channel];
  const errors: FieldError[] = [];
  for (const key of Object.keys(content)) {
    if (!(key in rules.fields)) errors.push({ path: key, message: `is not a field of ${channel} content` });
  }
  for (const [name, rule] of Object.entries(rules.fields)) {
    errors.push(...checkField(name, rule, content[name]));
  }
  for (const group of rules.atLeastOne ?? []) {
    if (group.every((name) => content[name] === undefined || content[name] === null)) {
      errors.push({ path: group[0], message: `${group.join(' or ')} is required` });
    }
  }
  return errors;
}

function checkField(path: string, rule: FieldRule, value: unknown): FieldError[] {
  if (value === undefined || value === null) {
    return rule.kind === 'string' && rule.required ? [{ path, message: 'is required' }] : [];
  }
  switch (rule.kind) {
    case 'string':
      return checkString(path, value, rule.max);
    case 'string_list':
      if (!Array.isArray(value)) return [{ path, message: 'must be an array of strings' }];
      if (value.length > rule.maxItems) return [{ path, message: `must hold at most ${rule.maxItems} items` }];
      return value.flatMap((item, index) => (typeof item === 'string' ? [] : [{ path: `${path}[${index}]`, message: 'must be a string' }]));
    case 'string_map':
      if (!isRecord(value)) return [{ path, message: 'must be an object of strings' }];
      if (Object.keys(value).length > rule.maxEntries) return [{ path, message: `must hold at most ${rule.maxEntries} entries` }];
      return Object.entries(value).flatMap(([key, item]) => (typeof item === 'string' ? [] : [{ path: `${path}.${key}`, message: 'must be a string' }]));
    case 'object_list':
      if (!Array.isArray(value)) return [{ path, message: 'must be an array of objects' }];
      if (value.length === 0) return [{ path, message: 'must not be empty' }];
      if (value.length > rule.maxItems) return [{ path, message: `must hold at most ${rule.maxItems} items` }];
      return value.flatMap((item, index) => (isRecord(item) ? [] : [{ path: `${path}[${index}]`, message: 'must be an object' }]));
    case 'object':
      return isRecord(value) ? [] : [{ path, message: 'must be an object' }];
  }
}

function checkString(path: string, value: unknown, max: number): FieldError[] {
  if (typeof value !== 'string') return [{ path, message: 'must be a string' }];
  if (value.trim() === '') return [{ path, message: 'must not be empty' }];
  if (value.length > max) return [{ path, message: `must be at most ${max} characters` }];
  return [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
