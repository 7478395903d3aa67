import { FORM_HEADERS, JSON_HEADERS, basicAuth, callVendor, failureOf, isResponse, parseJson } from '../http/http-outcome';
import { HttpPort } from '../http/http.port';
import { NO_STATUS_CALLBACKS, StatusCallbackUrls } from '../status-callback-urls';
import { addressOf } from '../identity';
import { ChannelVendor, SendRequest, SendResult, baseUrlOf, contentOf, permanent, retryable, sent, stringField } from '../vendor.port';

/**
 * Twilio Messages: basic auth with the account SID, `From` or a messaging service (MG…) as
 * sender, `StatusCallback` when Herald has a public URL, answers `{sid}`.
 */
export class TwilioVendor implements ChannelVendor {
  readonly channel = 'sms' as const;
  readonly vendor = 'twilio';
  readonly dedupesByKey = false;

  constructor(
    private readonly http: HttpPort,
    private readonly callbacks: StatusCallbackUrls = NO_STATUS_CALLBACKS,
  ) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'sms');
    const credentials = request.config.credentials;
    const sid = stringField(credentials, 'account_sid');
    const from = stringField(credentials, 'from');
    const form = new URLSearchParams({ To: addressOf(request.identity), Body: content.text });
    form.set(from.startsWith('MG') ? 'MessagingServiceSid' : 'From', from);
    const statusCallback = this.callbacks.urlFor(request.config);
    if (statusCallback) form.set('StatusCallback', statusCallback);
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url: `${baseUrlOf(request.config)}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`,
      headers: { ...FORM_HEADERS, authorization: basicAuth(sid, stringField(credentials, 'auth_token')) },
      body: form.toString(),
    });
    if (!isResponse(response)) return response;
    return response.status === 201 || response.status === 200 ? sent(String(parseJson(response.body).sid ?? '')) : failureOf(this.vendor, response);
  }
}

/** Vonage statuses a retry can pass: throttled (1) and internal error (5). */
const VONAGE_TRANSIENT = new Set(['1', '5']);

/** Vonage SMS API: key and secret in the form, `callback` for its delivery receipt when Herald has a public URL; always 200 with a status per message part. */
export class VonageVendor implements ChannelVendor {
  readonly channel = 'sms' as const;
  readonly vendor = 'vonage';
  readonly dedupesByKey = false;

  constructor(
    private readonly http: HttpPort,
    private readonly callbacks: StatusCallbackUrls = NO_STATUS_CALLBACKS,
  ) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'sms');
    const credentials = request.config.credentials;
    const form = new URLSearchParams({
      api_key: stringField(credentials, 'api_key'),
      api_secret: stringField(credentials, 'api_secret'),
      from: stringField(credentials, 'from').replace(/^\+/, ''),
      // Vonage takes international numbers without the plus.
      to: addressOf(request.identity).replace(/^\+/, ''),
      text: content.text,
      'client-ref': request.deliveryId.slice(0, 40),
    });
    const receiptUrl = this.callbacks.urlFor(request.config);
    if (receiptUrl) form.set('callback', receiptUrl);
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url: `${baseUrlOf(request.config)}/sms/json`,
      headers: FORM_HEADERS,
      body: form.toString(),
    });
    if (!isResponse(response)) return response;
    if (response.status !== 200) return failureOf(this.vendor, response);
    const parts = (parseJson(response.body).messages ?? []) as Array<{ status?: string; 'message-id'?: string; 'error-text'?: string }>;
    const failed = parts.find((part) => part.status !== '0');
    if (parts.length === 0) return retryable('vonage answered without message status');
    if (failed) {
      const reason = `vonage status ${String(failed.status)}: ${String(failed['error-text'] ?? '')}`;
      return VONAGE_TRANSIENT.has(String(failed.status)) ? retryable(reason) : permanent(reason);
    }
    return sent(parts[0]['message-id']);
  }
}

/** Plivo Message API: basic auth with the auth ID, JSON src/dst/text (and `url` for its status callbacks when Herald has a public URL), 202 with `message_uuid` (one per part). */
export class PlivoVendor implements ChannelVendor {
  readonly channel = 'sms' as const;
  readonly vendor = 'plivo';
  readonly dedupesByKey = false;

  constructor(
    private readonly http: HttpPort,
    private readonly callbacks: StatusCallbackUrls = NO_STATUS_CALLBACKS,
  ) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'sms');
    const credentials = request.config.credentials;
    const authId = stringField(credentials, 'auth_id');
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url: `${baseUrlOf(request.config)}/v1/Account/${encodeURIComponent(authId)}/Message/`,
      headers: { ...JSON_HEADERS, authorization: basicAuth(authId, stringField(credentials, 'auth_token')) },
      body: JSON.stringify({ src: stringField(credentials, 'from'), dst: addressOf(request.identity), text: content.text, ...this.statusCallbackOf(request) }),
    });
    if (!isResponse(response)) return response;
    if (response.status !== 202 && response.status !== 200) return failureOf(this.vendor, response);
    const uuids = parseJson(response.body).message_uuid;
    return sent(Array.isArray(uuids) && typeof uuids[0] === 'string' ? uuids[0] : undefined);
  }

  private statusCallbackOf(request: SendRequest): { url?: string; method?: 'POST' } {
    const url = this.callbacks.urlFor(request.config);
    return url ? { url, method: 'POST' } : {};
  }
}
