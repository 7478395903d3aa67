import { createHash, createHmac, createPublicKey, createVerify, timingSafeEqual, verify as verifySignature } from 'node:crypto';

/**
 * How each vendor signs its status callbacks, checked as the vendor documents it, free of
 * I/O (the SNS certificate is fetched by the caller). Every check answers a reason when
 * it refuses (never the secret), undefined when the request is the vendor's.
 */
export type SignatureCheck = string | undefined;

/** Equal strings, compared in constant time (a length mismatch answers at once: lengths are not secret). */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * SendGrid's signed event webhook: an ECDSA (P-256, SHA-256) signature, base64 DER, of the
 * timestamp header followed by the raw body, verified with the verification key SendGrid
 * shows (base64 DER of the public key).
 */
export function checkSendgridSignature(rawBody: Buffer, signature: string | undefined, timestamp: string | undefined, verificationKey: string): SignatureCheck {
  if (!signature || !timestamp) return 'X-Twilio-Email-Event-Webhook-Signature and -Timestamp are required';
  try {
    const key = createPublicKey({ key: Buffer.from(verificationKey, 'base64'), format: 'der', type: 'spki' });
    const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]);
    return verifySignature('sha256', signed, key, Buffer.from(signature, 'base64')) ? undefined : 'the signature does not match';
  } catch {
    return 'the signature does not match';
  }
}

/** Mailgun: HMAC-SHA256 (hex) of timestamp followed by token, keyed with the webhook signing key. */
export function checkMailgunSignature(signature: { timestamp?: unknown; token?: unknown; signature?: unknown } | undefined, signingKey: string): SignatureCheck {
  if (!signature || typeof signature.timestamp !== 'string' || typeof signature.token !== 'string' || typeof signature.signature !== 'string') {
    return 'signature.timestamp, signature.token and signature.signature are required';
  }
  const expected = createHmac('sha256', signingKey).update(signature.timestamp + signature.token).digest('hex');
  return sameSecret(signature.signature.toLowerCase(), expected) ? undefined : 'the signature does not match';
}

/** Postmark signs nothing: the webhook URL carries basic-auth credentials, which Postmark sends in `Authorization`. */
export function checkBasicAuth(authorization: string | undefined, username: string, password: string): SignatureCheck {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '');
  if (!match) return 'basic authentication is required';
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'basic authentication is required';
  // Both halves compared, whatever the first says: no early answer to time.
  const userOk = sameSecret(decoded.slice(0, colon), username);
  const passwordOk = sameSecret(decoded.slice(colon + 1), password);
  return userOk && passwordOk ? undefined : 'the credentials do not match';
}

/**
 * Twilio: base64 HMAC-SHA1, keyed with the auth token, of the full URL Twilio called
 * followed by each POST parameter's name and value, sorted by name.
 */
export function twilioSignature(url: string, params: Readonly<Record<string, string>>, authToken: string): string {
  const data = url + Object.keys(params).sort().map((name) => name + params[name]).join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

export function checkTwilioSignature(signature: string | undefined, url: string, params: Readonly<Record<string, string>>, authToken: string): SignatureCheck {
  if (!signature) return 'X-Twilio-Signature is required';
  return sameSecret(signature, twilioSignature(url, params, authToken)) ? undefined : 'the signature does not match';
}

export const VONAGE_SIGNATURE_METHODS = ['md5hash', 'md5', 'sha1', 'sha256', 'sha512'] as const;
export type VonageSignatureMethod = (typeof VONAGE_SIGNATURE_METHODS)[number];

/**
 * Vonage's signed SMS webhooks (`sig`): the parameters but `sig`, sorted by name, as
 * `&name=value` with `&` and `=` in values replaced by `_`; then `md5hash` is the MD5 of
 * that string followed by the signature secret, the others an HMAC of it keyed with the
 * secret. Hex, compared without case.
 */
export function vonageSignature(params: Readonly<Record<string, string>>, secret: string, method: VonageSignatureMethod): string {
  const data = Object.keys(params)
    .filter((name) => name !== 'sig')
    .sort()
    .map((name) => `&${name}=${params[name].replace(/[&=]/g, '_')}`)
    .join('');
  if (method === 'md5hash') return createHash('md5').update(data + secret, 'utf8').digest('hex');
  return createHmac(method, secret).update(data, 'utf8').digest('hex');
}

export function checkVonageSignature(params: Readonly<Record<string, string>>, secret: string, method: VonageSignatureMethod): SignatureCheck {
  const given = params.sig;
  if (!given) return 'the sig parameter is required (signed webhooks)';
  return sameSecret(given.toLowerCase(), vonageSignature(params, secret, method)) ? undefined : 'the signature does not match';
}

/** Meta (WhatsApp Cloud API): `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body, keyed with the app secret>`. */
export function checkMetaSignature(rawBody: Buffer, header: string | undefined, appSecret: string): SignatureCheck {
  if (!header?.startsWith('sha256=')) return 'X-Hub-Signature-256 is required';
  const expected = createHmac('sha256', appSecret).update(rawBody).digest('hex');
  return sameSecret(header.slice('sha256='.length).toLowerCase(), expected) ? undefined : 'the signature does not match';
}

/** How far a svix timestamp may be from now: svix's own libraries allow 5 minutes. */
export const SVIX_TOLERANCE_MS = 5 * 60_000;

/**
 * Resend signs with svix: `svix-signature` lists `v1,<base64 HMAC-SHA256>` entries (one per
 * secret while one rotates), of `<svix-id>.<svix-timestamp>.<raw body>`, keyed with the
 * secret's bytes (base64 after `whsec_`). The timestamp must be within 5 minutes.
 */
export function checkSvixSignature(
  rawBody: Buffer,
  headers: { id?: string; timestamp?: string; signature?: string },
  secret: string,
  now: Date,
): SignatureCheck {
  if (!headers.id || !headers.timestamp || !headers.signature) return 'svix-id, svix-timestamp and svix-signature are required';
  const seconds = Number(headers.timestamp);
  if (!Number.isFinite(seconds) || Math.abs(now.getTime() - seconds * 1000) > SVIX_TOLERANCE_MS) return 'svix-timestamp is not within 5 minutes of now';
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${headers.id}.${headers.timestamp}.`).update(rawBody).digest('base64');
  const matches = headers.signature.split(' ').some((entry) => entry.startsWith('v1,') && sameSecret(entry.slice(3), expected));
  return matches ? undefined : 'the signature does not match';
}

/** The fields of an SNS message its signature covers, by type, in the order SNS signs them. */
const SNS_SIGNED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

/** Where SNS keeps its signing certificates: an https URL on an sns.<region>.amazonaws.com host, a .pem file. */
export function snsCertificateUrlProblem(url: unknown): string | undefined {
  if (typeof url !== 'string') return 'SigningCertURL is required';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'SigningCertURL is not a URL';
  }
  const amazon = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/.test(parsed.hostname);
  return parsed.protocol === 'https:' && amazon && parsed.pathname.endsWith('.pem') ? undefined : 'SigningCertURL is not an SNS certificate URL';
}

/** The text SNS signs: each signed field present, as `name\nvalue\n`. */
export function snsStringToSign(message: Readonly<Record<string, unknown>>): string | undefined {
  const fields = SNS_SIGNED_FIELDS[String(message.Type)];
  if (!fields) return undefined;
  return fields
    .filter((field) => typeof message[field] === 'string')
    .map((field) => `${field}\n${String(message[field])}\n`)
    .join('');
}

/**
 * An SNS message's signature (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA) with the
 * certificate of its SigningCertURL (already fetched from an SNS host, see
 * snsCertificateUrlProblem).
 */
export function checkSnsSignature(message: Readonly<Record<string, unknown>>, certificatePem: string): SignatureCheck {
  const text = snsStringToSign(message);
  if (text === undefined) return `Type ${String(message.Type)} is not an SNS message type`;
  const algorithm = message.SignatureVersion === '1' ? 'RSA-SHA1' : message.SignatureVersion === '2' ? 'RSA-SHA256' : undefined;
  if (!algorithm) return 'SignatureVersion must be 1 or 2';
  if (typeof message.Signature !== 'string') return 'Signature is required';
  try {
    const verifier = createVerify(algorithm);
    verifier.update(text, 'utf8');
    return verifier.verify(certificatePem, Buffer.from(message.Signature, 'base64')) ? undefined : 'the signature does not match';
  } catch {
    return 'the signature does not match';
  }
}

/**
 * Plivo's V3 signature (`X-Plivo-Signature-V3`, with `X-Plivo-Signature-V3-Nonce`): base64
 * HMAC-SHA256, keyed with the auth token, of `<url>.<nonce>`, where the URL is the one
 * Plivo called without its query, then `?` and its query parameters sorted as `name=value`
 * joined by `&`; a POST's form parameters follow, sorted, as `namevalue` (after a `.` when
 * there was a query). The header may list several signatures, comma-separated (one per
 * active auth token). V2 (URL and nonce only) is not taken: it does not cover the body, so
 * a signature seen once would carry any body.
 */
export function plivoV3Signature(method: 'GET' | 'POST', url: string, postParams: Readonly<Record<string, string>>, nonce: string, authToken: string): string {
  const parsed = new URL(url);
  const sorted = (pairs: Array<[string, string]>): Array<[string, string]> => pairs.sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  const query = sorted([...parsed.searchParams.entries()])
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const post = method === 'POST' ? sorted(Object.entries(postParams)) : [];
  let base = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  if (query.length > 0 || post.length > 0) base += `?${query}`;
  if (query.length > 0 && post.length > 0) base += '.';
  base += post.map(([name, value]) => name + value).join('');
  return createHmac('sha256', authToken).update(`${base}.${nonce}`, 'utf8').digest('base64');
}

export function checkPlivoSignature(
  method: 'GET' | 'POST',
  url: string,
  postParams: Readonly<Record<string, string>>,
  headers: { signature?: string; nonce?: string },
  authToken: string,
): SignatureCheck {
  if (!headers.signature || !headers.nonce) return 'X-Plivo-Signature-V3 and X-Plivo-Signature-V3-Nonce are required';
  const expected = plivoV3Signature(method, url, postParams, headers.nonce, authToken);
  return headers.signature.split(',').some((given) => sameSecret(given.trim(), expected)) ? undefined : 'the signature does not match';
}
