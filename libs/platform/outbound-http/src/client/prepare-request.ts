import { validateHeaderName, validateHeaderValue } from 'node:http';
import { HttpMethod, OutboundBody, OutboundRequest, QueryValue } from './types';

/** One hop of an exchange, ready for the wire. Header names are lower case. */
export interface PreparedRequest {
  readonly url: URL;
  readonly method: HttpMethod;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
}

/** Why a request cannot be sent; it is the caller's to fix, so never retried. */
export class InvalidRequest {
  constructor(readonly message: string) {}
}

/** http: and https: only: axios would also serve data: URLs from memory. */
export function parseHttpUrl(text: string, base?: URL): URL | InvalidRequest {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return new InvalidRequest('not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return new InvalidRequest(`scheme ${url.protocol} is not allowed, only http: and https:`);
  }
  return url;
}

function appendQuery(url: URL, query: OutboundRequest['query']): void {
  for (const [name, value] of Object.entries(query ?? {})) {
    const values: readonly QueryValue[] = Array.isArray(value) ? value : [value as QueryValue];
    for (const item of values) url.searchParams.append(name, String(item));
  }
}

function serialise(body: OutboundBody): { bytes: Buffer; contentType: string } | InvalidRequest {
  if ('raw' in body) return { bytes: Buffer.from(body.raw), contentType: body.contentType };
  let text: string | undefined;
  try {
    text = JSON.stringify(body.json);
  } catch (error) {
    return new InvalidRequest(`body is not serialisable as JSON: ${(error as Error).message}`);
  }
  if (text === undefined) return new InvalidRequest('body is not serialisable as JSON');
  return { bytes: Buffer.from(text), contentType: 'application/json' };
}

function checkHeaders(headers: Readonly<Record<string, string>>): InvalidRequest | undefined {
  for (const [name, value] of Object.entries(headers)) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      // Node's message would quote the value, which may be a credential.
      return new InvalidRequest(`header "${name}" has an invalid name or value`);
    }
  }
  return undefined;
}

function lowerCaseNames(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** The first hop of a request. Pure; every check that needs no network happens here. */
export function prepareRequest(request: OutboundRequest, userAgent: string): PreparedRequest | InvalidRequest {
  const url = parseHttpUrl(request.url);
  if (url instanceof InvalidRequest) return url;
  appendQuery(url, request.query);

  const headers: Record<string, string> = { 'user-agent': userAgent, ...lowerCaseNames(request.headers ?? {}) };
  if (request.idempotencyKey) headers[request.idempotencyKey.header.toLowerCase()] = request.idempotencyKey.value;

  let body: Buffer | undefined;
  if (request.body !== undefined) {
    const serialised = serialise(request.body);
    if (serialised instanceof InvalidRequest) return serialised;
    body = serialised.bytes;
    headers['content-type'] ??= serialised.contentType;
  }
  const invalid = checkHeaders(headers);
  if (invalid) return invalid;
  return { url, method: request.method ?? 'GET', headers, body };
}
