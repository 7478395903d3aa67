/**
 * Outbound HTTP: the one way Herald calls the outside world (webhook and fetch nodes,
 * vendor adapters). It enforces the address rule of decisions.md ("Outbound HTTP").
 *
 * Guarantees of `createOutboundHttp({ allow }).send(request)`:
 *
 * - Only public addresses are reached, plus those inside `allow` (HERALD_OUTBOUND_ALLOW).
 *   Refused: loopback, private, link-local, CGNAT, unspecified, multicast, broadcast,
 *   reserved and documentation ranges, and IPv6 forms standing for such an IPv4 address
 *   (IPv4-mapped/translated, NAT64, 6to4). Cloud metadata addresses (169.254.169.254,
 *   100.100.100.200, fd00:ec2::254) are refused unless `allow` names them exactly (/32,
 *   /128), so a broad range never opens them.
 * - The check is made on the address actually connected to, at connect time: the agents'
 *   `lookup` resolves the name and hands net.connect only the allowed addresses (no DNS
 *   rebinding window), IP literals are checked when the socket is created, and every
 *   redirect hop is a new request through the same agents. No proxy from the
 *   environment is used.
 * - A blocked address is the failure `blocked_address`, never retried.
 * - Bounded: a connect timeout (client option), a total deadline per exchange
 *   (redirects and body included), a cap on the decoded body, a redirect limit.
 * - Never throws: the result is `{ ok: true, response }` or `{ ok: false, failure }`,
 *   failure kinds `blocked_address | timeout | network | too_large | http_status |
 *   too_many_redirects | invalid_request`.
 * - Credentials stay put: authorization, proxy-authorization, cookie, Host and the request's
 *   `credentialHeaders` are dropped on a redirect to another origin; hook events and
 *   failures carry no headers, bodies, paths or query strings.
 *
 * `withRetries(policy)(send)` adds exponential backoff with full jitter on network
 * errors, timeouts, 5xx and 429 (honouring Retry-After, capped), and counts attempts.
 *
 * @example
 * const http = createOutboundHttp({ allow: config.outboundAllow, hooks: { onExchange: recordMetric } });
 * const send = withRetries({ maxAttempts: 3 })(http.send);
 * const result = await send({
 *   url: 'https://api.vendor.example/v1/messages',
 *   method: 'POST',
 *   headers: { authorization: `Bearer ${token}` },
 *   body: { json: { to, text } },
 *   idempotencyKey: { header: 'Idempotency-Key', value: envelopeId },
 *   timeoutMs: 10_000,
 * });
 * if (!result.ok && result.failure.kind === 'blocked_address') ...
 */
export { AddressCategory, AddressVerdict, checkAddress, classifyAddress } from './address/address-policy';
export { Cidr, InvalidCidrError, parseCidr, parseCidrList } from './address/cidr';
export { createOutboundHttp, OutboundHttp, OutboundHttpOptions } from './client/outbound-http';
export { Resolve } from './client/guarded-agents';
// For a caller that makes its own requests (no redirects, no decoding) on the same guarded connections: channel-dispatchers' vendor calls.
export { GuardedAgents, createGuardedAgents, systemResolve } from './client/guarded-agents';
export { failureFromError } from './client/failures';
export * from './client/types';
export { isRetryable } from './retry/retry-timing';
export { RetryEvent, RetryPolicy, withRetries } from './retry/with-retries';
