import { PushContent } from '@herald/rendering';
import { FORM_HEADERS, JSON_HEADERS, callVendor, failureOf, isResponse, parseJson } from '../http/http-outcome';
import { HttpPort, HttpResponse } from '../http/http.port';
import { addressOf } from '../identity';
import { ChannelVendor, SendRequest, SendResult, VendorConfig, VendorConfigError, baseUrlOf, contentOf, retryable, sent, stringField } from '../vendor.port';
import { AccessTokenCache, CachedToken, TokenRequestFailed } from './access-token-cache';
import { nowInSeconds, privateKeyOf, signJwt } from './jwt';

const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** Google issues assertions and tokens for at most an hour. */
const ASSERTION_LIFETIME_S = 3600;
/** A token is renewed this long before it expires, so it never expires during a send. */
const RENEW_MARGIN_MS = 5 * 60_000;

interface ServiceAccount {
  readonly projectId: string;
  readonly clientEmail: string;
  readonly privateKeyId?: string;
  /** PEM; loaded only when a token is due. */
  readonly privateKey: string;
  readonly tokenUri: string;
}

/** The token endpoint refused or failed; carries what the send reports. */
/**
 * Android push through FCM HTTP v1. The service account signs an RS256 assertion, which
 * its `token_uri` exchanges for an access token (cached until shortly before it
 * expires); then `POST /v1/projects/{project_id}/messages:send`.
 */
export class FcmVendor implements ChannelVendor {
  readonly channel = 'androidpush' as const;
  readonly vendor = 'fcm';
  readonly dedupesByKey = false;
  private readonly tokens: AccessTokenCache;

  constructor(
    private readonly http: HttpPort,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = new AccessTokenCache(now);
  }

  async send(request: SendRequest): Promise<SendResult> {
    const content = contentOf(request, 'androidpush');
    const account = serviceAccountOf(request.config);
    const cacheKey = `${request.config.id}:${request.config.version}`;
    let accessToken: string;
    try {
      accessToken = await this.tokens.get(cacheKey, () => this.fetchToken(account));
    } catch (error) {
      if (error instanceof TokenRequestFailed) return error.result;
      throw error;
    }
    const response = await callVendor(this.http, this.vendor, {
      method: 'POST',
      url: `${baseUrlOf(request.config)}/v1/projects/${encodeURIComponent(account.projectId)}/messages:send`,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ message: messageOf(content, addressOf(request.identity)) }),
    });
    if (!isResponse(response)) return response;
    if (response.status === 200) return sent(String(parseJson(response.body).name ?? ''));
    // A token revoked or expired early: the next attempt fetches a new one.
    if (response.status === 401) {
      this.tokens.drop(cacheKey);
      return retryable(`fcm answered 401: ${fcmErrorOf(response)}`);
    }
    return failureOf(this.vendor, { ...response, body: fcmErrorOf(response) });
  }

  private async fetchToken(account: ServiceAccount): Promise<CachedToken> {
    const issuedAt = nowInSeconds(this.now());
    const assertion = signJwt(
      'RS256',
      account.privateKeyId ? { kid: account.privateKeyId } : {},
      { iss: account.clientEmail, scope: FCM_SCOPE, aud: account.tokenUri, iat: issuedAt, exp: issuedAt + ASSERTION_LIFETIME_S },
      privateKeyOf(account.privateKey, 'rsa', 'service_account_json.private_key'),
    );
    const response = await callVendor(this.http, 'fcm token endpoint', {
      method: 'POST',
      url: account.tokenUri,
      headers: FORM_HEADERS,
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
    });
    if (!isResponse(response)) throw new TokenRequestFailed(response);
    // The body of a refusal is `{error, error_description}`: it names the problem, never the key.
    if (response.status !== 200) throw new TokenRequestFailed(failureOf('fcm token endpoint', response));
    const body = parseJson(response.body);
    if (typeof body.access_token !== 'string' || typeof body.expires_in !== 'number') {
      throw new TokenRequestFailed(retryable('fcm token endpoint answered without access_token and expires_in'));
    }
    return { token: body.access_token, renewAt: this.now() + body.expires_in * 1000 - RENEW_MARGIN_MS };
  }
}

function messageOf(content: PushContent, token: string): Record<string, unknown> {
  return {
    token,
    notification: { title: content.title, body: content.body, ...(content.imageUrl ? { image: content.imageUrl } : {}) },
    // The app opens the deep link itself; FCM data values must be strings.
    data: { ...content.data, ...(content.deepLink ? { deep_link: content.deepLink } : {}) },
    android: { priority: 'high' },
  };
}

/** FCM's `{error: {status, message, details: [{errorCode}]}}` in one line: `UNREGISTERED: Requested entity was not found.` */
function fcmErrorOf(response: HttpResponse): string {
  const error = (parseJson(response.body).error ?? {}) as { status?: unknown; message?: unknown; details?: Array<{ errorCode?: unknown }> };
  const code = error.details?.find((detail) => typeof detail.errorCode === 'string')?.errorCode ?? error.status;
  return code === undefined ? response.body : `${String(code)}: ${String(error.message ?? '')}`;
}

function serviceAccountOf(config: VendorConfig): ServiceAccount {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stringField(config.credentials, 'service_account_json'));
  } catch (error) {
    if (error instanceof VendorConfigError) throw error;
    throw new VendorConfigError('service_account_json is not JSON');
  }
  const account = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const privateKeyId = account.private_key_id;
  return {
    projectId: stringField(account, 'project_id'),
    clientEmail: stringField(account, 'client_email'),
    privateKeyId: typeof privateKeyId === 'string' ? privateKeyId : undefined,
    privateKey: stringField(account, 'private_key'),
    tokenUri: typeof account.token_uri === 'string' && account.token_uri !== '' ? account.token_uri : GOOGLE_TOKEN_URI,
  };
}
