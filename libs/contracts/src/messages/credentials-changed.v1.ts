import { FieldError, ParseResult } from '../envelope';

/**
 * `notify.credentials.changed.v1`: management-api tells the services that
 * authenticate requests (ingest-api, preference-service, channel-dispatchers) which
 * credentials exist. API keys travel as SHA-256 hashes; workspace secrets travel sealed
 * (AES-256-GCM under HERALD_SECRETS_KEY, associated data `workspace_key:<id>`), never in
 * clear. The browser inbox's keys: public keys as SHA-256 hashes with the origins they
 * allow, signing keys as their public half only (the private half never leaves the
 * create response).
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
      /** The key may only read (GET, HEAD): a console viewer's key, or one minted for a dashboard. Absent: false. */
      readonly read_only?: boolean;
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
    }
  | {
      readonly kind: 'public_key';
      readonly change: 'created' | 'updated' | 'rotated' | 'deleted';
      readonly public_key_id: string;
      readonly workspace_id: string;
      readonly workspace_slug: string;
      /** Hex SHA-256 of the key. */
      readonly key_hash: string;
      /** Browser origins (`https://app.example.com`) the key may be used from; empty allows none. */
      readonly allowed_origins: readonly string[];
    }
  | {
      readonly kind: 'signing_key';
      readonly change: 'created' | 'rolled' | 'deleted';
      readonly signing_key_uid: string;
      readonly workspace_id: string;
      readonly workspace_slug: string;
      /** SPKI PEM of the ES256 (P-256) public key that verifies the customer's user tokens. */
      readonly public_key_pem: string;
    };

const CHANGES: Record<string, readonly string[]> = {
  api_key: ['created', 'deleted'],
  workspace_key: ['created', 'rotated', 'deleted'],
  public_key: ['created', 'updated', 'rotated', 'deleted'],
  signing_key: ['created', 'rolled', 'deleted'],
};

export function parseCredentialsChanged(payload: unknown): ParseResult<CredentialsChanged> {
  const errors: FieldError[] = [];
  const value = (payload ?? {}) as Record<string, unknown>;
  const text = (field: string): void => {
    if (typeof value[field] !== 'string' || value[field] === '') errors.push({ path: `payload.${field}`, message: 'must be a non-empty string' });
  };
  const changes = CHANGES[value.kind as string];
  if (changes === undefined) {
    errors.push({ path: 'payload.kind', message: `must be one of ${Object.keys(CHANGES).join(', ')}` });
  } else if (!changes.includes(value.change as string)) {
    errors.push({ path: 'payload.change', message: `must be one of ${changes.join(', ')}` });
  }
  if (value.kind === 'api_key') {
    ['api_key_id', 'workspace_id', 'workspace_slug', 'key_hash'].forEach(text);
    if (value.read_only !== undefined && typeof value.read_only !== 'boolean') errors.push({ path: 'payload.read_only', message: 'must be a boolean' });
  } else if (value.kind === 'workspace_key') {
    ['workspace_key_id', 'workspace_id', 'workspace_slug', 'key'].forEach(text);
    if (value.change !== 'deleted') text('secret_sealed');
  } else if (value.kind === 'public_key') {
    ['public_key_id', 'workspace_id', 'workspace_slug', 'key_hash'].forEach(text);
    const origins = value.allowed_origins;
    if (!Array.isArray(origins) || origins.some((origin) => typeof origin !== 'string')) {
      errors.push({ path: 'payload.allowed_origins', message: 'must be an array of strings' });
    }
  } else if (value.kind === 'signing_key') {
    ['signing_key_uid', 'workspace_id', 'workspace_slug', 'public_key_pem'].forEach(text);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as unknown as CredentialsChanged };
}
