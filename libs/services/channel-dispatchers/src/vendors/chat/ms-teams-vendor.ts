import { JSON_HEADERS, callVendor, failureOf, isResponse } from '../http/http-outcome';
import { HttpPort } from '../http/http.port';
import { InvalidIdentityError } from '../identity';
import { ChannelVendor, SendRequest, SendResult, contentOf, permanent, sent } from '../vendor.port';

/**
 * MS Teams through the recipient's incoming webhook: an Adaptive Card as a message
 * attachment, or plain text. The bot forms (conversation or user through the Bot
 * Framework) are not implemented yet and fail permanently with that reason.
 */
export class MsTeamsVendor implements ChannelVendor {
  readonly channel = 'ms_teams' as const;
  readonly vendor = 'ms_teams';
  readonly dedupesByKey = false;

  constructor(private readonly http: HttpPort) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'ms_teams');
    const record = (typeof request.identity === 'object' && request.identity !== null ? request.identity : {}) as Record<string, unknown>;
    const url = (record.incoming_webhook as { url?: unknown } | undefined)?.url;
    if (typeof url !== 'string') {
      if (typeof record.conversation_id === 'string' || typeof record.user_id === 'string') {
        return permanent('ms_teams: delivery through the Bot Framework (conversation_id / user_id) is not supported yet; use an incoming webhook');
      }
      throw new InvalidIdentityError('an ms_teams identity needs incoming_webhook.url');
    }
    const body = content.card
      ? { type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: content.card }] }
      : { text: content.text };
    const response = await callVendor(this.http, this.vendor, { method: 'POST', url, headers: JSON_HEADERS, body: JSON.stringify(body) });
    if (!isResponse(response)) return response;
    return response.status >= 200 && response.status < 300 ? sent() : failureOf(this.vendor, response);
  }
}
