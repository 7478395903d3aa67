import Handlebars from 'handlebars';
import { JsonRecord } from '@herald/contracts';

/** A template that does not compile or render; the message fails with this reason. */
export class TemplateError extends Error {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`template error in ${field}: ${reason}`);
    this.name = 'TemplateError';
  }
}

const CACHE_CAPACITY = 2_000;

/**
 * What `{{t "key"}}` reads during one render: the translation of a key for the
 * recipient's locale (after its fallbacks), and where a key none of them has is noted.
 */
export interface TranslationScope {
  translate(key: string): string | undefined;
  readonly missingKeys: string[];
}

/**
 * Handlebars, isolated from the global instance (no helper or partial registered by
 * anyone else leaks in), with compiled templates cached by source: one workflow's
 * commands reuse the same few templates thousands of times.
 */
export class TemplateEngine {
  private readonly handlebars = Handlebars.create();
  private readonly compiled = new Map<string, HandlebarsTemplateDelegate>();
  private readonly placeholders = new Map<string, readonly (readonly string[])[]>();

  constructor() {
    // `{{t "key"}}` (`{{t "namespace:key"}}` for a namespaced file), as SuprSend's templates
    // write it. A translation may hold placeholders, rendered with the same data. A key no
    // locale has renders as the key itself and is noted: an empty string would go out unseen.
    this.handlebars.registerHelper('t', (key: unknown, options: Handlebars.HelperOptions) => {
      const frame = options.data as { root?: JsonRecord; translations?: TranslationScope; escape?: boolean } | undefined;
      const name = String(key);
      const translated = frame?.translations?.translate(name);
      if (translated === undefined) {
        frame?.translations?.missingKeys.push(name);
        return name;
      }
      const text = this.template(translated, frame?.escape === true)(frame?.root ?? {}, { allowProtoPropertiesByDefault: false });
      return new this.handlebars.SafeString(text);
    });
  }

  /**
   * Renders one string. `escape` is true only for HTML (email html); every other field
   * (subjects, SMS, chat text, push) is plain text, where `&amp;` would be a bug.
   */
  render(field: string, source: string, data: JsonRecord, escape: boolean, translations?: TranslationScope): string {
    try {
      return this.template(source, escape)(data, { allowProtoPropertiesByDefault: false, data: { translations, escape } });
    } catch (error) {
      throw new TemplateError(field, error instanceof Error ? error.message : String(error));
    }
  }

  /** Every string inside a JSON value (Slack blocks, Teams cards, push data) rendered as plain text. */
  renderJson(field: string, value: unknown, data: JsonRecord, translations?: TranslationScope): unknown {
    if (typeof value === 'string') return this.render(field, value, data, false, translations);
    if (Array.isArray(value)) return value.map((item, index) => this.renderJson(`${field}[${index}]`, item, data, translations));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.renderJson(`${field}.${key}`, item, data, translations)]));
    }
    return value;
  }

  /**
   * The plain placeholders of a template (`{{name}}`, `{{$recipient.name}}`, outside any
   * block) that the data has no value for: Handlebars renders them as nothing, so a
   * message would read "Hi , your plan is ." with no sign of why. Blocks are skipped (their
   * context is another object), and so are helpers.
   */
  missingVariables(source: string, data: JsonRecord): string[] {
    let paths = this.placeholders.get(source);
    if (paths === undefined) {
      paths = topLevelPaths(this.handlebars.parse(source)).filter((parts) => this.handlebars.helpers[parts[0]] === undefined);
      if (this.placeholders.size >= CACHE_CAPACITY) this.placeholders.delete(this.placeholders.keys().next().value as string);
      this.placeholders.set(source, paths);
    }
    return paths.filter((parts) => valueAt(data, parts) === undefined).map((parts) => parts.join('.'));
  }

  private template(source: string, escape: boolean): HandlebarsTemplateDelegate {
    const cacheKey = `${escape ? 'h' : 't'}:${source}`;
    const cached = this.compiled.get(cacheKey);
    if (cached) return cached;
    // compile() is lazy; parse first so a syntax error surfaces here, with its line.
    this.handlebars.parse(source);
    const template = this.handlebars.compile(source, { noEscape: !escape, strict: false });
    if (this.compiled.size >= CACHE_CAPACITY) this.compiled.delete(this.compiled.keys().next().value as string);
    this.compiled.set(cacheKey, template);
    return template;
  }
}

interface PlaceholderNode {
  readonly type: string;
  readonly path?: { readonly type: string; readonly parts: readonly string[]; readonly data?: boolean; readonly depth?: number };
  readonly params?: readonly unknown[];
  readonly hash?: unknown;
}

/** The paths of the program's own `{{path}}` statements (no params, no `@data`, no `../`). */
function topLevelPaths(program: { readonly body: readonly PlaceholderNode[] }): string[][] {
  return program.body.flatMap((node) =>
    node.type === 'MustacheStatement' &&
    node.path?.type === 'PathExpression' &&
    !node.path.data &&
    (node.path.depth ?? 0) === 0 &&
    node.path.parts.length > 0 &&
    (node.params?.length ?? 0) === 0 &&
    node.hash === undefined
      ? [[...node.path.parts]]
      : [],
  );
}

function valueAt(data: unknown, parts: readonly string[]): unknown {
  let value = data;
  for (const part of parts) {
    if (typeof value !== 'object' || value === null || !Object.prototype.hasOwnProperty.call(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
