import { TranslationScope } from './template-engine';

/** Committed translations by locale, then key (`namespace:key` for a namespaced file's keys). */
export type LocaleTranslations = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** The language every lookup falls back to last, as SuprSend's (English, always present). */
export const BASE_LOCALE = 'en';

/** One committed locale file: its keys, under `namespace:` when the file has a namespace. */
export interface LocaleFile {
  readonly locale: string;
  readonly namespace: string | null;
  readonly content: Readonly<Record<string, string>>;
}

/** The lookup table of a set of files: by locale, then key (`namespace:key` for a namespaced file's keys). */
export function localeTranslationsOf(files: readonly LocaleFile[]): LocaleTranslations {
  const byLocale: Record<string, Record<string, string>> = {};
  for (const file of files) {
    const keys = (byLocale[file.locale] ??= {});
    for (const [key, text] of Object.entries(file.content)) keys[file.namespace ? `${file.namespace}:${key}` : key] = text;
  }
  return byLocale;
}

/** Where a key is looked for, in order: `fr-CA` → `fr` → the base language (no repeats). */
export function localeChain(locale: string | undefined, base: string = BASE_LOCALE): string[] {
  const chain: string[] = [];
  const add = (each: string) => {
    if (each !== '' && !chain.some((known) => known.toLowerCase() === each.toLowerCase())) chain.push(each);
  };
  const requested = (locale ?? '').trim().replace(/_/g, '-');
  add(requested);
  add(requested.split('-')[0]);
  add(base);
  return chain;
}

/** The `{{t}}` lookups of one render for a recipient's locale; locale codes match whatever their case. */
export function translationScope(translations: LocaleTranslations, locale: string | undefined, base: string = BASE_LOCALE): TranslationScope {
  const byLowerLocale = new Map(Object.entries(translations).map(([code, keys]) => [code.toLowerCase(), keys]));
  const files = localeChain(locale, base).flatMap((code) => {
    const keys = byLowerLocale.get(code.toLowerCase());
    return keys ? [keys] : [];
  });
  return {
    missingKeys: [],
    translate: (key) => {
      for (const keys of files) {
        if (Object.prototype.hasOwnProperty.call(keys, key)) return keys[key];
      }
      return undefined;
    },
  };
}
