import { Channel, FieldError } from '@herald/contracts';
import { compileMjml } from '@herald/rendering';

/**
 * The content of a variant, per channel. Herald defines these shapes (interface 2.5
 * leaves them open); every string may hold Handlebars placeholders, which are stored
 * as written and rendered by the dispatchers.
 */
export interface EmailContent {
  readonly subject: string;
  readonly html?: string;
  /** MJML instead of html: compiled to HTML when rendered (cached per source), placeholders kept. */
  readonly mjml?: string;
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
/** SuprSend's inbox template fields (its editor's), and Herald's older `title` and URL `avatar`. */
export interface InboxContent {
  readonly header?: string;
  readonly title?: string;
  readonly body: string;
  readonly avatar?: string | { readonly image_url?: string; readonly url?: string };
  readonly action_url?: string;
  readonly open_in_new_tab?: boolean;
  readonly subtext?: string | { readonly text?: string; readonly url?: string };
  readonly buttons?: readonly { readonly text: string; readonly url: string; readonly open_in_new_tab?: boolean }[];
  readonly tags?: readonly string[];
  readonly is_pinned?: boolean;
  readonly is_expiry_enabled?: boolean;
  readonly expiry?: { readonly format?: 'relative' | 'absolute'; readonly expiry_type?: 'fixed' | 'dynamic'; readonly value?: string; readonly is_expiry_visible?: boolean };
  readonly extra_data?: string;
  readonly importance?: 'default' | 'high';
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
  | { readonly kind: 'object_list'; readonly maxItems: number; readonly allowEmpty?: boolean }
  | { readonly kind: 'object' }
  | { readonly kind: 'string_or_object'; readonly max: number }
  | { readonly kind: 'boolean' };

interface ContentRules {
  readonly fields: Readonly<Record<string, FieldRule>>;
  /** Groups of which at least one field must be present (email: html or text). */
  readonly atLeastOne?: readonly (readonly string[])[];
  /** Groups of which at most one field may be present (email: html or mjml). */
  readonly atMostOne?: readonly (readonly string[])[];
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
    fields: {
      subject: required(998),
      html: optional(LONG),
      mjml: optional(LONG),
      text: optional(LONG),
      from: optional(320),
      reply_to: optional(320),
      // false: this template's emails carry no open pixel / no tracked links (README, Engagement tracking and unsubscribe).
      track_opens: { kind: 'boolean' },
      track_clicks: { kind: 'boolean' },
    },
    atLeastOne: [['html', 'mjml', 'text']],
    atMostOne: [['html', 'mjml']],
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
  inbox: {
    fields: {
      header: optional(1000),
      title: optional(1000),
      body: required(10_000),
      avatar: { kind: 'string_or_object', max: URL_MAX },
      action_url: optional(URL_MAX),
      open_in_new_tab: { kind: 'boolean' },
      image_url: optional(URL_MAX),
      subtext: { kind: 'string_or_object', max: 1000 },
      // SuprSend's editor: two buttons, tags for the feed's tabs.
      buttons: { kind: 'object_list', maxItems: 2, allowEmpty: true },
      tags: { kind: 'string_list', maxItems: 20 },
      importance: optional(20),
      is_pinned: { kind: 'boolean' },
      is_expiry_enabled: { kind: 'boolean' },
      expiry: { kind: 'object' },
      extra_data: { kind: 'string_or_object', max: 10_000 },
      // What SuprSend's exported templates carry beside the content.
      $schema: optional(URL_MAX),
      templating_language: optional(50),
      schema_version: optional(20),
    },
  },
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
  for (const group of rules.atMostOne ?? []) {
    const given = group.filter((name) => content[name] !== undefined && content[name] !== null);
    if (given.length > 1) errors.push({ path: given[1], message: `only one of ${group.join(' and ')} may be given` });
  }
  return errors;
}

/**
 * What MJML says of an email variant's `mjml` (an unknown tag or attribute, by line), as
 * `errors.mjml`: the variant is saved and the commit refuses it, as for any content error.
 * MJML still compiles around such a mistake, so a preview shows the rest.
 */
export async function mjmlErrors(channel: Channel, content: unknown): Promise<FieldError[]> {
  if (channel !== 'email' || !isRecord(content) || typeof content.mjml !== 'string' || content.mjml.trim() === '') return [];
  try {
    const { errors } = await compileMjml(content.mjml);
    return errors.map((error) => ({ path: 'mjml', message: `line ${error.line}: ${error.message}` }));
  } catch (error) {
    return [{ path: 'mjml', message: `does not compile: ${error instanceof Error ? error.message : String(error)}` }];
  }
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
      if (value.length === 0 && !rule.allowEmpty) return [{ path, message: 'must not be empty' }];
      if (value.length > rule.maxItems) return [{ path, message: `must hold at most ${rule.maxItems} items` }];
      return value.flatMap((item, index) => (isRecord(item) ? [] : [{ path: `${path}[${index}]`, message: 'must be an object' }]));
    case 'object':
      return isRecord(value) ? [] : [{ path, message: 'must be an object' }];
    case 'string_or_object':
      return isRecord(value) ? [] : typeof value === 'string' ? checkString(path, value, rule.max) : [{ path, message: 'must be a string or an object' }];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [{ path, message: 'must be true or false' }];
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
