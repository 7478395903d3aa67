import { IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { GuardedAgents, OutboundFailure, OutboundHttp, OutboundResponse, createGuardedAgents, createOutboundHttp, failureFromError, parseCidrList, systemResolve } from '@herald/outbound-http';
import { HttpBytes, HttpPort, HttpRequest, HttpRequestError, HttpResponse } from './http.port';

/** Vendor answers are small; a longer one is cut (it only feeds a failure reason or an id). */
const MAX_RESPONSE_BYTES = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 15_000;
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * HttpPort on the guarded keep-alive agents of @herald/outbound-http: every connection
 * goes to an address the outbound rule allows, checked at connect time. Vendor calls
 * are plain node:http requests on those agents: a vendor call needs no redirects, no
 * decoding and no retries, and the general client's layers (axios) cost about as much
 * CPU as the rest of a delivery (docs/architecture.md, Channel dispatchers). Attachments (`getBytes`)
 * go through the general client. No retries here: the dispatcher schedules them in its
 * ledger, so a retry never holds a consumer and never repeats a send the ledger did not
 * see. No redirects either: a vendor API answering a POST with a redirect is
 * misconfigured, and following it would resend the message elsewhere; its status is
 * returned as it is (a permanent failure for the vendor).
 */
export class GuardedHttp implements HttpPort {
  private readonly client: OutboundHttp;
  private readonly agents: GuardedAgents;

  /** `allow`: HeraldConfig.outboundAllow. Throws InvalidCidrError on a bad range, so a bad setting stops the boot. */
  constructor(allow: readonly string[]) {
    this.client = createOutboundHttp({ allow, maxRedirects: 0 });
    this.agents = createGuardedAgents({ allow: parseCidrList(allow), resolve: systemResolve, connectTimeoutMs: CONNECT_TIMEOUT_MS });
  }

  request(request: HttpRequest): Promise<HttpResponse> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return Promise.reject(new HttpRequestError(`invalid URL`, false));
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new HttpRequestError(`${url.protocol} URLs are not allowed`, false));
    const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: Record<string, string | number> = { 'user-agent': 'Herald', ...request.headers };
    if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
    return new Promise<HttpResponse>((resolve, reject) => {
      let timedOut = false;
      const outgoing = send(url, { method: request.method, headers, agent: url.protocol === 'https:' ? this.agents.https : this.agents.http }, (response) => {
        readResponse(response).then((answer) => {
          clearTimeout(timer);
          resolve(answer);
        }, fail);
      });
      const timer = setTimeout(() => {
        timedOut = true;
        outgoing.destroy();
      }, timeoutMs);
      function fail(error: unknown): void {
        clearTimeout(timer);
        reject(new HttpRequestError(failureFromError(error, timeoutMs, timedOut).message, true));
      }
      outgoing.on('error', fail);
      outgoing.on('close', () => clearTimeout(timer));
      outgoing.end(request.body);
    });
  }

  async getBytes(url: string, options: { readonly maxBytes: number; readonly timeoutMs?: number }): Promise<HttpBytes> {
    const result = await this.client.send({ url, responseType: 'bytes', maxResponseBytes: options.maxBytes, timeoutMs: options.timeoutMs });
    if (result.ok) return bytesOf(result.response);
    if (result.failure.kind === 'http_status') return bytesOf(result.failure.response);
    throw new HttpRequestError(result.failure.message, isTransient(result.failure));
  }

  close(): void {
    this.client.close();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

/** The status, lower-case headers and the body as text, cut at MAX_RESPONSE_BYTES. */
function readResponse(response: IncomingMessage): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    response.on('data', (chunk: Buffer) => {
      if (bytes < MAX_RESPONSE_BYTES) chunks.push(chunk);
      bytes += chunk.length;
    });
    response.on('error', reject);
    response.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      resolve({ status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8') });
    });
  });
}

/**
 * A network failure or a timeout may pass, and so may a refused address: that is
 * configuration (HERALD_OUTBOUND_ALLOW), and a delivery retried after the setting is
 * fixed goes out instead of being lost. An invalid request, a redirect and an oversized
 * 2xx answer (the vendor accepted the message; sending it again would duplicate it) do not.
 */
function isTransient(failure: OutboundFailure): boolean {
  return failure.kind === 'network' || failure.kind === 'timeout' || failure.kind === 'blocked_address';
}

/** The client hands back a Buffer body for `responseType: 'bytes'`. */
function bytesOf(response: OutboundResponse): HttpBytes {
  return { status: response.status, contentType: response.headers['content-type'], body: response.body as Buffer };
}

