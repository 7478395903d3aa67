import { KeyObject, verify } from 'node:crypto';
import { MAX_ID_LENGTH } from '@herald/contracts';

/** A signed user token is a few hundred bytes; anything much larger is refused unread. */
export const MAX_USER_TOKEN_LENGTH = 4096;
/** Tolerated drift between the customer's clock and ours, for `iat`. */
const CLOCK_SKEW_SECONDS = 60;
/** Default longest lifetime of a user token (HERALD_USER_TOKEN_MAX_LIFETIME_SECONDS). */
export const DEFAULT_USER_TOKEN_MAX_LIFETIME_SECONDS = 30 * 86_400;

export interface UserTokenClaims {
  readonly distinct_id: string;
  readonly tenant_id?: string;
  /** Seconds since the epoch. */
  readonly exp: number;
  readonly iat: number;
}

export type UserTokenResult = { readonly ok: true; readonly claims: UserTokenClaims } | { readonly ok: false; readonly reason: string; readonly detail: string };

/**
 * Verifies the user token a browser sends with a public key: a JWT signed ES256 by the
 * customer's backend with the workspace's signing key (any of `keys`), for one
 * `distinct_id` (SuprSend's `entity_id` of `entity_type: subscriber` is taken as well)
 * and optionally a tenant, with `exp` and `iat`. The token may live at most
 * `maxLifetimeSeconds` (`exp - iat`, and `exp` no further ahead of now), so a leaked one
 * stops working. Pure: the keys and the time are given.
 */
export function verifyUserToken(
  token: string,
  keys: readonly KeyObject[],
  nowSeconds: number,
  maxLifetimeSeconds: number = DEFAULT_USER_TOKEN_MAX_LIFETIME_SECONDS,
): UserTokenResult {
  const refuse = (reason: string, detail: string): UserTokenResult => ({ ok: false, reason, detail });
  if (token.length > MAX_USER_TOKEN_LENGTH) return refuse('token_too_large', `user token longer than ${MAX_USER_TOKEN_LENGTH} characters`);
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) return refuse('malformed_token', 'user token is not a signed JWT');
  const header = jsonOf(parts[0]);
  const payload = jsonOf(parts[1]);
  if (header === null || payload === null) return refuse('malformed_token', 'user token is not a signed JWT');
  // The algorithm is fixed, never taken from the token: no `none`, no HMAC with a public key.
  if (header.alg !== 'ES256') return refuse('wrong_algorithm', 'user token must be signed with ES256');
  if (keys.length === 0) return refuse('no_signing_key', 'the workspace has no signing key');
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
  const signature = Buffer.from(parts[2], 'base64url');
  if (signature.length !== 64 || !keys.some((key) => verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, signature))) {
    return refuse('bad_signature', 'user token signature does not verify with the workspace signing key');
  }
  // Both S forms of a signature verify, and both are taken: OpenSSL-based signers (Node's
  // crypto, jsonwebtoken, the README's example) emit high S for half their tokens. A second
  // spelling of one token grants nothing more: no token string is a key or a nonce here.
  const distinctId = payload.distinct_id ?? (payload.entity_type === 'subscriber' ? payload.entity_id : undefined);
  if (typeof distinctId !== 'string' || distinctId === '') return refuse('malformed_token', 'user token has no distinct_id');
  // Every route refuses an id past MAX_ID_LENGTH, so a token for a longer one could grant nothing.
  if (distinctId.length > MAX_ID_LENGTH) return refuse('malformed_token', `user token distinct_id must hold at most ${MAX_ID_LENGTH} characters`);
  if (payload.tenant_id !== undefined && typeof payload.tenant_id !== 'string') return refuse('malformed_token', 'user token tenant_id must be a string');
  if (typeof payload.exp !== 'number' || typeof payload.iat !== 'number') return refuse('malformed_token', 'user token needs numeric exp and iat');
  if (payload.exp <= nowSeconds) return refuse('token_expired', 'user token expired');
  if (payload.iat > nowSeconds + CLOCK_SKEW_SECONDS) return refuse('token_not_yet_valid', 'user token issued in the future');
  if (payload.exp - payload.iat > maxLifetimeSeconds || payload.exp > nowSeconds + maxLifetimeSeconds) {
    return refuse('lifetime_too_long', `user token lives longer than ${maxLifetimeSeconds} seconds (exp - iat, and exp from now)`);
  }
  return {
    ok: true,
    claims: { distinct_id: distinctId, ...(payload.tenant_id === undefined ? {} : { tenant_id: payload.tenant_id }), exp: payload.exp, iat: payload.iat },
  };
}

function jsonOf(part: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
