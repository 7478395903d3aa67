import { WhatsappContent } from '@herald/rendering';
import { JSON_HEADERS, callVendor, failureOf, isResponse, parseJson } from '../http/http-outcome';
import { HttpPort, HttpResponse } from '../http/http.port';
import { addressOf } from '../identity';
import { ChannelVendor, SendRequest, SendResult, VendorConfig, baseUrlOf, contentOf, permanent, retryable, sent, stringField } from '../vendor.port';

/** The Graph API version used unless the vendor settings name one (`api_version`). */
const DEFAULT_API_VERSION = 'v21.0';

/**
 * Graph API error codes a later call can get past: unknown and temporary errors, and
 * the rate limits (application, account, throughput, per recipient pair), which Meta
 * may answer with 400 as well as 429.
 */
const META_TRANSIENT_CODES = new Set([1, 2, 4, 80007, 130429, 131056, 133004]);

/**
 * WhatsApp through Meta's Cloud API: `POST /{version}/{phone_number_id}/messages` with
 * the system user's access token. Templates carry the content's components (or its
 * body parameters); free text only reaches a user inside their 24-hour window, which
 * Meta enforces.
 */
export class MetaCloudVendor implements ChannelVendor {
  readonly channel = 'whatsapp' as const;
  readonly vendor = 'meta_cloud';
  readonly dedupesByKey = false;

  constructor(private readonly http: HttpPort) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'whatsapp');
    const credentials = request.config.credentials;
    const body = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      // Meta takes the number with or without the plus; without is its documented form.
      to: addressOf(request.identity).replace(/^\+/, ''),
      ...messageOf(content),
      // Comes back in Meta's status webhooks, tying them to the delivery.
      biz_opaque_callback_data: request.deliveryId,
    };
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url: `${baseUrlOf(request.config)}/${apiVersionOf(request.config)}/${encodeURIComponent(stringField(credentials, 'phone_number_id'))}/messages`,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${stringField(credentials, 'access_token')}` },
      body: JSON.stringify(body),
    });
    if (!isResponse(response)) return response;
    if (response.status !== 200) return metaFailure(response);
    const messages = parseJson(response.body).messages as Array<{ id?: unknown }> | undefined;
    return sent(typeof messages?.[0]?.id === 'string' ? messages[0].id : undefined);
  }
}

function messageOf(content: WhatsappContent): Record<string, unknown> {
  if (content.kind === 'text') return { type: 'text', text: { body: content.text, preview_url: false } };
  const components = content.components ?? (content.parameters.length > 0 ? [{ type: 'body', parameters: content.parameters.map((text) => ({ type: 'text', text })) }] : []);
  return { type: 'template', template: { name: content.name, language: { code: content.language }, components } };
}

function apiVersionOf(config: VendorConfig): string {
  const version = config.settings.api_version;
  return typeof version === 'string' && /^v\d+\.\d+$/.test(version) ? version : DEFAULT_API_VERSION;
}

/** Meta's `{error: {code, message}}`: the code says more than the status (rate limits come as 400 too). */
function metaFailure(response: HttpResponse): SendResult {
  const error = (parseJson(response.body).error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof error.code !== 'number') return failureOf('meta_cloud', response);
  const reason = `meta_cloud answered ${response.status}: error ${error.code}: ${String(error.message ?? '')}`.slice(0, 300);
  return META_TRANSIENT_CODES.has(error.code) || response.status >= 500 || response.status === 429 ? retryable(reason) : permanent(reason);
}
