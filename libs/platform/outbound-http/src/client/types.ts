import { AddressCategory } from '../address/address-policy';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export type QueryValue = string | number | boolean;

/** A JSON document (sent as application/json unless a content-type header says otherwise), or bytes with their type. */
export type OutboundBody = { readonly json: unknown } | { readonly raw: string | Uint8Array; readonly contentType: string };

export interface OutboundRequest {
  /** http: or https: only. */
  readonly url: string;
  /** Default GET. */
  readonly method?: HttpMethod;
  readonly headers?: Readonly<Record<string, string>>;
  /** Appended to the URL's own query. */
  readonly query?: Readonly<Record<string, QueryValue | readonly QueryValue[]>>;
  readonly body?: OutboundBody;
  /** Sent as `header: value` on every attempt and redirect, so the receiver can dedupe retries. */
  readonly idempotencyKey?: { readonly header: string; readonly value: string };
  /** Whole exchange: connect, redirects, reading the body. Default: the client's. */
  readonly timeoutMs?: number;
  /** Of the decoded (decompressed) body. Default: the client's. */
  readonly maxResponseBytes?: number;
  /** Default: the client's. 0 refuses any redirect. */
  readonly maxRedirects?: number;
  /**
   * Header names that carry credentials besides authorization, proxy-authorization and
   * cookie (e.g. `x-api-key`): all of them are dropped on a redirect to another origin.
   */
  readonly credentialHeaders?: readonly string[];
  /**
   * How the response body is handed back. `decoded` (the default): parsed JSON or text.
   * `bytes`: the decompressed body as a Buffer, whatever its content type, for callers
   * that pass it on as it is (an e-mail attachment, an image).
   */
  readonly responseType?: 'decoded' | 'bytes';
}

export interface OutboundResponse {
  readonly status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Parsed JSON when the content type is JSON (the text if it does not parse), else the
   * text; a Buffer when the request asked for `responseType: 'bytes'`.
   */
  readonly body: unknown;
  /** From the start of the exchange to the last byte, redirects included. */
  readonly durationMs: number;
  readonly redirects: number;
}

export type OutboundFailure =
  /** The destination (or a redirect's) is not an allowed address. Never retried. */
  | {
      readonly kind: 'blocked_address';
      readonly message: string;
      readonly host: string;
      readonly address: string;
      readonly category: AddressCategory;
    }
  | { readonly kind: 'timeout'; readonly message: string; readonly phase: 'connect' | 'total' }
  | { readonly kind: 'network'; readonly message: string; readonly code?: string }
  | { readonly kind: 'too_large'; readonly message: string; readonly limitBytes: number }
  /** A complete response that is not 2xx. */
  | { readonly kind: 'http_status'; readonly message: string; readonly status: number; readonly response: OutboundResponse }
  | { readonly kind: 'too_many_redirects'; readonly message: string; readonly limit: number }
  /** The request itself cannot be sent (bad URL or scheme, bad header, unserialisable body). */
  | { readonly kind: 'invalid_request'; readonly message: string };

export type FailureKind = OutboundFailure['kind'];

/** Never thrown: every outcome is a value, so callers record it in the run log as it is. */
export type OutboundResult =
  | { readonly ok: true; readonly response: OutboundResponse; readonly attempts: number }
  | { readonly ok: false; readonly failure: OutboundFailure; readonly attempts: number };

export type Send = (request: OutboundRequest) => Promise<OutboundResult>;

/**
 * One exchange (a request and its redirects). Deliberately without headers, bodies,
 * query or path: webhook URLs often carry their secret in the path (Slack, Discord).
 */
export interface ExchangeEvent {
  readonly method: HttpMethod;
  /** scheme://host:port of the requested URL. */
  readonly origin: string;
  readonly outcome: 'ok' | FailureKind;
  readonly status?: number;
  readonly durationMs: number;
  readonly redirects: number;
  /** The failure's message; it names hosts and addresses, never credentials. */
  readonly message?: string;
}

export interface OutboundHooks {
  /** Called after every exchange; for metrics and logs. Exceptions are ignored. */
  readonly onExchange?: (event: ExchangeEvent) => void;
}
