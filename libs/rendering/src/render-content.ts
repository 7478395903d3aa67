import { Channel, JsonRecord } from '@herald/contracts';
import {
  EmailContent,
  InboxContent,
  InboxExpiry,
  MsTeamsContent,
  PushContent,
  RenderedContent,
  SlackContent,
  SmsContent,
  WebpushContent,
  WhatsappContent,
} from './rendered-content';
import { TemplateEngine, TemplateError, TranslationScope } from './template-engine';
import { translationScope } from './translations';

/**
 * `missingVariables`: `field: path` of each placeholder the data had no value for (it
 * rendered empty), and `field: t "key"` of each translation key no locale of the chain had
 * (it rendered as the key).
 */
export type RenderResult =
  | { readonly ok: true; readonly content: RenderedContent; readonly missingVariables: readonly string[] }
  | { readonly ok: false; readonly reason: string };

/**
 * Renders a template variant's content for its channel. Pure apart from the template
 * cache: a template that does not compile or render, or content missing what the
 * channel needs, is a result with the reason, never a throw, so the dispatcher fails
 * that one message and moves on. `strict` (the template's setting): a placeholder the
 * data has no value for is such a reason too, naming each `field: path`, instead of
 * rendering empty.
 */
export function renderContent(
  engine: TemplateEngine,
  channel: Channel,
  content: JsonRecord,
  data: JsonRecord,
  { strict = false, translations = translationScope({}, undefined) }: { strict?: boolean; translations?: TranslationScope } = {},
): RenderResult {
  try {
    const fields = new FieldRenderer(engine, content, data, translations);
    const rendered = renderFor(fields, channel);
    if (strict && fields.missing.length > 0) return { ok: false, reason: `strict template: the data has no value for ${fields.missing.join(', ')}` };
    return { ok: true, content: rendered, missingVariables: fields.missing };
  } catch (error) {
    if (error instanceof TemplateError) return { ok: false, reason: error.message };
    throw error;
  }
}

function renderFor(fields: FieldRenderer, channel: Channel): RenderedContent {
  switch (channel) {
    case 'email':
      return renderEmail(fields);
    case 'sms':
      return renderSms(fields);
    case 'whatsapp':
      return renderWhatsapp(fields);
    case 'androidpush':
    case 'iospush':
      return renderPush(fields, channel);
    case 'webpush':
      return renderWebpush(fields);
    case 'slack':
      return renderSlack(fields);
    case 'ms_teams':
      return renderMsTeams(fields);
    case 'inbox':
      return renderInbox(fields);
    default:
      return assertNever(channel);
  }
}

function renderEmail(fields: FieldRenderer): EmailContent {
  const html = fields.optional('html', true) ?? fields.optional('body', true);
  const text = fields.optional('text');
  if (html === undefined && text === undefined) throw new TemplateError('html', 'email content needs html or text');
  return withoutUndefined({
    channel: 'email',
    subject: fields.required('subject'),
    html,
    text,
    from: fields.optional('from'),
    replyTo: fields.optional('reply_to'),
  });
}

function renderSms(fields: FieldRenderer): SmsContent {
  return { channel: 'sms', text: fields.optional('text') ?? fields.required('body') };
}

function renderWhatsapp(fields: FieldRenderer): WhatsappContent {
  if (fields.has('template')) {
    const components = fields.json('components');
    if (components !== undefined && !Array.isArray(components)) throw new TemplateError('components', 'must render to a JSON array of template components');
    return withoutUndefined({
      channel: 'whatsapp',
      kind: 'template',
      name: fields.required('template'),
      language: fields.optional('language') ?? 'en',
      parameters: fields.stringList('parameters'),
      components: components as unknown[] | undefined,
    });
  }
  return { channel: 'whatsapp', kind: 'text', text: fields.optional('text') ?? fields.required('body') };
}

function renderPush(fields: FieldRenderer, channel: 'androidpush' | 'iospush'): PushContent {
  return withoutUndefined({
    channel,
    title: fields.required('title'),
    body: fields.required('body'),
    imageUrl: fields.optional('image_url') ?? fields.optional('image'),
    deepLink: fields.optional('deep_link'),
    data: fields.stringMap('data'),
  });
}

function renderWebpush(fields: FieldRenderer): WebpushContent {
  return withoutUndefined({
    channel: 'webpush',
    title: fields.required('title'),
    body: fields.required('body'),
    icon: fields.optional('icon'),
    image: fields.optional('image') ?? fields.optional('image_url'),
    url: fields.optional('url') ?? fields.optional('action_url'),
  });
}

function renderSlack(fields: FieldRenderer): SlackContent {
  const blocks = fields.json('blocks');
  if (blocks !== undefined && !Array.isArray(blocks)) throw new TemplateError('blocks', 'must render to a JSON array of blocks');
  return withoutUndefined({ channel: 'slack', text: fields.optional('text') ?? '', blocks: blocks as unknown[] | undefined });
}

function renderMsTeams(fields: FieldRenderer): MsTeamsContent {
  const card = fields.json('card') ?? fields.json('adaptive_card');
  if (card !== undefined && (typeof card !== 'object' || card === null || Array.isArray(card))) {
    throw new TemplateError('card', 'must render to an Adaptive Card object');
  }
  return withoutUndefined({ channel: 'ms_teams', text: fields.optional('text') ?? '', card: card as Record<string, unknown> | undefined });
}

/** SuprSend's inbox editor allows two action buttons. */
export const MAX_INBOX_BUTTONS = 2;
const MAX_INBOX_TAGS = 20;

/**
 * SuprSend's inbox content (`header`, `body`, `avatar: {image_url, url}`, `subtext`,
 * `buttons`, `tags`, `is_pinned`, `is_expiry_enabled` + `expiry`, `extra_data`, ...) and
 * Herald's older names (`title`, `avatar` as a URL, `url`).
 */
function renderInbox(fields: FieldRenderer): InboxContent {
  const avatar = fields.value('avatar');
  const subtext = fields.value('subtext');
  return withoutUndefined({
    channel: 'inbox',
    title: fields.optional('header') ?? fields.optional('title'),
    body: fields.optional('body') ?? fields.required('text'),
    ...inboxAvatarOf(avatar),
    actionUrl: fields.optional('action_url') ?? fields.optional('url'),
    openInNewTab: fields.flag('open_in_new_tab') || undefined,
    subtext: subtextOf(subtext),
    buttons: buttonsOf(fields.value('buttons')),
    tags: tagsOf(fields.value('tags')),
    pinned: fields.flag('is_pinned') || undefined,
    expiry: fields.flag('is_expiry_enabled') || (fields.has('expiry') && !fields.has('is_expiry_enabled')) ? expiryOf(fields.value('expiry')) : undefined,
    extraData: extraDataOf(fields.value('extra_data')),
    importance: fields.optional('importance') === 'high' ? 'high' : undefined,
  });
}

function inboxAvatarOf(avatar: unknown): { avatar?: string; avatarUrl?: string } {
  if (avatar === undefined || avatar === '') return {};
  if (typeof avatar === 'string') return { avatar };
  const record = recordOf(avatar, 'avatar', 'an image URL or {image_url, url}');
  const image = optionalText(record.image_url ?? record.avatar_url, 'avatar.image_url');
  if (image === undefined) return {};
  return withoutUndefined({ avatar: image, avatarUrl: optionalText(record.url ?? record.action_url, 'avatar.url') });
}

function subtextOf(subtext: unknown): InboxContent['subtext'] {
  if (subtext === undefined || subtext === '') return undefined;
  if (typeof subtext === 'string') return { text: subtext };
  const record = recordOf(subtext, 'subtext', 'text or {text, url}');
  const text = optionalText(record.text, 'subtext.text');
  return text === undefined ? undefined : withoutUndefined({ text, url: optionalText(record.url ?? record.action_url, 'subtext.url') });
}

function buttonsOf(buttons: unknown): InboxContent['buttons'] {
  if (buttons === undefined) return undefined;
  if (!Array.isArray(buttons) || buttons.length > MAX_INBOX_BUTTONS) throw new TemplateError('buttons', `must be an array of at most ${MAX_INBOX_BUTTONS} buttons {text, url}`);
  const read = buttons.map((button: unknown, index) => {
    const record = recordOf(button, `buttons[${index}]`, '{text, url, open_in_new_tab}');
    const text = optionalText(record.text ?? record.name, `buttons[${index}].text`);
    const url = optionalText(record.url, `buttons[${index}].url`);
    if (text === undefined || url === undefined) throw new TemplateError(`buttons[${index}]`, 'needs a text and a url');
    return withoutUndefined({ text, url, openInNewTab: isTrue(record.open_in_new_tab) || undefined });
  });
  return read.length === 0 ? undefined : read;
}

function tagsOf(tags: unknown): InboxContent['tags'] {
  if (tags === undefined) return undefined;
  const list = typeof tags === 'string' ? [tags] : tags;
  if (!Array.isArray(list) || list.length > MAX_INBOX_TAGS || list.some((tag) => typeof tag !== 'string')) {
    throw new TemplateError('tags', `must be an array of at most ${MAX_INBOX_TAGS} strings`);
  }
  const kept = [...new Set((list as string[]).map((tag) => tag.trim()).filter((tag) => tag !== ''))];
  return kept.length === 0 ? undefined : kept;
}

/** `{format: relative | absolute, value, is_expiry_visible}`; a relative value is `XXdXXhXXmXXs` (spaces allowed) or whole seconds. */
function expiryOf(expiry: unknown): InboxExpiry | undefined {
  if (expiry === undefined) return undefined;
  const record = recordOf(expiry, 'expiry', '{format, value, is_expiry_visible}');
  const value = optionalText(record.value, 'expiry.value');
  if (value === undefined) throw new TemplateError('expiry.value', 'is required when the expiry is enabled');
  const visible = isTrue(record.is_expiry_visible);
  const seconds = durationSeconds(value);
  if (record.format !== 'absolute' && seconds !== undefined) return { afterSeconds: seconds, visible };
  const at = Date.parse(value);
  if (record.format !== 'relative' && /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(at)) return { at: new Date(at).toISOString(), visible };
  throw new TemplateError('expiry.value', `must render to a duration (7d, 2d 6h 30m, or seconds) or an ISO 8601 time; got "${value}"`);
}

/** `2d 6h 30m 0s`, `24h30m`, `3600`: whole seconds, or undefined when it is no duration. */
export function durationSeconds(value: string): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) > 0 ? Number(text) : undefined;
  const match = /^(?:(\d+)\s*d)?\s*(?:(\d+)\s*h)?\s*(?:(\d+)\s*m)?\s*(?:(\d+)\s*s)?$/.exec(text);
  if (!match || text === '') return undefined;
  const [, d, h, m, s] = match.map((part) => Number(part ?? 0));
  const seconds = d * 86_400 + h * 3600 + m * 60 + s;
  return seconds > 0 ? seconds : undefined;
}

function extraDataOf(extra: unknown): string | undefined {
  if (extra === undefined || extra === '') return undefined;
  return typeof extra === 'string' ? extra : JSON.stringify(extra);
}

function recordOf(value: unknown, field: string, shape: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TemplateError(field, `must be ${shape}`);
  return value as Record<string, unknown>;
}

function optionalText(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new TemplateError(field, 'must be a string');
  return value.trim() === '' ? undefined : value;
}

/** The editor stores booleans; a template may render one as text. */
function isTrue(value: unknown): boolean {
  return value === true || value === 'true';
}

/** Reads and renders the fields of one variant's content, naming the field in every error. */
class FieldRenderer {
  readonly missing: string[] = [];

  constructor(
    private readonly engine: TemplateEngine,
    private readonly content: JsonRecord,
    private readonly data: JsonRecord,
    private readonly translations: TranslationScope,
  ) {}

  has(name: string): boolean {
    return this.content[name] !== undefined && this.content[name] !== null;
  }

  /** A field that is text or structured (JSON whose strings are templates), rendered as it is written. */
  value(name: string): unknown {
    const source = this.content[name];
    if (source === undefined || source === null) return undefined;
    if (typeof source === 'string') return this.optional(name);
    const rendered = this.engine.renderJson(name, source, this.data, this.translations);
    this.noteMissingKeys(name);
    return rendered;
  }

  /** A switch of the content: `true`, or a template that renders to `true`. */
  flag(name: string): boolean {
    const source = this.content[name];
    if (typeof source === 'boolean') return source;
    return typeof source === 'string' && this.optional(name)?.trim() === 'true';
  }

  optional(name: string, html = false): string | undefined {
    const source = this.content[name];
    if (source === undefined || source === null) return undefined;
    if (typeof source !== 'string') throw new TemplateError(name, 'must be a string');
    const rendered = this.engine.render(name, source, this.data, html, this.translations);
    for (const path of this.engine.missingVariables(source, this.data)) this.missing.push(`${name}: ${path}`);
    this.noteMissingKeys(name);
    return rendered;
  }

  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined || value.trim() === '') throw new TemplateError(name, 'is required and rendered empty');
    return value;
  }

  stringList(name: string): string[] {
    const source = this.content[name] ?? [];
    if (!Array.isArray(source)) throw new TemplateError(name, 'must be an array of strings');
    return source.map((item, index) => {
      if (typeof item !== 'string') throw new TemplateError(`${name}[${index}]`, 'must be a string');
      const rendered = this.engine.render(`${name}[${index}]`, item, this.data, false, this.translations);
      this.noteMissingKeys(`${name}[${index}]`);
      return rendered;
    });
  }

  stringMap(name: string): Record<string, string> {
    const rendered = this.json(name) ?? {};
    if (typeof rendered !== 'object' || rendered === null || Array.isArray(rendered)) throw new TemplateError(name, 'must be an object');
    return Object.fromEntries(
      Object.entries(rendered).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
    );
  }

  /**
   * Structured content (blocks, cards, data): either JSON whose strings are templates,
   * or one template string that renders to JSON (how editors usually store blocks).
   */
  json(name: string): unknown {
    const source = this.content[name];
    if (source === undefined || source === null) return undefined;
    if (typeof source !== 'string') {
      const rendered = this.engine.renderJson(name, source, this.data, this.translations);
      this.noteMissingKeys(name);
      return rendered;
    }
    const text = this.engine.render(name, source, this.data, false, this.translations);
    this.noteMissingKeys(name);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new TemplateError(name, 'did not render to valid JSON');
    }
  }

  private reportedKeys = 0;

  /** The translation keys the last render of `name` found in no locale. */
  private noteMissingKeys(name: string): void {
    const keys = this.translations.missingKeys;
    for (const key of keys.slice(this.reportedKeys)) this.missing.push(`${name}: t "${key}"`);
    this.reportedKeys = keys.length;
  }
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

function assertNever(value: never): never {
  throw new Error(`unexpected channel ${String(value)}`);
}
