import { MsTeamsContent } from '@herald/rendering';
import { FORM_HEADERS, JSON_HEADERS, callVendor, failureOf, isResponse, parseJson } from '../http/http-outcome';
import { HttpPort, HttpRequest, HttpResponse } from '../http/http.port';
import { InvalidIdentityError } from '../identity';
import { AccessTokenCache, CachedToken, TokenRequestFailed } from '../push/access-token-cache';
import { ChannelVendor, SendRequest, SendResult, VendorConfig, VendorConfigError, contentOf, retryable, sent, stringField } from '../vendor.port';

/** Where a multi-tenant bot (the usual Teams bot) gets its Bot Framework token; settings.token_url overrides it. */
const BOT_FRAMEWORK_TOKEN_URL = 'https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token';
const BOT_FRAMEWORK_SCOPE = 'https://api.botframework.com/.default';
/** A token is renewed this long before it expires, so it never expires during a send. */
const RENEW_MARGIN_MS = 5 * 60_000;

type TeamsIdentity =
  | { readonly kind: 'webhook'; readonly url: string }
  | { readonly kind: 'conversation'; readonly serviceUrl: string; readonly conversationId: string }
  | { readonly kind: 'user'; readonly serviceUrl: string; readonly userId: string; readonly tenantId: string };

type Step<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly result: SendResult };

/** The token endpoint refused or failed; carries what the send reports. */
/**
 * MS Teams in the three forms of interface 2.1.1. The incoming webhook form posts to
 * the recipient's webhook. The conversation and user forms go through the Bot
 * Framework as the workspace's bot (app_id / app_password): a client-credentials token
 * (cached until shortly before it expires), then an activity posted to the
 * conversation; the user form first creates (or finds: Bot Framework answers the same
 * id again) the 1:1 conversation with the user.
 */
export class MsTeamsVendor implements ChannelVendor {
  readonly channel = 'ms_teams' as const;
  readonly vendor = 'ms_teams';
  readonly dedupesByKey = false;
  private readonly tokens: AccessTokenCache;

  constructor(
    private readonly http: HttpPort,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = new AccessTokenCache(now);
  }

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'ms_teams');
    const identity = teamsIdentityOf(request.identity);
    if (identity.kind === 'webhook') return this.post({ method: 'POST', url: identity.url, headers: JSON_HEADERS, body: JSON.stringify(webhookBodyOf(content)) });
    checkServiceUrl(identity.serviceUrl, request.config);
    const token = await this.tokenOf(request.config);
    if (!token.ok) return token.result;
    const conversation = identity.kind === 'conversation' ? { ok: true as const, value: identity.conversationId } : await this.openConversation(request.config, identity, token.value);
    if (!conversation.ok) return conversation.result;
    const activity = {
      method: 'POST' as const,
      url: `${serviceRootOf(identity.serviceUrl)}/v3/conversations/${encodeURIComponent(conversation.value)}/activities`,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token.value}` },
      body: JSON.stringify(activityOf(content)),
    };
    return this.post(activity, cacheKeyOf(request.config));
  }

  /** A 2xx is sent (with the activity id when one is answered). `tokenKey`: the bot token the call carried. */
  private async post(call: HttpRequest, tokenKey?: string): Promise<SendResult> {
    const response = await callVendor(this.http, this.vendor, call);
    if (!isResponse(response)) return response;
    if (response.status >= 200 && response.status < 300) {
      const id = parseJson(response.body).id;
      return sent(typeof id === 'string' ? id : undefined);
    }
    return this.refused(response, tokenKey);
  }

  private refused(response: HttpResponse, tokenKey?: string): SendResult {
    // A bot token revoked or expired early: the next attempt fetches a new one.
    if (response.status === 401 && tokenKey !== undefined) {
      this.tokens.drop(tokenKey);
      return retryable(`ms_teams answered 401: ${response.body.slice(0, 300)}`);
    }
    return failureOf(this.vendor, response);
  }

  private async openConversation(config: VendorConfig, identity: Extract<TeamsIdentity, { kind: 'user' }>, token: string): Promise<Step<string>> {
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url: `${serviceRootOf(identity.serviceUrl)}/v3/conversations`,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify({
        isGroup: false,
        bot: { id: stringField(config.credentials, 'app_id') },
        members: [{ id: identity.userId }],
        tenantId: identity.tenantId,
        channelData: { tenant: { id: identity.tenantId } },
      }),
    });
    if (!isResponse(response)) return { ok: false, result: response };
    if (response.status < 200 || response.status >= 300) return { ok: false, result: this.refused(response, cacheKeyOf(config)) };
    const id = parseJson(response.body).id;
    return typeof id === 'string' && id !== '' ? { ok: true, value: id } : { ok: false, result: retryable('ms_teams created a conversation without an id') };
  }

  private async tokenOf(config: VendorConfig): Promise<Step<string>> {
    try {
      return { ok: true, value: await this.tokens.get(cacheKeyOf(config), () => this.fetchToken(config)) };
    } catch (error) {
      if (error instanceof TokenRequestFailed) return { ok: false, result: error.result };
      throw error;
    }
  }

  private async fetchToken(config: VendorConfig): Promise<CachedToken> {
    const credentials = botCredentialsOf(config);
    const tokenUrl = typeof config.settings.token_url === 'string' && config.settings.token_url !== '' ? config.settings.token_url : BOT_FRAMEWORK_TOKEN_URL;
    const response = await callVendor(this.http, 'ms_teams token endpoint', {
      method: 'POST',
      url: tokenUrl,
      headers: FORM_HEADERS,
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.appId, client_secret: credentials.appPassword, scope: BOT_FRAMEWORK_SCOPE }).toString(),
    });
    if (!isResponse(response)) throw new TokenRequestFailed(response);
    // A refusal's body is `{error, error_description}`: it names the problem, never the secret.
    if (response.status !== 200) throw new TokenRequestFailed(failureOf('ms_teams token endpoint', response));
    const body = parseJson(response.body);
    if (typeof body.access_token !== 'string' || typeof body.expires_in !== 'number') {
      throw new TokenRequestFailed(retryable('ms_teams token endpoint answered without access_token and expires_in'));
    }
    return { token: body.access_token, renewAt: this.now() + body.expires_in * 1000 - RENEW_MARGIN_MS };
  }
}

function cacheKeyOf(config: VendorConfig): string {
  return `${config.id}:${config.version}`;
}

function botCredentialsOf(config: VendorConfig): { appId: string; appPassword: string } {
  if (config.credentials.app_id === undefined || config.credentials.app_password === undefined) {
    throw new VendorConfigError('ms_teams: a conversation_id or user_id identity needs the bot credentials app_id and app_password');
  }
  return { appId: stringField(config.credentials, 'app_id'), appPassword: stringField(config.credentials, 'app_password') };
}

/**
 * The bot's token goes only to the origin of the vendor's base_url (Bot Framework's
 * smba.trafficmanager.net by default): service_url comes with the recipient's
 * profile, and a profile must not be able to collect the workspace bot's token.
 */
function checkServiceUrl(serviceUrl: string, config: VendorConfig): void {
  const allowed = config.baseUrl ? originOf(config.baseUrl) : undefined;
  if (allowed === undefined || originOf(serviceUrl) !== allowed) {
    throw new InvalidIdentityError(`ms_teams: service_url is not on the Bot Framework service of the vendor (${allowed ?? 'no base_url configured'})`);
  }
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** Service URLs are given with or without the trailing slash (Teams sends `.../amer/`). */
function serviceRootOf(serviceUrl: string): string {
  return serviceUrl.replace(/\/+$/, '');
}

function webhookBodyOf(content: MsTeamsContent): Record<string, unknown> {
  return content.card
    ? { type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: content.card }] }
    : { text: content.text };
}

function activityOf(content: MsTeamsContent): Record<string, unknown> {
  return content.card
    ? { type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: content.card }] }
    : { type: 'message', text: content.text };
}

function teamsIdentityOf(identity: unknown): TeamsIdentity {
  const record = (typeof identity === 'object' && identity !== null ? identity : {}) as Record<string, unknown>;
  const url = (record.incoming_webhook as { url?: unknown } | undefined)?.url;
  if (typeof url === 'string') return { kind: 'webhook', url };
  const text = (name: string): string | undefined => (typeof record[name] === 'string' && record[name] !== '' ? (record[name] as string) : undefined);
  const serviceUrl = text('service_url');
  if (text('conversation_id') === undefined && text('user_id') === undefined) {
    throw new InvalidIdentityError('an ms_teams identity needs incoming_webhook.url, or service_url with conversation_id or user_id');
  }
  if (serviceUrl === undefined) throw new InvalidIdentityError('an ms_teams conversation_id or user_id identity needs service_url');
  const conversationId = text('conversation_id');
  if (conversationId !== undefined) return { kind: 'conversation', serviceUrl, conversationId };
  const tenantId = text('tenant_id');
  if (tenantId === undefined) throw new InvalidIdentityError('an ms_teams user_id identity needs tenant_id');
  return { kind: 'user', serviceUrl, userId: text('user_id') as string, tenantId };
}
