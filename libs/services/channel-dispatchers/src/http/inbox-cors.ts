/** What the inbox answers a browser: the methods and headers SuprSend's web SDK uses. */
export const INBOX_CORS_METHODS = 'GET, PATCH, OPTIONS';
export const INBOX_CORS_HEADERS = 'authorization, content-type, x-ss-signature';

/** The headers that let a page of `origin` read an answer; `Vary` keeps caches from mixing origins. */
export function corsHeadersFor(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, vary: 'Origin' };
}

/** A preflight's answer for an origin some public key allows. */
export function preflightHeadersFor(origin: string): Record<string, string> {
  return {
    ...corsHeadersFor(origin),
    'access-control-allow-methods': INBOX_CORS_METHODS,
    'access-control-allow-headers': INBOX_CORS_HEADERS,
    'access-control-max-age': '600',
  };
}
