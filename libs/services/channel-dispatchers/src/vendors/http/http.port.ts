/**
 * The one way vendors reach HTTP. The module binds it to the guarded client of
 * @herald/outbound-http (`GuardedHttp`): private and loopback addresses are refused
 * unless HERALD_OUTBOUND_ALLOW lists them (decisions.md "Outbound HTTP").
 */
export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  readonly timeoutMs?: number;
}

export interface HttpResponse {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** A file fetched as it is: its bytes and the type the server gave it. */
export interface HttpBytes {
  readonly status: number;
  readonly contentType?: string;
  readonly body: Buffer;
}

export interface HttpPort {
  /**
   * Resolves with any status; rejects with an HttpRequestError only when no response
   * arrived (refused address, connection, timeout).
   */
  request(request: HttpRequest): Promise<HttpResponse>;
  /**
   * GETs a file (an e-mail attachment) as bytes, with the same address rule. Resolves
   * with any status; rejects with an HttpRequestError when no response arrived or the
   * body is over `maxBytes`.
   */
  getBytes(url: string, options: { readonly maxBytes: number; readonly timeoutMs?: number }): Promise<HttpBytes>;
  /** Closes pooled connections. */
  close(): void;
}

/** No response arrived; `retryable` says whether a later attempt could get one (a refused address never does). */
export class HttpRequestError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'HttpRequestError';
  }
}

export const HTTP_PORT = Symbol('HTTP_PORT');
