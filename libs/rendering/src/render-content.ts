import { Channel, JsonRecord } from '@herald/contracts';
import {
  EmailContent,
  InboxContent,
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

function renderInbox(fields: FieldRenderer): InboxContent {
  return withoutUndefined({
    channel: 'inbox',
    title: fields.optional('title') ?? fields.optional('header'),
    body: fields.optional('body') ?? fields.required('text'),
    avatar: fields.optional('avatar'),
    actionUrl: fields.optional('action_url') ?? fields.optional('url'),
  });
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
