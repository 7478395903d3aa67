import { CategoryTextTranslation, CategoryTranslationDocument, HeraldError } from '@herald/contracts';
import { CategoryTranslationBody } from './request-bodies';

/** A locale's translation of the category names: per section slug and per category slug (announced as is). */
export type CategoryTranslation = CategoryTranslationDocument;

/** A BCP 47 tag such as `es`, `es-AR`, `zh-Hant-TW` (as translation files name theirs). */
const LOCALE = /^[a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{2,8}){0,3}$/;

export function categoryLocaleOf(raw: string): string {
  if (!LOCALE.test(raw)) throw HeraldError.validation([{ path: 'locale', message: `invalid/unsupported locale: '${raw}' (a BCP 47 tag such as es or es-AR)` }]);
  return raw;
}

/** The stored translation of a body the schema passed: a section or category list left out is empty, a text left out null. */
export function categoryTranslationOf(body: CategoryTranslationBody): CategoryTranslation {
  return { sections: textsOf(body.sections), categories: textsOf(body.categories) };
}

function textsOf(texts: CategoryTranslationBody['sections']): Record<string, CategoryTextTranslation> {
  return Object.fromEntries(Object.entries(texts ?? {}).map(([slug, text]) => [slug, { name: text.name ?? null, description: text.description ?? null }]));
}
