/** The headers SuprSend's web SDK sends. */
const BROWSER_CORS_HEADERS = 'authorization, content-type, x-ss-signature';

/**
 * The headers that let a page of `origin` read an answer; `Vary` keeps caches from mixing
 * origins. Retry-After is no CORS-safelisted header: exposed, a page reads when a 429 ends.
 */
export function corsHeadersFor(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': 'Retry-After', vary: 'Origin' };
}

/** A preflight's answer for an origin some public key allows, for the route's `methods` (e.g. 'GET, PATCH, OPTIONS'). */
export function preflightHeadersFor(origin: string, methods: string): Record<string, string> {
  return {
    ...corsHeadersFor(origin),
    'access-control-allow-methods': methods,
    'access-control-allow-headers': BROWSER_CORS_HEADERS,
    'access-control-max-age': '600',
  };
}
