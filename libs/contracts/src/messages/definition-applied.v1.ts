import { FieldError, ParseResult } from '../envelope';
import { deterministicUuid } from '../ids';
import { DefinitionKind } from './definition-changed.v1';
import { EnvelopeMessage, envelopeMessage, envelopeOf } from './envelope-factory';

/**
 * `notify.definition.applied.v1`: a service's read model now holds a definition change
 * (`notify.definition.changed.v1`), published by the consumer that applied it. A commit in
 * management-api answers once the services the notification API depends on acknowledged
 * it, so a trigger sent right after a commit finds the new version (read-your-writes
 * without any service reading another's schema).
 */
export const DEFINITION_APPLIED_TYPE = 'definition.applied';
export const DEFINITION_APPLIED_VERSION = 1;

export interface DefinitionApplied {
  /** The service whose read model applied the change: `ingest-api`, `workflow-engine`, ... */
  readonly service: string;
  readonly workspace_id: string;
  readonly kind: DefinitionKind;
  readonly id: string;
  /** The definition's version now in the read model (a newer one may have replaced the announced one). */
  readonly version: number;
}

export function parseDefinitionApplied(payload: unknown): ParseResult<DefinitionApplied> {
  const value = (payload ?? {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const field of ['service', 'workspace_id', 'kind', 'id']) {
    if (typeof value[field] !== 'string' || value[field] === '') errors.push({ path: `payload.${field}`, message: 'must be a non-empty string' });
  }
  if (!Number.isInteger(value.version) || (value.version as number) < 1) errors.push({ path: 'payload.version', message: 'must be a positive integer' });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as unknown as DefinitionApplied };
}

/** The bus message of an acknowledgement, keyed by workspace; its id derives from what it acknowledges. */
export function definitionAppliedMessage(applied: DefinitionApplied, now: Date): EnvelopeMessage {
  const messageId = deterministicUuid('definition-applied', applied.service, applied.workspace_id, applied.kind, applied.id, String(applied.version));
  return envelopeMessage(applied.workspace_id, envelopeOf(DEFINITION_APPLIED_TYPE, DEFINITION_APPLIED_VERSION, messageId, applied.workspace_id, now, applied));
}
