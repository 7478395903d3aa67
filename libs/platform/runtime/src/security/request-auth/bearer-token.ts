/**
 * `Authorization: Bearer <api_key>` on the notification API ({base_url}), and telling it
 * apart from the SDK signature `<workspace_key>:<signature>` (sdk-signature.ts).
 * Pure: no I/O.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export type AuthorizationKind = 'missing' | 'bearer' | 'sdk_signature' | 'unsupported';

/**
 * Which check a request's Authorization header asks for. `unsupported` covers every
 * other scheme (Basic, ServiceToken, ...), which the notification API rejects with 401.
 */
export function authorizationKind(authorization: string | undefined): AuthorizationKind {
  const value = authorization?.trim() ?? '';
  if (value === '') return 'missing';
  if (/^bearer(\s|$)/i.test(value)) return 'bearer';
  // "<workspace_key>:<base64>": one token, no scheme, with a colon.
  if (!/\s/.test(value) && value.includes(':')) return 'sdk_signature';
  return 'unsupported';
}

export type BearerTokenResult =
  | { readonly ok: true; readonly token: string }
  | {
      readonly ok: false;
      readonly reason: 'missing_authorization' | 'not_bearer' | 'malformed_bearer';
      readonly detail: string;
    };

/** Visible ASCII without spaces: RFC 6750's b64token and any opaque key format. */
const TOKEN = /^[\x21-\x7e]+$/;

/**
 * Parses `Bearer <token>`. The scheme is case-insensitive (RFC 7235); one or more spaces
 * separate it from the token; surrounding whitespace is ignored.
 */
export function parseBearerToken(authorization: string | undefined): BearerTokenResult {
  const value = authorization?.trim() ?? '';
  if (value === '') {
    return { ok: false, reason: 'missing_authorization', detail: 'the Authorization header is missing' };
  }
  const m = /^bearer(?:[ \t]+(.*))?$/is.exec(value);
  if (!m) {
    return { ok: false, reason: 'not_bearer', detail: 'the Authorization header does not use the Bearer scheme' };
  }
  const token = m[1] ?? '';
  if (token === '') {
    return { ok: false, reason: 'malformed_bearer', detail: 'the Bearer token is empty' };
  }
  if (!TOKEN.test(token)) {
    return {
      ok: false,
      reason: 'malformed_bearer',
      detail: 'the Bearer token must be a single token of visible ASCII characters',
    };
  }
  return { ok: true, token };
}

/**
 * Constant-time equality of two secrets of any length (an API key against a stored one):
 * both are hashed first so neither the content nor the length leaks through timing.
 */
export function secretsEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}
