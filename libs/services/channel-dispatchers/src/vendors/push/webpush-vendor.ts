import webpush, { PushSubscription } from 'web-push';
import { WebpushContent } from '@herald/rendering';
import { callVendor, failureOf, isResponse } from '../http/http-outcome';
import { HttpPort } from '../http/http.port';
import { InvalidIdentityError } from '../identity';
import { ChannelVendor, SendRequest, SendResult, VendorConfig, VendorConfigError, contentOf, permanent, sent, stringField } from '../vendor.port';

/** How long the push service keeps a message for an offline browser unless `ttl_seconds` says otherwise: a day-old alert is stale. */
const DEFAULT_TTL_S = 24 * 3600;

/**
 * Web push with VAPID: `web-push` encrypts the payload (aes128gcm, RFC 8291) and signs
 * the VAPID header; the request goes to the subscription's endpoint through the
 * guarded HTTP port like every other vendor call, so a subscription naming a private
 * address is refused. 404 and 410 mean the subscription is gone.
 */
export class WebpushVendor implements ChannelVendor {
  readonly channel = 'webpush' as const;
  readonly vendor = 'vapid';
  readonly dedupesByKey = false;

  constructor(private readonly http: HttpPort) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'webpush');
    const subscription = subscriptionOf(request.identity);
    const details = requestDetailsOf(subscription, payloadOf(content, request.deliveryId), request.config);
    const response = await callVendor(this.http, this.vendor, { method: 'POST', url: details.endpoint, headers: details.headers, body: details.body });
    if (!isResponse(response)) return response;
    if (response.status >= 200 && response.status < 300) return sent(response.headers.location);
    if (response.status === 404 || response.status === 410) return permanent(`vapid: the push subscription is gone (${response.status})`);
    return failureOf(this.vendor, response);
  }
}

/**
 * The notification as SuprSend's service worker (`serviceworker.js` of `@suprsend/web-sdk`)
 * reads it: `showNotification(title, {body, icon, image, data})`, `data.notification_id`
 * reported back with its delivered and clicked events, `data.launch_urls.default` opened
 * on a click. `url` and `delivery_id` stay for service workers of one's own.
 */
function payloadOf(content: WebpushContent, deliveryId: string): string {
  const { channel: _, ...notification } = content;
  const data = { notification_id: deliveryId, ...(content.url === undefined ? {} : { launch_urls: { default: content.url } }) };
  return JSON.stringify({ ...notification, delivery_id: deliveryId, data });
}

function requestDetailsOf(subscription: PushSubscription, payload: string, config: VendorConfig): { endpoint: string; headers: Record<string, string>; body: Buffer } {
  const credentials = config.credentials;
  const vapidDetails = { subject: stringField(credentials, 'subject'), publicKey: stringField(credentials, 'public_key'), privateKey: stringField(credentials, 'private_key') };
  try {
    const details = webpush.generateRequestDetails(subscription, payload, { vapidDetails, TTL: ttlOf(config), contentEncoding: 'aes128gcm' });
    return { endpoint: details.endpoint, headers: details.headers, body: details.body };
  } catch (error) {
    // The subscription was checked above, so what web-push refuses is the VAPID configuration; its message names no key.
    throw new VendorConfigError(`vapid: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function ttlOf(config: VendorConfig): number {
  const ttl = config.settings.ttl_seconds;
  return typeof ttl === 'number' && Number.isInteger(ttl) && ttl >= 0 ? ttl : DEFAULT_TTL_S;
}

/** A browser's PushSubscription (as `toJSON()` gives it, or that JSON as a string), checked so web-push cannot throw on it. */
function subscriptionOf(identity: unknown): PushSubscription {
  const value = typeof identity === 'string' ? parseJson(identity) : identity;
  const record = (typeof value === 'object' && value !== null ? value : {}) as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
  const { endpoint, keys } = record;
  if (typeof endpoint !== 'string' || !/^https?:\/\//.test(endpoint)) throw new InvalidIdentityError('a web push subscription needs an http(s) endpoint');
  if (!isBase64url(keys?.p256dh, 65) || !isBase64url(keys?.auth, 16)) throw new InvalidIdentityError('a web push subscription needs keys.p256dh (65 bytes) and keys.auth (16 bytes), base64url');
  return { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } };
}

function isBase64url(value: unknown, bytes: number): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]+={0,2}$/.test(value) && Buffer.from(value, 'base64url').length === bytes;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
