/**
 * Verification of the request signature the SuprSend backend SDKs send
 * (docs/sdk-compatibility.md has the details and the SDK source they come from):
 *
 *   Authorization: <workspace_key>:<base64(HMAC-SHA256(secret, string_to_sign))>
 *   string_to_sign = METHOD \n md5hex(body) \n Content-Type \n Date \n request_uri
 *
 * - md5hex(body) is the lowercase hex MD5 of the raw body bytes, and the EMPTY string
 *   (not the MD5 of nothing) when there is no body (every GET, and DELETEs without one).
 * - Content-Type and Date are the header values exactly as sent; a missing Content-Type
 *   signs as "".
 * - request_uri is the request target as sent: path plus `?query` when there is one, no
 *   scheme or host. The base URL's path prefix is part of it.
 *
 * Pure: no I/O, and the clock is a parameter.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { parseHttpDate } from './http-date';

/** Requests whose Date is further than this from the server's clock are rejected. */
export const SDK_SIGNATURE_MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

/** MD5 of zero bytes, which clients following the spec literally may sign for an empty body. */
const MD5_OF_EMPTY = 'd41d8cd98f00b204e9800998ecf8427e';

/** An HMAC-SHA256 is 32 bytes, 44 characters of padded base64. */
const SIGNATURE_BASE64 = /^[A-Za-z0-9+/]{43}=$/;

export interface StringToSignParts {
  /** HTTP method as sent (`POST`, `GET`, `PATCH`, `DELETE`). */
  readonly method: string;
  /** `contentMd5Hex(body)`: lowercase hex MD5 of the raw body, "" for an empty body. */
  readonly contentMd5: string;
  /** Content-Type header value as sent, "" when absent. */
  readonly contentType: string;
  /** Date header value as sent. */
  readonly date: string;
  /** Path plus `?query` (when non-empty), as sent. */
  readonly requestUri: string;
}

/** The string the SDKs sign. */
export function stringToSign(parts: StringToSignParts): string {
  return `${parts.method}\n${parts.contentMd5}\n${parts.contentType}\n${parts.date}\n${parts.requestUri}`;
}

/** Lowercase hex MD5 of the raw body, or "" for a missing or empty body (as the SDKs sign it). */
export function contentMd5Hex(body: Uint8Array | string | undefined): string {
  if (body === undefined || body.length === 0) return '';
  return createHash('md5').update(body).digest('hex');
}

/** base64 HMAC-SHA256 of the string to sign: the part after the colon of the Authorization header. */
export function computeSdkSignature(parts: StringToSignParts, secret: string): string {
  return createHmac('sha256', secret).update(stringToSign(parts), 'utf8').digest('base64');
}

/** The request as Herald received it. Header values are passed exactly as received. */
export interface SdkSignedRequest {
  readonly method: string;
  /**
   * The raw request target (Node's `req.url`, Fastify's `request.raw.url`): path and query
   * before any decoding or routing. An absolute-form target is reduced to path and query.
   */
  readonly requestUri: string;
  readonly contentType: string | undefined;
  readonly date: string | undefined;
  /** The raw body bytes, before JSON parsing; undefined or empty when there is none. */
  readonly body: Uint8Array | undefined;
  readonly authorization: string | undefined;
}

/** Builds the Authorization header value for a request, the way the SDKs do (tests, Herald's own clients). */
export function signSdkRequest(
  request: Omit<SdkSignedRequest, 'authorization' | 'date'> & { readonly date: string },
  workspaceKey: string,
  secret: string,
): string {
  const signature = computeSdkSignature(
    {
      method: request.method,
      contentMd5: contentMd5Hex(request.body),
      contentType: request.contentType ?? '',
      date: request.date,
      requestUri: request.requestUri,
    },
    secret,
  );
  return `${workspaceKey}:${signature}`;
}

export type SdkSignatureFailureReason =
  | 'missing_authorization'
  | 'malformed_authorization'
  | 'missing_date'
  | 'malformed_date'
  | 'date_out_of_range'
  | 'unknown_workspace_key'
  | 'signature_mismatch';

export type SdkSignatureResult =
  | { readonly ok: true; readonly workspaceKey: string }
  | { readonly ok: false; readonly reason: SdkSignatureFailureReason; readonly detail: string };

export type ParsedSdkAuthorization =
  | { readonly ok: true; readonly workspaceKey: string; readonly signature: Buffer }
  | { readonly ok: false; readonly reason: 'missing_authorization' | 'malformed_authorization'; readonly detail: string };

/**
 * Splits `<workspace_key>:<signature>`. Exposed so a caller can read the workspace key,
 * fetch its secret asynchronously, and then call `verifySdkSignature` with that secret.
 */
export function parseSdkAuthorization(authorization: string | undefined): ParsedSdkAuthorization {
  const value = authorization?.trim() ?? '';
  if (value === '') {
    return { ok: false, reason: 'missing_authorization', detail: 'the Authorization header is missing' };
  }
  if (/^bearer(\s|$)/i.test(value)) {
    return { ok: false, reason: 'malformed_authorization', detail: 'a Bearer token is not a workspace key signature' };
  }
  // base64 has no colon, so the last colon separates key and signature.
  const colon = value.lastIndexOf(':');
  if (colon < 0) {
    return {
      ok: false,
      reason: 'malformed_authorization',
      detail: 'the Authorization header must be "Bearer <api_key>" or "<workspace_key>:<signature>"',
    };
  }
  const workspaceKey = value.slice(0, colon);
  const signature = value.slice(colon + 1);
  if (workspaceKey === '' || /\s/.test(workspaceKey)) {
    return { ok: false, reason: 'malformed_authorization', detail: 'the workspace key before the colon is empty or contains spaces' };
  }
  if (!SIGNATURE_BASE64.test(signature)) {
    return {
      ok: false,
      reason: 'malformed_authorization',
      detail: 'the signature after the colon must be the base64 of an HMAC-SHA256 (44 characters)',
    };
  }
  return { ok: true, workspaceKey, signature: Buffer.from(signature, 'base64') };
}

/** Path and query of an absolute-form request target; anything else unchanged. */
function originForm(requestUri: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(requestUri)) return requestUri;
  try {
    const url = new URL(requestUri);
    return url.pathname + url.search;
  } catch {
    return requestUri;
  }
}

/**
 * The request URIs a genuine client may have signed for this request target: the target
 * as sent (Node, Python and Java SDKs), and the percent-decoded path with the query as
 * sent (the Go SDK signs `url.Path`, which is decoded: suprsend-go signature/signature.go).
 */
function candidateRequestUris(requestUri: string): string[] {
  const target = originForm(requestUri);
  const candidates = [target];
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? '' : target.slice(q + 1);
  if (path.includes('%')) {
    try {
      const decoded = decodeURIComponent(path);
      const goForm = query === '' ? decoded : `${decoded}?${query}`;
      if (goForm !== target) candidates.push(goForm);
    } catch {
      // not a valid percent-encoding: no decoded form to try
    }
  }
  return candidates;
}

/**
 * Verifies the SDK signature of a request. `lookupSecret` maps a workspace key to its
 * secret (or to several, while a rotated secret is still accepted); `now` is the server
 * clock. Comparison is constant-time. The caller answers every failure with 401
 * `authentication_failed`; `detail` is for logs and the error body's `detail`.
 */
export function verifySdkSignature(
  request: SdkSignedRequest,
  lookupSecret: (workspaceKey: string) => string | readonly string[] | undefined,
  now: Date,
  maxClockSkewMs: number = SDK_SIGNATURE_MAX_CLOCK_SKEW_MS,
): SdkSignatureResult {
  const auth = parseSdkAuthorization(request.authorization);
  if (!auth.ok) return auth;

  const dateHeader = request.date;
  if (dateHeader === undefined || dateHeader.trim() === '') {
    return { ok: false, reason: 'missing_date', detail: 'a signed request needs a Date header' };
  }
  const parsed = parseHttpDate(dateHeader, now);
  if (!parsed) {
    return {
      ok: false,
      reason: 'malformed_date',
      detail: 'the Date header must be an HTTP date such as "Sun, 06 Nov 1994 08:49:37 GMT" (RFC 7231) or ISO 8601',
    };
  }
  const skewMs = parsed.date.getTime() - now.getTime();
  if (Math.abs(skewMs) > maxClockSkewMs) {
    return {
      ok: false,
      reason: 'date_out_of_range',
      detail: `the Date header is ${Math.round(Math.abs(skewMs) / 1000)} s ${skewMs > 0 ? 'ahead of' : 'behind'} the server clock; at most ${maxClockSkewMs / 1000} s are accepted`,
    };
  }

  const found = lookupSecret(auth.workspaceKey);
  const secrets = (found === undefined ? [] : typeof found === 'string' ? [found] : found).filter((s) => s !== '');
  if (secrets.length === 0) {
    return { ok: false, reason: 'unknown_workspace_key', detail: 'no workspace has this workspace key' };
  }

  const md5 = contentMd5Hex(request.body);
  const md5Candidates = md5 === '' ? ['', MD5_OF_EMPTY] : [md5];
  const uriCandidates = candidateRequestUris(request.requestUri);
  const contentType = request.contentType ?? '';

  let match = false;
  for (const secret of secrets) {
    for (const contentMd5 of md5Candidates) {
      for (const requestUri of uriCandidates) {
        const expected = createHmac('sha256', secret)
          .update(stringToSign({ method: request.method, contentMd5, contentType, date: dateHeader, requestUri }), 'utf8')
          .digest();
        // Both are 32 bytes: parseSdkAuthorization only accepts a 44-character base64 signature.
        if (timingSafeEqual(expected, auth.signature)) match = true;
      }
    }
  }
  if (!match) {
    return {
      ok: false,
      reason: 'signature_mismatch',
      detail: 'the signature does not match this request (method, body MD5, Content-Type, Date and request URI are signed) under this workspace key',
    };
  }
  return { ok: true, workspaceKey: auth.workspaceKey };
}

/**
 * The identity of a signed request, for refusing to run an exact replay twice: SHA-256
 * over the workspace key, the decoded signature bytes and the Date header. The HMAC
 * already covers method, body, Content-Type, Date and request target, so two requests
 * share a key only if they carry the same signature, which is also true of the
 * spellings the verifier accepts for one signature (an empty body signed either way, the
 * path encoded or decoded). The bytes, not the base64 text, are hashed: the last base64
 * character has two unused bits, so four spellings decode to one signature.
 * Undefined when the Authorization header is not a signature.
 */
export function sdkSignatureReplayKey(authorization: string | undefined, date: string | undefined): string | undefined {
  const auth = parseSdkAuthorization(authorization);
  if (!auth.ok) return undefined;
  return createHash('sha256')
    .update(auth.workspaceKey, 'utf8')
    .update('\0')
    .update(auth.signature)
    .update('\0')
    .update(date ?? '', 'utf8')
    .digest('hex');
}
