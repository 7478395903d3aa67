import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so the same content always gives
 * the same text (and hash) whatever order a client sent its keys in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/** Hex SHA-256 of the canonical JSON of a value. */
export function sha256Of(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => [key, sortKeys(record[key])]),
  );
}
