import { OutboundFailure, OutboundHttp, OutboundResponse, createOutboundHttp } from '@herald/outbound-http';
import { HttpBytes, HttpPort, HttpRequest, HttpRequestError, HttpResponse } from './http.port';

/**
 * HttpPort over the guarded outbound client. No retries here: the dispatcher schedules
 * them in its ledger, so a retry never holds a consumer and never repeats a send the
 * ledger did not see. No redirects either: a vendor API answering a POST with a
 * redirect is misconfigured, and following it would resend the message elsewhere.
 */
export class GuardedHttp implements HttpPort {
  private readonly client: OutboundHttp;

  /** `allow`: HeraldConfig.outboundAllow. Throws InvalidCidrError on a bad range, so a bad setting stops the boot. */
  constructor(allow: readonly string[]) {
    this.client = createOutboundHttp({ allow, maxRedirects: 0 });
  }

  async request(request: HttpRequest): Promise<HttpResponse> {
    const contentType = headerOf(request.headers, 'content-type') ?? 'application/octet-stream';
    const result = await this.client.send({
      url: request.url,
      method: request.method,
      headers: request.headers,
      body: request.body === undefined ? undefined : { raw: request.body, contentType },
      timeoutMs: request.timeoutMs,
    });
    if (result.ok) return responseOf(result.response);
    if (result.failure.kind === 'http_status') return responseOf(result.failure.response);
    throw new HttpRequestError(result.failure.message, isTransient(result.failure));
  }

  async getBytes(url: string, options: { readonly maxBytes: number; readonly timeoutMs?: number }): Promise<HttpBytes> {
    const result = await this.client.send({ url, responseType: 'bytes', maxResponseBytes: options.maxBytes, timeoutMs: options.timeoutMs });
    if (result.ok) return bytesOf(result.response);
    if (result.failure.kind === 'http_status') return bytesOf(result.failure.response);
    throw new HttpRequestError(result.failure.message, isTransient(result.failure));
  }

  close(): void {
    this.client.close();
  }
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

function responseOf(response: OutboundResponse): HttpResponse {
  // The client parses JSON bodies; vendors read the text, as they would from any other client.
  const body = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
  return { status: response.status, headers: response.headers, body };
}

/** The client hands back a Buffer body for `responseType: 'bytes'`. */
function bytesOf(response: OutboundResponse): HttpBytes {
  return { status: response.status, contentType: response.headers['content-type'], body: response.body as Buffer };
}

function headerOf(headers: Readonly<Record<string, string>> | undefined, name: string): string | undefined {
  return Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
}
