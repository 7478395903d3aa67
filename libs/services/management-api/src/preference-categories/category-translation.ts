import { CategoryTextTranslation, CategoryTranslationDocument, FieldError, HeraldError } from '@herald/contracts';

/** A locale's translation of the category names: per section slug and per category slug (announced as is). */
export type CategoryTranslation = CategoryTranslationDocument;

/** A BCP 47 tag such as `es`, `es-AR`, `zh-Hant-TW` (as translation files name theirs). */
const LOCALE = /^[a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{2,8}){0,3}$/;
export const MAX_TRANSLATED_ENTRIES = 1_000;
export const MAX_TRANSLATED_TEXT = 1_000;
const MAX_SLUG = 255;

export function categoryLocaleOf(raw: string): string {
  if (!LOCALE.test(raw)) throw HeraldError.validation([{ path: 'locale', message: `invalid/unsupported locale: '${raw}' (a BCP 47 tag such as es or es-AR)` }]);
  return raw;
}

/**
 * The body of `POST .../translation/content/{locale}/`: only `sections` and `categories`, each
 * an object of slugs to `{name?, description?}` (strings or null). Bounded so that one
 * workspace cannot store an unbounded document; a missing text is stored as null.
 */
export function categoryTranslationOf(body: unknown): CategoryTranslation {
  if (!isObject(body)) throw HeraldError.validation([{ path: '', message: 'the body must be a JSON object' }]);
  const errors: FieldError[] = Object.keys(body)
    .filter((key) => key !== 'sections' && key !== 'categories')
    .map((key) => ({ path: key, message: 'is not a field of a category translation (sections, categories)' }));
  const sections = textsOf('sections', body.sections, errors);
  const categories = textsOf('categories', body.categories, errors);
  if (errors.length > 0) throw HeraldError.validation(errors);
  return { sections, categories };
}

function textsOf(field: string, raw: unknown, errors: FieldError[]): Record<string, CategoryTextTranslation> {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) {
    errors.push({ path: field, message: 'must be an object of slugs to {name, description}' });
    return {};
  }
  const entries = Object.entries(raw);
  if (entries.length > MAX_TRANSLATED_ENTRIES) errors.push({ path: field, message: `must have at most ${MAX_TRANSLATED_ENTRIES} entries` });
  const texts: Record<string, CategoryTextTranslation> = {};
  for (const [slug, entry] of entries.slice(0, MAX_TRANSLATED_ENTRIES)) {
    const path = `${field}.${slug}`;
    if (slug.trim() === '' || slug.length > MAX_SLUG) errors.push({ path: field, message: `a slug must have 1 to ${MAX_SLUG} characters` });
    if (!isObject(entry)) {
      errors.push({ path, message: 'must be an object {name, description}' });
      continue;
    }
    for (const key of Object.keys(entry).filter((each) => each !== 'name' && each !== 'description')) {
      errors.push({ path: `${path}.${key}`, message: 'is not a field of a translated text (name, description)' });
    }
    texts[slug] = { name: textOf(`${path}.name`, entry.name, errors), description: textOf(`${path}.description`, entry.description, errors) };
  }
  return texts;
}

function textOf(path: string, raw: unknown, errors: FieldError[]): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string') errors.push({ path, message: 'must be a string or null' });
  else if (raw.length > MAX_TRANSLATED_TEXT) errors.push({ path, message: `must have at most ${MAX_TRANSLATED_TEXT} characters` });
  else return raw;
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
