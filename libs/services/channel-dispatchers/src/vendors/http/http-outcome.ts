import { BlockedAddressError } from '../net/address-guard';
import { SendResult, permanent, retryable } from '../vendor.port';
import { HttpPort, HttpRequest, HttpRequestError, HttpResponse } from './http.port';

/** How much of a vendor's error body goes into a failure reason. */
const REASON_BODY_CHARS = 300;

/**
 * 2xx is sent; 408, 425, 429 and 5xx may pass on retry; every other status is the
 * vendor refusing this message or this configuration, which a retry repeats.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

export function failureOf(vendor: string, response: HttpResponse): SendResult {
  const reason = `${vendor} answered ${response.status}: ${response.body.slice(0, REASON_BODY_CHARS)}`;
  return isRetryableStatus(response.status) ? retryable(reason) : permanent(reason);
}

/**
 * Calls the vendor. A request that got no answer (reset, timed out) is retryable, and so
 * is one the outbound guard refused (a private address not allowed): fixing
 * HERALD_OUTBOUND_ALLOW while the delivery is retried lets it go out.
 */
export async function callVendor(http: HttpPort, vendor: string, request: HttpRequest): Promise<HttpResponse | SendResult> {
  try {
    return await http.request(request);
  } catch (error) {
    return unreachable(vendor, error);
  }
}

/** No answer from the vendor: retryable (a refused address too: see callVendor), unless the request itself can never work. */
export function unreachable(vendor: string, error: unknown): SendResult {
  const reason = `${vendor} unreachable: ${error instanceof Error ? error.message : String(error)}`;
  if (error instanceof BlockedAddressError) return retryable(reason);
  return error instanceof HttpRequestError && !error.retryable ? permanent(reason) : retryable(reason);
}

export function isResponse(value: HttpResponse | SendResult): value is HttpResponse {
  return 'status' in value;
}

export function parseJson(body: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(body) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

export const JSON_HEADERS = { 'content-type': 'application/json' } as const;
export const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded' } as const;
