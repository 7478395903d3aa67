import { ECDH, KeyObject, createDecipheriv, createPublicKey, hkdfSync } from 'node:crypto';
import { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { verifiedJwt } from './jwt-check';

export interface ReceivedWebPush {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly vapid: { readonly claims: Record<string, unknown>; readonly publicKey: string };
  /** The decrypted payload. */
  readonly payload: string;
}

/** The browser's side of one subscription: its ECDH key pair and auth secret, which decrypt what is pushed to it. */
export interface SubscriberKeys {
  readonly ecdh: ECDH;
  readonly authSecret: Buffer;
}

/**
 * A push service (as FCM, Mozilla's or Apple's web push endpoints behave) on a local
 * server. It refuses what they refuse: a missing or badly signed VAPID header (RFC
 * 8292, ES256 by the key in `k=`, audience the endpoint's origin, expiry within 24 h),
 * a content encoding other than aes128gcm, a missing TTL. It decrypts the body as the
 * browser would (RFC 8291) and answers from a script of statuses, else 201.
 */
export class LocalPushService {
  readonly received: ReceivedWebPush[] = [];
  private readonly statuses: number[] = [];
  private server?: Server;

  private constructor(private readonly subscriber: SubscriberKeys) {}

  static async start(subscriber: SubscriberKeys): Promise<LocalPushService> {
    const local = new LocalPushService(subscriber);
    local.server = createServer((request, response) => void local.handle(request, response));
    local.server.keepAliveTimeout = 1;
    await new Promise<void>((resolve) => local.server?.listen(0, '127.0.0.1', () => resolve()));
    return local;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  failWith(...statuses: number[]): void {
    this.statuses.push(...statuses);
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const { headers } = request;
    const vapid = this.vapidOf(headers.authorization);
    if (!vapid) return reply(response, 401, 'invalid VAPID authorization');
    if (headers['content-encoding'] !== 'aes128gcm') return reply(response, 415, 'aes128gcm only');
    if (!/^\d+$/.test(String(headers.ttl ?? ''))) return reply(response, 400, 'TTL header required');
    let payload: string;
    try {
      payload = decryptAes128gcm(body, this.subscriber);
    } catch {
      return reply(response, 400, 'payload does not decrypt');
    }
    this.received.push({ path: request.url ?? '', headers, vapid, payload });
    const status = this.statuses.shift();
    if (status) return reply(response, status, `scripted ${status}`);
    response.writeHead(201, { location: `${this.url}/message/${this.received.length}` });
    response.end();
  }

  private vapidOf(authorization: string | undefined): ReceivedWebPush['vapid'] | undefined {
    const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
    if (!match) return undefined;
    const [, token, publicKey] = match;
    const jwt = verifiedJwt(token, 'ES256', p256PublicKey(Buffer.from(publicKey, 'base64url')));
    const now = Date.now() / 1000;
    const exp = jwt?.claims.exp;
    if (!jwt || jwt.claims.aud !== this.url || typeof exp !== 'number' || exp < now || exp > now + 24 * 3600) return undefined;
    return { claims: jwt.claims, publicKey };
  }
}

/** RFC 8291 on RFC 8188: one record, keys from the subscriber's ECDH pair and auth secret. */
function decryptAes128gcm(body: Buffer, subscriber: SubscriberKeys): string {
  const salt = body.subarray(0, 16);
  const idLength = body.readUInt8(20);
  const senderPublicKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), subscriber.ecdh.getPublicKey(), senderPublicKey]);
  const ikm = Buffer.from(hkdfSync('sha256', subscriber.ecdh.computeSecret(senderPublicKey), subscriber.authSecret, keyInfo, 32));
  const key = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', key, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end).toString('utf8');
}

function p256PublicKey(point: Buffer): KeyObject {
  return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') }, format: 'jwk' });
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

function reply(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain' });
  response.end(text);
}
