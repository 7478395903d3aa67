/**
 * How a producer outside Herald proves the workspace of a message it publishes to the
 * public ingress topics (README, "Kafka ingress"): two headers,
 *
 *   herald-workspace-key: <workspace_key>
 *   herald-signature:     base64(HMAC-SHA256(workspace_secret, <the message value bytes>))
 *
 * The value is the same JSON body as `POST /trigger/` or `POST /event/`. Pure: no I/O.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const INGRESS_WORKSPACE_KEY_HEADER = 'herald-workspace-key';
export const INGRESS_SIGNATURE_HEADER = 'herald-signature';

/** What a producer puts in `herald-signature`. */
export function signIngressMessage(value: Uint8Array | string, secret: string): string {
  return createHmac('sha256', secret).update(value).digest('base64');
}

/** Constant-time check of `herald-signature` against one secret. */
export function ingressSignatureMatches(value: Uint8Array, signature: string, secret: string): boolean {
  const expected = Buffer.from(signIngressMessage(value, secret), 'base64');
  const given = Buffer.from(signature, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
