import { FieldError, ParseResult } from '../envelope';

/**
 * `notify.definition.changed.v1`: management-api tells the other services what is
 * live in a workspace, so they keep read models and never read management's tables.
 * Each message carries the whole live document of what changed (a replay of the
 * topic rebuilds a read model); vendor credentials travel sealed, never in clear.
 */
export const DEFINITION_CHANGED_TYPE = 'definition.changed';
export const DEFINITION_CHANGED_VERSION = 1;

export type DefinitionKind = 'workflow' | 'template' | 'category' | 'vendor' | 'schema' | 'translation' | 'event_schema';

export interface DefinitionChanged {
  readonly kind: DefinitionKind;
  /** What happened: `committed` (a new live version), `enabled`, `disabled`, `upserted`, `deleted`. */
  readonly change: 'committed' | 'enabled' | 'disabled' | 'upserted' | 'deleted';
  readonly workspace_id: string;
  readonly workspace_slug: string;
  /** The workflow or template slug, the category root (`categories`), `<channel>/<vendor>`, `translations`, or the event name (`event_schema`). */
  readonly id: string;
  /** Increases with every change of this definition, so a read model can drop stale messages. */
  readonly version: number;
  /** The live document after the change; absent when deleted. */
  readonly document?: unknown;
}

const KINDS: readonly DefinitionKind[] = ['workflow', 'template', 'category', 'vendor', 'schema', 'translation', 'event_schema'];
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
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as unknown as DefinitionChanged };
}
