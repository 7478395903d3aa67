import { FieldError, ParseResult } from '../envelope';

/**
 * `notify.credentials.changed.v1`: management-api tells the services that
 * authenticate requests (ingest-api, preference-service) which credentials exist.
 * API keys travel as SHA-256 hashes; workspace secrets travel sealed (AES-256-GCM
 * under HERALD_SECRETS_KEY, associated data `workspace_key:<id>`), never in clear.
 */
export const CREDENTIALS_CHANGED_TYPE = 'credentials.changed';
export const CREDENTIALS_CHANGED_VERSION = 1;

export type CredentialsChanged =
  | {
      readonly kind: 'api_key';
      readonly change: 'created' | 'deleted';
      readonly api_key_id: string;
      readonly workspace_id: string;
      readonly workspace_slug: string;
      /** Hex SHA-256 of the key. */
      readonly key_hash: string;
    }
  | {
      readonly kind: 'workspace_key';
      readonly change: 'created' | 'rotated' | 'deleted';
      readonly workspace_key_id: string;
      readonly workspace_id: string;
      readonly workspace_slug: string;
      readonly key: string;
      /** Base64 of the sealed secret; absent when deleted. */
      readonly secret_sealed?: string;
    };

export function parseCredentialsChanged(payload: unknown): ParseResult<CredentialsChanged> {
  const errors: FieldError[] = [];
  const value = (payload ?? {}) as Record<string, unknown>;
  const text = (field: string): void => {
    if (typeof value[field] !== 'string' || value[field] === '') errors.push({ path: `payload.${field}`, message: 'must be a non-empty string' });
  };
  if (value.kind === 'api_key') {
    if (!['created', 'deleted'].includes(value.change as string)) errors.push({ path: 'payload.change', message: 'must be created or deleted' });
    ['api_key_id', 'workspace_id', 'workspace_slug', 'key_hash'].forEach(text);
  } else if (value.kind === 'workspace_key') {
    if (!['created', 'rotated', 'deleted'].includes(value.change as string)) {
      errors.push({ path: 'payload.change', message: 'must be created, rotated or deleted' });
    }
    ['workspace_key_id', 'workspace_id', 'workspace_slug', 'key'].forEach(text);
    if (value.change !== 'deleted') text('secret_sealed');
  } else {
    errors.push({ path: 'payload.kind', message: 'must be api_key or workspace_key' });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as unknown as CredentialsChanged };
}
