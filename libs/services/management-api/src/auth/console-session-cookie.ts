/**
 * The console's session travels in an HttpOnly cookie, so a script injected into the page
 * could use the session while the page is open but never read it to take elsewhere. A
 * cookie-authenticated call must also carry `X-Herald-Console: 1`: another site cannot set
 * that header without a CORS preflight, which the management API never grants, so a
 * cross-site form or link can never act with the operator's cookie.
 */
export const SESSION_COOKIE = 'herald_session';
export const CONSOLE_HEADER = 'x-herald-console';

/** The value of the cookie `name` in a Cookie header, if present. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return decodeURIComponent(part.slice(at + 1).trim());
  }
  return undefined;
}

export interface CookieOptions {
  readonly maxAgeSeconds: number;
  /** Only over HTTPS (the request came in over https, directly or through a trusted proxy). */
  readonly secure: boolean;
  readonly path?: string;
}

/** A Set-Cookie value: HttpOnly and SameSite=Lax always (Lax: the identity provider's redirect back must carry it). */
export function setCookie(name: string, value: string, options: CookieOptions): string {
  return [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${options.path ?? '/'}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}
