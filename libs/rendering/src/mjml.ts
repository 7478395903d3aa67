import mjml2html from 'mjml';
import { Channel, JsonRecord } from '@herald/contracts';
import { RenderResult, renderContent } from './render-content';
import { TemplateEngine, TranslationScope } from './template-engine';

/** What MJML made of a source: the HTML (its Handlebars placeholders untouched) and its warnings, by line. */
export interface CompiledMjml {
  readonly html: string;
  readonly errors: readonly { readonly line: number; readonly message: string }[];
}

const CACHE_CAPACITY = 500;
/**
 * Compiled MJML by source. A compile costs about 10 ms of CPU (bench/rendering), a plain
 * HTML render a few microseconds: every message of a template version would pay it, so the
 * output is kept per source (one entry per template version's content) and the promise
 * itself is cached, so a batch's commands of the same variant compile once.
 */
const compiled = new Map<string, Promise<CompiledMjml>>();

/**
 * MJML to HTML. Handlebars placeholders pass through as text (MJML keeps `{{name}}` in
 * text, attributes and links), so the result is rendered as an `html` field is.
 * `mj-include` is ignored: it reads files of the server, which a template must not.
 * Validation is soft: an unknown tag or attribute is a warning with its line, and the rest
 * still compiles (management refuses such a variant at save time, `errors.mjml`).
 */
export function compileMjml(source: string): Promise<CompiledMjml> {
  const cached = compiled.get(source);
  if (cached) {
    // Most recently used last: the oldest entry is the first evicted.
    compiled.delete(source);
    compiled.set(source, cached);
    return cached;
  }
  const result = (async (): Promise<CompiledMjml> => {
    const output = await mjml2html(source, { validationLevel: 'soft', ignoreIncludes: true, keepComments: false });
    return { html: output.html, errors: output.errors.map((error) => ({ line: error.line, message: error.message })) };
  })();
  if (compiled.size >= CACHE_CAPACITY) compiled.delete(compiled.keys().next().value as string);
  compiled.set(source, result);
  // A compile that threw is not kept: the next render tries again (and fails the same way, uncached).
  result.catch(() => compiled.delete(source));
  return result;
}

/**
 * renderContent for a stored variant whose email content may be MJML (`mjml` instead of
 * `html`): the MJML is compiled first (cached), then rendered as HTML with the data. The
 * one entry point of the dispatchers and of management's previews, so a preview is what is
 * sent. A source MJML cannot compile at all is a result with the reason, never a throw.
 */
export async function renderVariant(
  engine: TemplateEngine,
  channel: Channel,
  content: JsonRecord,
  data: JsonRecord,
  options: { strict?: boolean; translations?: TranslationScope } = {},
): Promise<RenderResult> {
  if (channel !== 'email' || content.mjml === undefined || content.mjml === null) return renderContent(engine, channel, content, data, options);
  if (typeof content.mjml !== 'string') return { ok: false, reason: 'template error in mjml: must be a string' };
  let html: string;
  try {
    html = (await compileMjml(content.mjml)).html;
  } catch (error) {
    return { ok: false, reason: `template error in mjml: ${error instanceof Error ? error.message : String(error)}` };
  }
  const asHtml: Record<string, unknown> = { ...content, html };
  delete asHtml.mjml;
  return renderContent(engine, channel, asHtml as JsonRecord, data, options);
}
