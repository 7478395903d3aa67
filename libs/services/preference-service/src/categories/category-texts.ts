import { CategoryTextTranslation, CategoryTranslationDocument, HeraldError } from '@herald/contracts';
import { localeChain } from '@herald/rendering';

/** A BCP 47 tag such as `es`, `es-AR`, `zh-Hant-TW`, as management-api accepts for category translations. */
const LOCALE = /^[a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{2,8}){0,3}$/;

/** The optional `locale` query parameter of the preference reads; a bad one is a 400 naming `locale`. */
export function localeQuery(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !LOCALE.test(value)) {
    throw HeraldError.validation([{ path: 'locale', message: 'must be a BCP 47 locale such as es or es-AR' }]);
  }
  return value;
}

/** The locales to look a text up in, most specific first: locale-region, language, then `en`. */
export function translationLocales(locale: string | undefined): string[] {
  return locale === undefined ? [] : localeChain(locale).map((each) => each.toLowerCase());
}

interface Text {
  readonly name: string;
  readonly description?: string | null;
}

/**
 * The names and descriptions of sections and categories in a requested locale: each field
 * from the first locale of the chain that translates it, else the text as committed.
 * `documents` are the chain's translations, most specific first.
 */
export class CategoryTexts {
  static readonly untranslated = new CategoryTexts([]);

  constructor(private readonly documents: readonly CategoryTranslationDocument[]) {}

  section<T extends Text>(section: T): { name: string; description: string | null } {
    return this.pick(section, (document) => own(document.sections, sectionSlug(section.name)) ?? own(document.sections, section.name));
  }

  category<T extends Text>(slug: string, category: T): { name: string; description: string | null } {
    return this.pick(category, (document) => own(document.categories, slug));
  }

  private pick(text: Text, entryOf: (document: CategoryTranslationDocument) => CategoryTextTranslation | undefined): { name: string; description: string | null } {
    const entries = this.documents.map(entryOf);
    return {
      name: entries.find((entry) => typeof entry?.name === 'string')?.name ?? text.name,
      description: entries.find((entry) => typeof entry?.description === 'string')?.description ?? text.description ?? null,
    };
  }
}

/** Own entries only: a slug such as `constructor` must not find Object's. */
function own(texts: Readonly<Record<string, CategoryTextTranslation>>, key: string): CategoryTextTranslation | undefined {
  return Object.prototype.hasOwnProperty.call(texts, key) ? texts[key] : undefined;
}

/**
 * Sections have no slug of their own: a translation names one by its slugged name
 * (`Account Updates` -> `account-updates`) or by the name itself.
 */
export function sectionSlug(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
