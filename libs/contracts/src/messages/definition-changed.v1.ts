import { FieldError, ParseResult } from '../envelope';

/**
 * `notify.definition.changed.v1`: management-api tells the other services what is
 * live in a workspace, so they keep read models and never read management's tables.
 * Each message carries the whole live document of what changed (a replay of the
 * topic rebuilds a read model); vendor credentials travel sealed, never in clear.
 */
export const DEFINITION_CHANGED_TYPE = 'definition.changed';
export const DEFINITION_CHANGED_VERSION = 1;

export type DefinitionKind = 'workflow' | 'template' | 'category' | 'category_translation' | 'vendor' | 'schema' | 'translation' | 'event_schema';

export interface DefinitionChanged {
  readonly kind: DefinitionKind;
  /** What happened: `committed` (a new live version), `enabled`, `disabled`, `upserted`, `deleted`. */
  readonly change: 'committed' | 'enabled' | 'disabled' | 'upserted' | 'deleted';
  readonly workspace_id: string;
  readonly workspace_slug: string;
  /**
   * The workflow or template slug, the category root (`categories`), the locale of a
   * category translation (`category_translation`), `<channel>/<vendor>`, `translations`,
   * or the event name (`event_schema`).
   */
  readonly id: string;
  /** Increases with every change of this definition, so a read model can drop stale messages. */
  readonly version: number;
  /** The live document after the change; absent when deleted. */
  readonly document?: unknown;
}

const KINDS: readonly DefinitionKind[] = ['workflow', 'template', 'category', 'category_translation', 'vendor', 'schema', 'translation', 'event_schema'];
const CHANGES = ['committed', 'enabled', 'disabled', 'upserted', 'deleted'];

export function parseDefinitionChanged(payload: unknown): ParseResult<DefinitionChanged> {
  const value = (payload ?? {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (!KINDS.includes(value.kind as DefinitionKind)) errors.push({ path: 'payload.kind', message: `must be one of ${KINDS.join(', ')}` });
  if (!CHANGES.includes(value.change as string)) errors.push({ path: 'payload.change', message: `must be one of ${CHANGES.join(', ')}` });
  for (const field of ['workspace_id', 'workspace_slug', 'id']) {
    if (typeof value[field] !== 'string' || value[field] === '') errors.push({ path: `payload.${field}`, message: 'must be a non-empty string' });
  }
  if (!Number.isInteger(value.version) || (value.version as number) < 1) errors.push({ path: 'payload.version', message: 'must be a positive integer' });
  if (value.change !== 'deleted' && value.document === undefined) errors.push({ path: 'payload.document', message: 'is required unless deleted' });
  else if (value.kind === 'category_translation' && value.change !== 'deleted') errors.push(...categoryTranslationErrors(value.document));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as unknown as DefinitionChanged };
}

/** A translated section or category text; null where the locale does not translate it. */
export interface CategoryTextTranslation {
  readonly name: string | null;
  readonly description: string | null;
}

/**
 * The document of kind `category_translation` (its `id` is the locale): the names and
 * descriptions of the preference sections and categories in that locale, per section
 * slug and per category slug.
 */
export interface CategoryTranslationDocument {
  readonly sections: Readonly<Record<string, CategoryTextTranslation>>;
  readonly categories: Readonly<Record<string, CategoryTextTranslation>>;
}

function categoryTranslationErrors(document: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (!isRecord(document)) return [{ path: 'payload.document', message: 'must be an object {sections, categories}' }];
  for (const field of ['sections', 'categories']) {
    const texts = document[field];
    if (!isRecord(texts)) {
      errors.push({ path: `payload.document.${field}`, message: 'must be an object of slugs to {name, description}' });
      continue;
    }
    for (const [slug, text] of Object.entries(texts)) {
      const ok = isRecord(text) && ['name', 'description'].every((key) => text[key] === null || typeof text[key] === 'string');
      if (!ok) errors.push({ path: `payload.document.${field}.${slug}`, message: 'must be {name, description}, each a string or null' });
    }
  }
  return errors;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
