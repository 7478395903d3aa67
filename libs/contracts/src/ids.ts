import { createHash } from 'node:crypto';

/**
 * A UUID (version 8, RFC 9562) derived from its parts, so that the same input always
 * names the same thing: a redelivered ingress message or a retried request yields
 * the same message ids, and consumers dedupe them.
 */
export function deterministicUuid(...parts: readonly string[]): string {
  const digest = createHash('sha256').update(parts.join('\u0000'), 'utf8').digest();
  digest[6] = (digest[6] & 0x0f) | 0x80;
  digest[8] = (digest[8] & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
