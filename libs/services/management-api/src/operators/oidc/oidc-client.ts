import { JsonWebKey, createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { HeraldError } from '@herald/contracts';

/** The identity provider Herald's console trusts (HERALD_OIDC_*). */
export interface OidcSettings {
  readonly issuer: string;
  readonly clientId: string;
  /** Absent: a public client, which PKCE alone protects. */
  readonly clientSecret?: string;
}

interface Discovery {
  readonly issuer: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly jwks_uri: string;
}

/** What a sign-in must remember between the redirect out and the callback. */
export interface OidcLoginState {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  /** When the login started (ms): the callback must come within LOGIN_LIFETIME_MS. */
  readonly startedAt: number;
}

/** The verified identity an id_token carries. */
export interface OidcIdentity {
  readonly subject: string;
  readonly email: string;
  readonly name?: string;
}

/** How long a user may spend at the identity provider. */
export const LOGIN_LIFETIME_MS = 10 * 60 * 1000;
/** Clock difference tolerated between Herald and the identity provider. */
const CLOCK_SKEW_S = 60;
/** The keys are fetched again for an unknown `kid` (the provider rotated), at most this often. */
const JWKS_REFRESH_MS = 60_000;
const HTTP_TIMEOUT_MS = 10_000;

const ALGORITHMS: Readonly<Record<string, { hash: string; kty: string; dsaEncoding?: 'ieee-p1363'; pss?: boolean }>> = {
  RS256: { hash: 'sha256', kty: 'RSA' },
  RS384: { hash: 'sha384', kty: 'RSA' },
  RS512: { hash: 'sha512', kty: 'RSA' },
  PS256: { hash: 'sha256', kty: 'RSA', pss: true },
  ES256: { hash: 'sha256', kty: 'EC', dsaEncoding: 'ieee-p1363' },
  ES384: { hash: 'sha384', kty: 'EC', dsaEncoding: 'ieee-p1363' },
  EdDSA: { hash: '', kty: 'OKP' },
};

/**
 * OpenID Connect's authorization code flow with PKCE (S256), with node's crypto only: the
 * discovery document and the provider's keys (JWKS) are fetched and cached, the code is
 * exchanged at the token endpoint, and the id_token's signature, issuer, audience, expiry
 * and nonce are checked before its email is believed. The issuer is the operator's own
 * configuration (not user input), so it is fetched like any trusted endpoint.
 */
export class OidcClient {
  private discovery?: Promise<Discovery>;
  private keys?: { readonly fetchedAt: number; readonly keys: readonly (JsonWebKey & { kid?: string; alg?: string; use?: string })[] };

  constructor(
    readonly settings: OidcSettings,
    private readonly now: () => Date,
  ) {}

  /** A new login: where to send the browser, and what the callback must be checked against. */
  async begin(redirectUri: string): Promise<{ url: string; state: OidcLoginState }> {
    const discovery = await this.discover();
    const state: OidcLoginState = {
      state: randomBytes(24).toString('base64url'),
      nonce: randomBytes(24).toString('base64url'),
      codeVerifier: randomBytes(32).toString('base64url'),
      redirectUri,
      startedAt: this.now().getTime(),
    };
    const url = new URL(discovery.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.settings.clientId,
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      state: state.state,
      nonce: state.nonce,
      code_challenge: createHash('sha256').update(state.codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    return { url: url.toString(), state };
  }

  /** The callback: checks `state`, exchanges the code, verifies the id_token. */
  async complete(login: OidcLoginState, returnedState: string | undefined, code: string | undefined): Promise<OidcIdentity> {
    if (this.now().getTime() - login.startedAt > LOGIN_LIFETIME_MS) throw refused('the sign-in took too long: start again');
    if (!returnedState || returnedState !== login.state) throw refused('state does not match this browser\'s sign-in');
    if (!code) throw refused('the identity provider returned no code');
    const discovery = await this.discover();
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: login.redirectUri, client_id: this.settings.clientId, code_verifier: login.codeVerifier });
    if (this.settings.clientSecret) form.set('client_secret', this.settings.clientSecret);
    const response = await fetch(discovery.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
    });
    const answer = (await response.json().catch(() => ({}))) as { id_token?: unknown; error?: unknown };
    if (!response.ok || typeof answer.id_token !== 'string') {
      throw refused(`the token endpoint refused the code (${response.status}${typeof answer.error === 'string' ? `: ${answer.error}` : ''})`);
    }
    return this.verifyIdToken(answer.id_token, login.nonce);
  }

  /** Checks an id_token as OpenID Connect Core 3.1.3.7 asks, and returns its identity. */
  async verifyIdToken(idToken: string, nonce: string): Promise<OidcIdentity> {
    const parts = idToken.split('.');
    if (parts.length !== 3) throw refused('the id_token is not a signed JWT');
    const header = decodeJson(parts[0]) as { alg?: string; kid?: string };
    const claims = decodeJson(parts[1]) as Record<string, unknown>;
    const algorithm = typeof header.alg === 'string' ? ALGORITHMS[header.alg] : undefined;
    // `none` and HMAC (which would make the client secret a signing key) are refused.
    if (!algorithm) throw refused(`the id_token's algorithm ${String(header.alg)} is not accepted`);
    const jwk = await this.keyFor(header.kid, algorithm.kty);
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
    const signature = Buffer.from(parts[2], 'base64url');
    const valid = algorithm.kty === 'OKP'
      ? verify(null, signed, key, signature)
      : verify(algorithm.hash, signed, algorithm.pss ? { key, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: 32 } : { key, dsaEncoding: algorithm.dsaEncoding }, signature);
    if (!valid) throw refused('the id_token signature does not verify');

    const discovery = await this.discover();
    const nowS = Math.floor(this.now().getTime() / 1000);
    if (claims.iss !== discovery.issuer) throw refused('the id_token was issued by another issuer');
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(this.settings.clientId)) throw refused('the id_token is for another client');
    if (audiences.length > 1 && claims.azp !== undefined && claims.azp !== this.settings.clientId) throw refused('the id_token was issued to another party');
    if (typeof claims.exp !== 'number' || claims.exp + CLOCK_SKEW_S < nowS) throw refused('the id_token has expired');
    if (typeof claims.iat === 'number' && claims.iat - CLOCK_SKEW_S > nowS) throw refused('the id_token was issued in the future');
    if (claims.nonce !== nonce) throw refused('the id_token nonce does not match this sign-in');
    if (typeof claims.sub !== 'string' || claims.sub === '') throw refused('the id_token names no subject');
    if (typeof claims.email !== 'string' || !claims.email.includes('@')) throw refused('the identity provider gave no email address (ask for the email scope)');
    // An address the provider has not verified could be anyone's: it signs in no one.
    if (claims.email_verified === false || claims.email_verified === 'false') throw refused(`the identity provider has not verified ${claims.email}`);
    return { subject: claims.sub, email: claims.email, name: typeof claims.name === 'string' ? claims.name : undefined };
  }

  private discover(): Promise<Discovery> {
    this.discovery ??= (async () => {
      const url = `${this.settings.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      const document = (await getJson(url)) as Partial<Discovery>;
      // The issuer must name itself as configured (OpenID Connect Discovery 4.3).
      if (document.issuer !== this.settings.issuer) throw refused(`the discovery document names issuer ${String(document.issuer)}, not ${this.settings.issuer}`);
      for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
        if (typeof document[field] !== 'string') throw refused(`the discovery document has no ${field}`);
      }
      return document as Discovery;
    })().catch((error: unknown) => {
      this.discovery = undefined;
      throw error;
    });
    return this.discovery;
  }

  private async keyFor(kid: string | undefined, kty: string): Promise<JsonWebKey> {
    const find = () => this.keys?.keys.find((key) => key.kty === kty && (key.use === undefined || key.use === 'sig') && (kid === undefined || key.kid === kid));
    let key = find();
    if (!key && (!this.keys || this.now().getTime() - this.keys.fetchedAt > JWKS_REFRESH_MS)) {
      const { jwks_uri } = await this.discover();
      const document = (await getJson(jwks_uri)) as { keys?: unknown };
      if (!Array.isArray(document.keys)) throw refused('the JWKS document has no keys');
      this.keys = { fetchedAt: this.now().getTime(), keys: document.keys as JsonWebKey[] };
      key = find();
    }
    if (!key) throw refused(`the identity provider has no key ${kid ?? ''} for this id_token`);
    return key;
  }
}

function refused(message: string): HeraldError {
  return new HeraldError('authentication_failed', `SSO: ${message}`);
}

function decodeJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw refused('the id_token is not valid JSON');
  }
}

async function getJson(url: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
  } catch (error) {
    throw new HeraldError('unavailable', `SSO: the identity provider cannot be reached (${url}): ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!response.ok) throw new HeraldError('unavailable', `SSO: ${url} answered ${response.status}`);
  return response.json();
}
