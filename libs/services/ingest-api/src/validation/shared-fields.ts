import { ObjectReader } from './json-reader';

/** decisions.md: `$idempotency_key` holds at most 255 characters after trimming. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * `$idempotency_key`, trimmed (a key that differs only by surrounding spaces is the same
 * key). Blank is an error: a client that sent one meant to deduplicate, and an empty
 * key would make every such request a repeat of the first.
 */
export function readIdempotencyKey(root: ObjectReader): string | undefined {
  const raw = root.string('$idempotency_key');
  if (raw === undefined) return undefined;
  const key = raw.trim();
  if (key.length >= 1 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH) return key;
  root.report('$idempotency_key', `must hold 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters after trimming`);
  return undefined;
}

/** `tenant_id`: a non-blank string when present. */
export function readTenantId(root: ObjectReader): { readonly tenant_id: string | undefined; readonly valid: boolean } {
  const tenant_id = root.string('tenant_id', { nonBlank: true });
  return { tenant_id, valid: tenant_id !== undefined || !root.has('tenant_id') };
}
