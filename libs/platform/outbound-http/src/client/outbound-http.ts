import axios, { AxiosHeaders, AxiosInstance, AxiosResponse } from 'axios';
import { Readable } from 'node:stream';
import { parseCidrList } from '../address/cidr';
import { failureFromError } from './failures';
import { createGuardedAgents, Resolve, systemResolve } from './guarded-agents';
import { InvalidRequest, PreparedRequest, prepareRequest } from './prepare-request';
import { nextHop, redirectLocation } from './redirect';
import { decodeBody, readBody } from './response-body';
import { ExchangeEvent, OutboundFailure, OutboundHooks, OutboundRequest, OutboundResponse, Send } from './types';

export interface OutboundHttpOptions {
  /** CIDR ranges that may be reached although not public: HeraldConfig.outboundAllow. */
  readonly allow: readonly string[];
  /** Resolving, connecting and the TLS handshake of each new connection. Default 5 s. */
  readonly connectTimeoutMs?: number;
  /** Default of OutboundRequest.timeoutMs: 15 s. */
  readonly timeoutMs?: number;
  /** Default of OutboundRequest.maxResponseBytes: 1 MiB. */
  readonly maxResponseBytes?: number;
  /** Default of OutboundRequest.maxRedirects: 5. */
  readonly maxRedirects?: number;
  /** Default "Herald". */
  readonly userAgent?: string;
  readonly hooks?: OutboundHooks;
  /** Host name resolution; tests swap it. Default: the system resolver. */
  readonly resolve?: Resolve;
}

export interface OutboundHttp {
  /** Never rejects: every outcome is an OutboundResult. */
  readonly send: Send;
  /** Closes pooled connections. */
  close(): void;
}

interface Limits {
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly maxRedirects: number;
  readonly credentialHeaders: readonly string[];
  readonly responseType: 'decoded' | 'bytes';
}

type StepOutcome = { readonly ok: true; readonly response: OutboundResponse } | { readonly ok: false; readonly failure: OutboundFailure };

type Outcome = StepOutcome & {
  /** Redirects followed, also when a later hop failed. */
  readonly redirects: number;
};

/**
 * The client. Throws InvalidCidrError when `allow` holds something that is not a range,
 * so a bad HERALD_OUTBOUND_ALLOW stops the service at boot.
 */
export function createOutboundHttp(options: OutboundHttpOptions): OutboundHttp {
  const agents = createGuardedAgents({
    allow: parseCidrList(options.allow),
    resolve: options.resolve ?? systemResolve,
    connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
  });
  const client = axios.create({
    adapter: 'http', // the only adapter that connects through our agents
    httpAgent: agents.http,
    httpsAgent: agents.https,
    proxy: false, // an HTTP(S)_PROXY from the environment would connect for us, unchecked
    maxRedirects: 0, // we follow redirects ourselves, see exchange()
    responseType: 'stream',
    validateStatus: () => true,
  });
  const userAgent = options.userAgent ?? 'Herald';

  const send: Send = async (request) => {
    const started = performance.now();
    const limits: Limits = {
      timeoutMs: request.timeoutMs ?? options.timeoutMs ?? 15_000,
      maxResponseBytes: request.maxResponseBytes ?? options.maxResponseBytes ?? 1024 * 1024,
      maxRedirects: request.maxRedirects ?? options.maxRedirects ?? 5,
      credentialHeaders: request.credentialHeaders ?? [],
      responseType: request.responseType ?? 'decoded',
    };
    const prepared = prepareRequest(request, userAgent);
    const outcome: Outcome =
      prepared instanceof InvalidRequest
        ? { ok: false, failure: { kind: 'invalid_request', message: prepared.message }, redirects: 0 }
        : await exchangeWithin(client, prepared, limits, started);
    notify(options.hooks, exchangeEvent(request, prepared, outcome, started));
    const { redirects: _, ...result } = outcome;
    return { ...result, attempts: 1 };
  };

  return {
    send,
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** The exchange under the total deadline, whatever it throws turned into a failure. */
async function exchangeWithin(client: AxiosInstance, first: PreparedRequest, limits: Limits, started: number): Promise<Outcome> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), limits.timeoutMs);
  const progress = { redirects: 0 };
  try {
    return { ...(await exchange(client, first, limits, { signal: deadline.signal, started, progress })), redirects: progress.redirects };
  } catch (error) {
    return { ok: false, failure: failureFromError(error, limits.timeoutMs, deadline.signal.aborted), redirects: progress.redirects };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Redirects are followed here rather than by follow-redirects, so each hop is an
 * ordinary request through the guarded agents (its address checked at connect time
 * like the first), under the same deadline, and with credentials kept to their origin.
 */
async function exchange(
  client: AxiosInstance,
  first: PreparedRequest,
  limits: Limits,
  { signal, started, progress }: { signal: AbortSignal; started: number; progress: { redirects: number } },
): Promise<StepOutcome> {
  let hop = first;
  for (;;) {
    const reply: AxiosResponse<Readable> = await client.request({
      url: hop.url.href,
      method: hop.method,
      headers: hop.headers,
      data: hop.body,
      signal,
    });
    // The http adapter always hands back AxiosHeaders; the declared type also allows plain objects.
    const headers = AxiosHeaders.from(reply.headers as AxiosHeaders).toJSON(true);
    const location = redirectLocation(reply.status, headers);
    if (location === undefined) return await finish(reply, headers, limits, progress.redirects, started);

    reply.data.destroy();
    if (progress.redirects >= limits.maxRedirects) {
      const message = `more redirects than the limit of ${limits.maxRedirects}`;
      return { ok: false, failure: { kind: 'too_many_redirects', message, limit: limits.maxRedirects } };
    }
    const next = nextHop(hop, reply.status, location, limits.credentialHeaders);
    if (next instanceof InvalidRequest) return { ok: false, failure: { kind: 'invalid_request', message: next.message } };
    hop = next;
    progress.redirects += 1;
  }
}

/**
 * Reads the final response. An error response past the size limit is still reported
 * by its status (with the body cut), since its status is what decides a retry.
 */
async function finish(
  reply: AxiosResponse<Readable>,
  headers: Record<string, string>,
  limits: Limits,
  redirects: number,
  started: number,
): Promise<StepOutcome> {
  const body = await readBody(reply.data, limits.maxResponseBytes);
  const succeeded = reply.status >= 200 && reply.status < 300;
  if (succeeded && !body.complete) {
    return { ok: false, failure: { kind: 'too_large', message: `response body over ${limits.maxResponseBytes} bytes`, limitBytes: limits.maxResponseBytes } };
  }
  const response: OutboundResponse = {
    status: reply.status,
    headers,
    body: limits.responseType === 'bytes' ? body.bytes : decodeBody(body, headers['content-type']),
    durationMs: elapsed(started),
    redirects,
  };
  if (succeeded) return { ok: true, response };
  return { ok: false, failure: { kind: 'http_status', message: `HTTP ${reply.status}`, status: reply.status, response } };
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

function exchangeEvent(request: OutboundRequest, prepared: PreparedRequest | InvalidRequest, outcome: Outcome, started: number): ExchangeEvent {
  const base = {
    method: request.method ?? 'GET',
    origin: prepared instanceof InvalidRequest ? 'invalid' : prepared.url.origin,
    durationMs: elapsed(started),
    redirects: outcome.redirects,
  };
  if (outcome.ok) return { ...base, outcome: 'ok', status: outcome.response.status };
  const { failure } = outcome;
  const status = failure.kind === 'http_status' ? { status: failure.status } : {};
  return { ...base, outcome: failure.kind, message: failure.message, ...status };
}

function notify(hooks: OutboundHooks | undefined, event: ExchangeEvent): void {
  try {
    hooks?.onExchange?.(event);
  } catch {
    // A broken metrics or log hook must not turn a delivered request into a failed one.
  }
}
