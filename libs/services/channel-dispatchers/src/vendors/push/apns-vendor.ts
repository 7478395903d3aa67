import { PushContent } from '@herald/rendering';
import { failureOf, unreachable } from '../http/http-outcome';
import { addressOf } from '../identity';
import { AddressGuard } from '../net/address-guard';
import { ChannelVendor, SendRequest, SendResult, VendorConfig, VendorConfigError, baseUrlOf, contentOf, retryable, sent, stringField } from '../vendor.port';
import { AccessTokenCache } from './access-token-cache';
import { Http2Answer, Http2Client } from './http2-client';
import { nowInSeconds, privateKeyOf, signJwt } from './jwt';

/**
 * Apple refuses provider tokens older than an hour and throttles those renewed more
 * often than every 20 minutes (TooManyProviderTokenUpdates).
 */
const TOKEN_LIFETIME_MS = 50 * 60_000;
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * iOS push through APNs over HTTP/2 with token authentication: an ES256 JWT of the key
 * (key_id) and team (team_id), renewed every 50 minutes, on one session per APNs host.
 * The apns-id is the delivery's idempotency key, so Apple's feedback names the delivery.
 */
export class ApnsVendor implements ChannelVendor {
  readonly channel = 'iospush' as const;
  readonly vendor = 'apns';
  readonly dedupesByKey = false;
  private readonly tokens: AccessTokenCache;
  private readonly http2: Http2Client;

  constructor(
    guard: AddressGuard,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = new AccessTokenCache(now);
    this.http2 = new Http2Client(guard);
  }

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'iospush');
    const { config } = request;
    const origin = originOf(config);
    const cacheKey = `${config.id}:${config.version}`;
    const jwt = await this.tokens.get(cacheKey, async () => ({ token: this.providerToken(config), renewAt: this.now() + TOKEN_LIFETIME_MS }));
    const headers = {
      ':method': 'POST',
      ':path': `/3/device/${encodeURIComponent(addressOf(request.identity))}`,
      authorization: `bearer ${jwt}`,
      'apns-topic': stringField(config.credentials, 'bundle_id'),
      'apns-push-type': 'alert',
      'apns-priority': '10',
      'apns-id': request.idempotencyKey,
      'content-type': 'application/json',
    };
    let answer: Http2Answer;
    try {
      answer = await this.http2.request(origin, headers, JSON.stringify(payloadOf(content)), REQUEST_TIMEOUT_MS);
    } catch (error) {
      return unreachable(this.vendor, error);
    }
    if (answer.status === 200) return sent(String(answer.headers['apns-id'] ?? request.idempotencyKey));
    const reason = apnsReasonOf(answer.body);
    // Apple expired our token early (clock skew, a revoked key is InvalidProviderToken): a new one may pass.
    if (answer.status === 403 && reason === 'ExpiredProviderToken') {
      this.tokens.drop(cacheKey);
      return retryable('apns answered 403: ExpiredProviderToken');
    }
    return failureOf(this.vendor, { status: answer.status, headers: {}, body: reason });
  }

  close(): void {
    this.http2.close();
  }

  private providerToken(config: VendorConfig): string {
    const credentials = config.credentials;
    const key = privateKeyOf(stringField(credentials, 'private_key_p8'), 'ec', 'private_key_p8');
    return signJwt('ES256', { kid: stringField(credentials, 'key_id') }, { iss: stringField(credentials, 'team_id'), iat: nowInSeconds(this.now()) }, key);
  }
}

function originOf(config: VendorConfig): string {
  const url = new URL(baseUrlOf(config));
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new VendorConfigError('base_url must be an https: URL');
  return url.origin;
}

/** The alert, then the content's data beside `aps` (where apps read custom keys). */
function payloadOf(content: PushContent): Record<string, unknown> {
  return {
    ...content.data,
    ...(content.deepLink ? { deep_link: content.deepLink } : {}),
    ...(content.imageUrl ? { image_url: content.imageUrl } : {}),
    aps: {
      alert: { title: content.title, body: content.body },
      sound: 'default',
      // Lets a notification service extension download the image before showing it.
      ...(content.imageUrl ? { 'mutable-content': 1 } : {}),
    },
  };
}

/** APNs answers errors as `{"reason": "BadDeviceToken"}`. */
function apnsReasonOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { reason?: unknown };
    return typeof parsed.reason === 'string' ? parsed.reason : body;
  } catch {
    return body;
  }
}
