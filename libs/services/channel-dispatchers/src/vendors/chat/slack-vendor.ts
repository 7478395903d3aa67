import { SlackContent } from '@herald/rendering';
import { JSON_HEADERS, callVendor, failureOf, isResponse, parseJson } from '../http/http-outcome';
import { HttpPort, HttpResponse } from '../http/http.port';
import { InvalidIdentityError } from '../identity';
import { ChannelVendor, SendRequest, SendResult, VendorConfig, baseUrlOf, contentOf, permanent, retryable, sent } from '../vendor.port';

/** Slack Web API errors that a later call can get past; every other `ok: false` is final. */
const SLACK_TRANSIENT = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

type SlackIdentity =
  | { readonly kind: 'email'; readonly email: string; readonly token: string }
  | { readonly kind: 'user'; readonly userId: string; readonly token: string }
  | { readonly kind: 'channel'; readonly channel: string; readonly token: string }
  | { readonly kind: 'webhook'; readonly url: string };

/**
 * Slack: chat.postMessage to a channel, or to a member (by user_id, or by email through
 * users.lookupByEmail) in the DM conversations.open gives, with the recipient's access
 * token or, for the tokenless entries the SDKs save (`addSlackEmail`, `add_slack`), the
 * vendor's bot token; or the recipient's incoming webhook.
 */
export class SlackVendor implements ChannelVendor {
  readonly channel = 'slack' as const;
  readonly vendor = 'slack';
  readonly dedupesByKey = false;

  constructor(private readonly http: HttpPort) {}

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'slack');
    const identity = slackIdentityOf(request.identity, request.config);
    if (identity.kind === 'webhook') return this.postWebhook(identity.url, content);
    let target: string;
    if (identity.kind === 'channel') {
      target = identity.channel;
    } else {
      // A member is messaged in the bot's direct conversation with them, as SuprSend does:
      // the email resolved to a member id, then the DM opened (idempotent on Slack's side).
      let userId: string;
      if (identity.kind === 'email') {
        const lookup = await this.lookupByEmail(request.config, identity.email, identity.token);
        if (!lookup.ok) return lookup.result;
        userId = lookup.userId;
      } else {
        userId = identity.userId;
      }
      const conversation = await this.openConversation(request.config, userId, identity.token);
      if (!conversation.ok) return conversation.result;
      target = conversation.channelId;
    }
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url: `${baseUrlOf(request.config)}/chat.postMessage`,
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${identity.token}` },
      body: JSON.stringify({ channel: target, text: content.text, ...(content.blocks ? { blocks: content.blocks } : {}) }),
    });
    if (!isResponse(response)) return response;
    const answer = webApiAnswer(response);
    return answer.ok ? sent(String(answer.body.ts ?? '')) : answer.result;
  }

  private async lookupByEmail(config: VendorConfig, email: string, token: string): Promise<{ ok: true; userId: string } | { ok: false; result: SendResult }> {
    const response = await callVendor(this.http, this.vendor, {
      method: 'GET',
      url: `${baseUrlOf(config)}/users.lookupByEmail?email=${encodeURIComponent(email)}`,
      headers: { authorization: `Bearer ${token}` },
    });
    if (!isResponse(response)) return { ok: false, result: response };
    const answer = webApiAnswer(response);
    if (!answer.ok) return answer;
    const id = (answer.body.user as { id?: unknown } | undefined)?.id;
    return typeof id === 'string' ? { ok: true, userId: id } : { ok: false, result: permanent('slack users.lookupByEmail answered without a user id') };
  }

  private async openConversation(config: VendorConfig, userId: string, token: string): Promise<{ ok: true; channelId: string } | { ok: false; result: SendResult }> {
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url: `${baseUrlOf(config)}/conversations.open`,
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${token}` },
      body: JSON.stringify({ users: userId }),
    });
    if (!isResponse(response)) return { ok: false, result: response };
    const answer = webApiAnswer(response);
    if (!answer.ok) return answer;
    const id = (answer.body.channel as { id?: unknown } | undefined)?.id;
    return typeof id === 'string' ? { ok: true, channelId: id } : { ok: false, result: permanent('slack conversations.open answered without a channel id') };
  }

  private async postWebhook(url: string, content: SlackContent): Promise<SendResult> {
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url,
      headers: JSON_HEADERS,
      body: JSON.stringify({ text: content.text, ...(content.blocks ? { blocks: content.blocks } : {}) }),
    });
    if (!isResponse(response)) return response;
    return response.status === 200 ? sent() : failureOf('slack webhook', response);
  }
}

/** Slack answers 200 with `{ok: false, error}` for most failures; 429 and 5xx come as statuses. */
function webApiAnswer(response: HttpResponse): { ok: true; body: Record<string, unknown> } | { ok: false; result: SendResult } {
  if (response.status !== 200) return { ok: false, result: failureOf('slack', response) };
  const body = parseJson(response.body);
  if (body.ok === true) return { ok: true, body };
  const error = String(body.error ?? 'unknown_error');
  return { ok: false, result: SLACK_TRANSIENT.has(error) ? retryable(`slack: ${error}`) : permanent(`slack: ${error}`) };
}

function slackIdentityOf(identity: unknown, config: VendorConfig): SlackIdentity {
  if (typeof identity !== 'object' || identity === null) throw new InvalidIdentityError('a slack identity must be an object');
  const record = identity as Record<string, unknown>;
  const webhook = record.incoming_webhook as { url?: unknown } | undefined;
  if (typeof webhook?.url === 'string') return { kind: 'webhook', url: webhook.url };
  const token = typeof record.access_token === 'string' ? record.access_token : config.credentials.bot_token;
  if (typeof token !== 'string' || token === '') throw new InvalidIdentityError('the slack identity has no access_token and the vendor no bot_token');
  if (typeof record.user_id === 'string') return { kind: 'user', userId: record.user_id, token };
  if (typeof record.channel === 'string') return { kind: 'channel', channel: record.channel, token };
  if (typeof record.email === 'string') return { kind: 'email', email: record.email, token };
  throw new InvalidIdentityError('a slack identity needs email, user_id, channel or incoming_webhook');
}
