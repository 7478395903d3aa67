import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { HeraldConfig } from '../../config/herald-config';
import { HeraldLogger } from '../../logging/logger';
import { AuthFailureLimiter } from '../../security/auth-failure-limiter';
import { CLOCK, Clock, HERALD_CONFIG, HERALD_LOGGER } from '../tokens';
import { AuthenticatedWorkspace } from '../workspace-auth/workspace-credentials';
import { corsHeadersFor, preflightHeadersFor } from './browser-cors';
import { BrowserKeys, BrowserPublicKey } from './browser-keys';
import { MAX_USER_TOKEN_LENGTH, verifyUserToken } from './user-token';

/** Every public key starts so (the reference's shape); anything else in Authorization is a Bearer API key, an SDK signature or nothing. */
const PUBLIC_KEY_PREFIX = 'SS.PUBK.';
/** The SuprSend browser SDK's header for the user token. */
export const USER_TOKEN_HEADER = 'x-ss-signature';
const MAX_PUBLIC_KEY_LENGTH = 256;
const MAX_ORIGIN_LENGTH = 512;
/** Refusals of a token whose signature verified: a stale token from an honest browser, no guess, so not counted against the limits. */
const SIGNED_BUT_REFUSED = new Set(['token_expired', 'token_not_yet_valid', 'lifetime_too_long']);

/** Whether an Authorization value (or a `public_key` parameter) is a browser's public key. */
export function isPublicKey(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PUBLIC_KEY_PREFIX);
}

/** What the checks read of a request: a Fastify request, or a socket's handshake (`authenticateHandshake`). */
export interface BrowserRequest {
  readonly ip: string;
  readonly method: string;
  readonly headers: { readonly origin?: string | string[] };
  readonly routeOptions: { readonly url?: string };
}

/** Where the CORS headers of an allowed origin go: the reply, or nowhere (a WebSocket has no CORS). */
interface BrowserReply {
  headers(values: Record<string, string>): unknown;
}

/** A browser proven by a public key and a user token: one user of one workspace. */
export interface BrowserCaller {
  readonly workspace: AuthenticatedWorkspace;
  readonly publicKeyId: string;
  readonly userToken: { readonly distinctId: string; readonly tenantId?: string; readonly exp: number };
}

/**
 * The browser credential, as SuprSend's web SDK sends it: `Authorization: <public key>`
 * and `x-ss-signature: <user token>` (an ES256 JWT from the customer's backend), good
 * for the token's `distinct_id` alone, which must be the route's `:distinct_id`. A
 * missing, unknown, expired or wrongly signed credential is 401; another user, or an
 * origin the public key does not allow, is 403. Once the origin is allowed, every
 * answer (errors included) carries the CORS headers, so the page can read it. Failed
 * attempts count against the limits per address and per public key and user
 * (AuthFailureLimiter): past them, 429 until the window ends, readable (with its
 * Retry-After) by a page whose origin the public key allows.
 * Shared by every service that opens routes to browsers.
 */
@Injectable()
export class BrowserAuthenticator {
  constructor(
    private readonly browserKeys: BrowserKeys,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(HERALD_CONFIG) private readonly config: HeraldConfig,
    private readonly failures: AuthFailureLimiter,
  ) {}

  /** `resource` names what the route holds, for the refusal of another user's (e.g. `inbox`). */
  async authenticate(request: FastifyRequest, reply: FastifyReply, publicKeyValue: string, token: string | undefined, resource: string): Promise<BrowserCaller> {
    const distinctId = (request.params as Record<string, string> | undefined)?.distinct_id;
    const caller = await this.authenticateAnyUser(request, reply, publicKeyValue, token, distinctId);
    if (distinctId !== caller.userToken.distinctId) throw this.refuseAnotherUser(request, resource);
    return caller;
  }

  /**
   * The same checks, short of comparing the token's user with the one the request names:
   * for routes whose user is in the query or the body (SuprSend's feed and event API),
   * which check the field (400 when missing) before `refuseAnotherUser`. `claimedDistinctId`
   * keys the failure limits per user.
   */
  async authenticateAnyUser(
    request: BrowserRequest,
    reply: BrowserReply,
    publicKeyValue: string,
    token: string | undefined,
    claimedDistinctId: string | undefined,
  ): Promise<BrowserCaller> {
    const credential = browserCredential(publicKeyValue, claimedDistinctId);
    const publicKey = await this.publicKeyOf(request, reply, publicKeyValue, credential);
    if (token === undefined) throw this.refuse(request, 'authentication_failed', 'missing_user_token', `a user token is required in ${USER_TOKEN_HEADER}`, credential);
    if (token.length > MAX_USER_TOKEN_LENGTH) throw this.refuse(request, 'authentication_failed', 'token_too_large', 'user token too large', credential);
    const keys = await this.browserKeys.signingKeysOf(publicKey.workspace.id);
    const verified = verifyUserToken(token, keys, Math.floor(this.clock.now().getTime() / 1000), this.config.userTokenMaxLifetimeSeconds);
    if (!verified.ok) throw this.refuse(request, 'authentication_failed', verified.reason, verified.detail, credential);
    return {
      workspace: publicKey.workspace,
      publicKeyId: publicKey.publicKeyId,
      userToken: { distinctId: verified.claims.distinct_id, tenantId: verified.claims.tenant_id, exp: verified.claims.exp },
    };
  }

  /**
   * A call with the public key alone: SuprSend's service worker (`serviceworker.js`) reports
   * its push notifications delivered, clicked and dismissed to `/v2/event` with no user
   * token, as it has none. The key and the origin are checked (and limited) as for any
   * browser call; the caller is the workspace, no user, so what such a call may do is
   * the route's to restrict.
   */
  async authenticatePublicKeyOnly(request: BrowserRequest, reply: BrowserReply, publicKeyValue: string): Promise<{ readonly workspace: AuthenticatedWorkspace; readonly publicKeyId: string }> {
    const publicKey = await this.publicKeyOf(request, reply, publicKeyValue, browserCredential(publicKeyValue, undefined));
    return { workspace: publicKey.workspace, publicKeyId: publicKey.publicKeyId };
  }

  /**
   * A socket's handshake (the web SDK's feed socket): the same checks, the credential from
   * its connect payload. A WebSocket has no CORS: an origin the key does not allow is
   * refused, and an allowed one needs no headers.
   */
  authenticateHandshake(
    handshake: { readonly ip: string; readonly origin: string | undefined; readonly path: string },
    publicKeyValue: string,
    token: string | undefined,
    claimedDistinctId: string | undefined,
  ): Promise<BrowserCaller> {
    const request: BrowserRequest = { ip: handshake.ip, method: 'GET', headers: { origin: handshake.origin }, routeOptions: { url: handshake.path } };
    return this.authenticateAnyUser(request, { headers: () => undefined }, publicKeyValue, token, claimedDistinctId);
  }

  /** 403 for a request about another user than the token's (logged by its reason). */
  refuseAnotherUser(request: BrowserRequest, resource: string): HeraldError {
    return this.refuse(request, 'permission_denied', 'another_user', `the user token does not grant this user's ${resource}`);
  }

  /** The browser credential of a request: the public key in Authorization and the token in x-ss-signature, or undefined when Authorization holds no public key. */
  credentialOf(request: FastifyRequest): { readonly publicKey: string; readonly token: string | undefined } | undefined {
    const authorization = request.headers.authorization;
    if (!isPublicKey(authorization)) return undefined;
    return { publicKey: authorization, token: firstHeader(request.headers[USER_TOKEN_HEADER]) };
  }

  /**
   * Answers a CORS preflight. It carries no credentials, so it is allowed for an origin
   * some public key allows (and for no other: no allow-origin header, and the browser
   * stops there); the request itself is then held to its own key's origins.
   */
  async answerPreflight(origin: string | undefined, reply: FastifyReply, methods: string): Promise<void> {
    const allowed = origin !== undefined && origin.length <= MAX_ORIGIN_LENGTH && (await this.browserKeys.isAllowedByAnyKey(origin));
    await reply.status(204).headers(allowed ? preflightHeadersFor(origin, methods) : { vary: 'Origin' }).send();
  }

  /** The public key, known and allowing the request's origin; from there on every answer carries the CORS headers. */
  private async publicKeyOf(request: BrowserRequest, reply: BrowserReply, publicKeyValue: string, credential: string): Promise<BrowserPublicKey> {
    // Browsers send Origin on every cross-origin request; a caller without one is no web page.
    const origin = firstHeader(request.headers.origin);
    try {
      this.failures.refuseIfLimited(request.ip, credential);
    } catch (limited) {
      // The page reads its 429 as it reads any answer to an origin its key allows (the cached lookup, no check of the token).
      if (origin !== undefined && (await this.keyAllowsOrigin(publicKeyValue, origin))) reply.headers(corsHeadersFor(origin));
      throw limited;
    }
    if (publicKeyValue.length > MAX_PUBLIC_KEY_LENGTH) throw this.refuse(request, 'authentication_failed', 'unknown_public_key', 'invalid public key', credential);
    const publicKey = await this.browserKeys.publicKey(publicKeyValue);
    if (publicKey === null) throw this.refuse(request, 'authentication_failed', 'unknown_public_key', 'invalid public key', credential);
    if (origin !== undefined) {
      if (!publicKey.allowedOrigins.includes(origin)) {
        throw this.refuse(request, 'permission_denied', 'origin_not_allowed', `origin ${origin} is not allowed for this public key`);
      }
      // From here on every answer, errors included, is readable by the page.
      reply.headers(corsHeadersFor(origin));
    }
    return publicKey;
  }

  private async keyAllowsOrigin(publicKeyValue: string, origin: string): Promise<boolean> {
    if (publicKeyValue.length > MAX_PUBLIC_KEY_LENGTH) return false;
    const publicKey = await this.browserKeys.publicKey(publicKeyValue);
    return publicKey !== null && publicKey.allowedOrigins.includes(origin);
  }

  private refuse(request: BrowserRequest, code: 'authentication_failed' | 'permission_denied', reason: string, detail: string, credential?: string): HeraldError {
    if (code === 'authentication_failed' && !SIGNED_BUT_REFUSED.has(reason)) this.failures.recordFailure(request.ip, credential);
    // The reason, never the key or the token.
    this.logger.warn(code === 'permission_denied' ? 'request refused: permission denied' : 'request refused: authentication failed', {
      method: request.method,
      path: request.routeOptions.url,
      reason,
    });
    return new HeraldError(code, detail);
  }
}

/** A public key is shared by every page of a site: its failures count per user, so one user's bad tokens lock out no other. */
function browserCredential(publicKeyValue: string, distinctId: string | undefined): string {
  return `public_key:${publicKeyValue.slice(0, MAX_PUBLIC_KEY_LENGTH)}:user:${distinctId ?? ''}`;
}

export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
