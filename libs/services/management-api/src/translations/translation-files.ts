import { HeraldError } from '@herald/contracts';
import { TranslationBody } from './request-bodies';

/** One locale file as committed: what a version holds and definition.changed carries. */
export interface TranslationFile {
  readonly filename: string;
  readonly locale: string;
  readonly namespace: string | null;
  readonly content: Readonly<Record<string, string>>;
  readonly updated_at: string;
}

/** A draft change of a file: new content, or its deletion at the next commit. */
export interface TranslationDraft extends TranslationFile {
  readonly is_deleted: boolean;
}

export type TranslationAction = 'added' | 'updated' | 'deleted' | 'unchanged';

export interface TranslationFileView {
  readonly filename: string;
  readonly locale: string;
  readonly locale_name: string;
  readonly namespace: string | null;
  readonly action: TranslationAction;
  readonly updated_at: string;
}

export interface TranslationFileWithContent extends TranslationFileView {
  readonly content: Readonly<Record<string, string>>;
}

/** `<locale>.json` or `<namespace>.<locale>.json`, the locale a BCP 47 tag such as `fr`, `fr-CA`, `zh-Hant-TW`. */
const FILENAME = /^(?:([a-z0-9_-]{1,64})\.)?([a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{2,8}){0,3})\.json$/;

export function parseLocaleFile(filename: string, path = 'locale_file'): { locale: string; namespace: string | null } {
  const match = FILENAME.exec(filename);
  if (!match) throw HeraldError.validation([{ path, message: 'must be <locale>.json or <namespace>.<locale>.json, e.g. fr.json, fr-CA.json, auth.en.json' }]);
  return { namespace: match[1] ?? null, locale: match[2] };
}

/** The upsert's rule beside its schema: `locale`, if given, is the file name of the path. */
export function requireLocaleOfFile(filename: string, body: TranslationBody): Record<string, string> {
  if (body.locale !== undefined && body.locale !== filename) {
    throw HeraldError.validation([{ path: 'locale', message: `must be the file name of the path, ${JSON.stringify(filename)}` }]);
  }
  return body.content;
}

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

export function localeNameOf(locale: string): string {
  try {
    return languageNames.of(locale) ?? locale;
  } catch {
    return locale;
  }
}

const sameContent = (a: TranslationFile['content'], b: TranslationFile['content']) => JSON.stringify(sortedEntries(a)) === JSON.stringify(sortedEntries(b));
const sortedEntries = (content: TranslationFile['content']) => Object.entries(content).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export function fileView(file: TranslationFile, action: TranslationAction): TranslationFileView {
  return { filename: file.filename, locale: file.locale, locale_name: localeNameOf(file.locale), namespace: file.namespace, action, updated_at: file.updated_at };
}

/** What `file` is compared to `before` (the previous commit). */
export function actionOf(file: TranslationFile, before: readonly TranslationFile[]): TranslationAction {
  const previous = before.find((each) => each.filename === file.filename);
  if (!previous) return 'added';
  return sameContent(previous.content, file.content) ? 'unchanged' : 'updated';
}

/** The draft view: the live files with the drafts over them, each with what it changes. */
export function draftViews(live: readonly TranslationFile[], drafts: readonly TranslationDraft[]): TranslationFileWithContent[] {
  const byName = new Map<string, TranslationFileWithContent>();
  for (const file of live) byName.set(file.filename, { ...fileView(file, 'unchanged'), content: file.content });
  for (const draft of drafts) byName.set(draft.filename, { ...fileView(draft, draft.is_deleted ? 'deleted' : actionOf(draft, live)), content: draft.content });
  return [...byName.values()].sort((a, b) => (a.filename < b.filename ? -1 : 1));
}

/** The files a commit makes live: the live ones with the drafts applied (deleted ones gone). */
export function committedFiles(live: readonly TranslationFile[], drafts: readonly TranslationDraft[]): TranslationFile[] {
  const byName = new Map(live.map((file) => [file.filename, file]));
  for (const { is_deleted, ...file } of drafts) {
    if (is_deleted) byName.delete(file.filename);
    else byName.set(file.filename, file);
  }
  return [...byName.values()].sort((a, b) => (a.filename < b.filename ? -1 : 1));
}
