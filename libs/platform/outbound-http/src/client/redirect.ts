import { InvalidRequest, parseHttpUrl, PreparedRequest } from './prepare-request';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Always dropped on a redirect to another origin, as browsers and follow-redirects do;
 * a caller's Host header names the first origin and would mislead the next.
 */
const ORIGIN_BOUND_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'host'];

/** Headers that describe a body, dropped with it. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding'];

/** The Location to follow, if the response is a redirect. */
export function redirectLocation(status: number, headers: Readonly<Record<string, string>>): string | undefined {
  return REDIRECT_STATUSES.has(status) ? headers['location'] : undefined;
}

function without(headers: Readonly<Record<string, string>>, names: ReadonlySet<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.has(name)));
}

/**
 * The request a redirect asks for. 303 turns anything but HEAD into a GET, and so
 * do 301 and 302 for a POST (what every client does, whatever RFC 9110 hoped);
 * 307 and 308 repeat the request as it was. Credentials stay with their origin.
 */
export function nextHop(
  current: PreparedRequest,
  status: number,
  location: string,
  credentialHeaders: readonly string[],
): PreparedRequest | InvalidRequest {
  const url = parseHttpUrl(location, current.url);
  if (url instanceof InvalidRequest) return new InvalidRequest(`redirect to an invalid location: ${url.message}`);

  const dropped = new Set<string>();
  if (url.origin !== current.url.origin) {
    for (const name of [...ORIGIN_BOUND_HEADERS, ...credentialHeaders]) dropped.add(name.toLowerCase());
  }
  const becomesGet = (status === 303 && current.method !== 'HEAD') || ((status === 301 || status === 302) && current.method === 'POST');
  if (becomesGet) BODY_HEADERS.forEach((name) => dropped.add(name));

  const headers = without(current.headers, dropped);
  return becomesGet ? { url, method: 'GET', headers } : { url, method: current.method, headers, body: current.body };
}
