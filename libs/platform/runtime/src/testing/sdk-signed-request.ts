import { computeSdkSignature, contentMd5Hex } from '../security/request-auth/sdk-signature';

export interface SdkSignedRequestOptions {
  /** The body sent; none when undefined. */
  readonly body?: string;
  /** The body the signature covers, when a test wants it to differ from the one sent (default: `body`). */
  readonly signedBody?: string;
  /** The md5 field signed, overriding the one of `signedBody` (e.g. the md5 of zero bytes for an empty body). */
  readonly signedContentMd5?: string;
  /** The Date header (default: now, as `toUTCString()`, which is what the Node SDK sends). */
  readonly date?: string;
}

/**
 * A request signed the way the SuprSend SDKs sign it (`Authorization: <workspace_key>:<HMAC>`,
 * `Date`, `Content-Type: application/json; charset=utf-8`), as a fetch `RequestInit`.
 * Sending the same init twice is an exact replay.
 */
export function sdkSignedRequest(url: string, method: string, credentials: { readonly workspaceKey: string; readonly secret: string }, options: SdkSignedRequestOptions = {}): RequestInit {
  const contentType = 'application/json; charset=utf-8';
  const date = options.date ?? new Date().toUTCString();
  const target = new URL(url);
  const signedBody = 'signedBody' in options ? options.signedBody : options.body;
  const contentMd5 = options.signedContentMd5 ?? contentMd5Hex(signedBody === undefined ? undefined : Buffer.from(signedBody, 'utf8'));
  const signature = computeSdkSignature({ method, contentMd5, contentType, date, requestUri: target.pathname + target.search }, credentials.secret);
  return { method, headers: { authorization: `${credentials.workspaceKey}:${signature}`, date, 'content-type': contentType }, body: options.body };
}
