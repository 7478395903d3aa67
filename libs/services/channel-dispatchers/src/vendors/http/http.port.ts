/**
 * The one way vendors reach HTTP. Today an axios adapter; the guarded client of
 * @herald/outbound-http (refusing private addresses unless HERALD_OUTBOUND_ALLOW lists
 * them, decisions.md "Outbound HTTP") replaces it behind this port.
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

export interface HttpPort {
  /** Resolves with any status; rejects only when no response arrived (connection, timeout). */
  request(request: HttpRequest): Promise<HttpResponse>;
}

export const HTTP_PORT = Symbol('HTTP_PORT');
