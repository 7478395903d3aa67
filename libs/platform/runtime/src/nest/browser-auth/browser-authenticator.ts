import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { HeraldLogger } from '../../logging/logger';
import { CLOCK, Clock, HERALD_LOGGER } from '../tokens';
import { AuthenticatedWorkspace } from '../workspace-auth/workspace-credentials';
import { corsHeadersFor, preflightHeadersFor } from './browser-cors';
import { BrowserKeys } from './browser-keys';
import { MAX_USER_TOKEN_LENGTH, verifyUserToken } from './user-token';

/** Every public key starts so (the reference's shape); anything else in Authorization is a Bearer API key, an SDK signature or nothing. */
const PUBLIC_KEY_PREFIX = 'SS.PUBK.';
/** The SuprSend browser SDK's header for the user token. */
export const USER_TOKEN_HEADER = 'x-ss-signature';
const MAX_PUBLIC_KEY_LENGTH = 256;
const MAX_ORIGIN_LENGTH = 512;

/** Whether an Authorization value (or a `public_key` parameter) is a browser's public key. */
export function isPublicKey(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PUBLIC_KEY_PREFIX);
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
 * answer (errors included) carries the CORS headers, so the page can read it.
 * Shared by every service that opens routes to browsers.
 */
@Injectable()
export class BrowserAuthenticator {
  constructor(
    private readonly browserKeys: BrowserKeys,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** `resource` names what the route holds, for the refusal of another user's (e.g. `inbox`). */
  async authenticate(request: FastifyRequest, reply: FastifyReply, publicKeyValue: string, token: string | undefined, resource: string): Promise<BrowserCaller> {
    if (publicKeyValue.length > MAX_PUBLIC_KEY_LENGTH) throw this.refuse(request, 'authentication_failed', 'unknown_public_key', 'invalid public key');
    const publicKey = await this.browserKeys.publicKey(publicKeyValue);
    if (publicKey === null) throw this.refuse(request, 'authentication_failed', 'unknown_public_key', 'invalid public key');
    // Browsers send Origin on every cross-origin request; a caller without one is no web page.
    const origin = firstHeader(request.headers.origin);
    if (origin !== undefined) {
      if (!publicKey.allowedOrigins.includes(origin)) {
        throw this.refuse(request, 'permission_denied', 'origin_not_allowed', `origin ${origin} is not allowed for this public key`);
      }
      // From here on every answer, errors included, is readable by the page.
      reply.headers(corsHeadersFor(origin));
    }
    if (token === undefined) throw this.refuse(request, 'authentication_failed', 'missing_user_token', `a user token is required in ${USER_TOKEN_HEADER}`);
    if (token.length > MAX_USER_TOKEN_LENGTH) throw this.refuse(request, 'authentication_failed', 'token_too_large', 'user token too large');
    const keys = await this.browserKeys.signingKeysOf(publicKey.workspace.id);
    const verified = verifyUserToken(token, keys, Math.floor(this.clock.now().getTime() / 1000));
    if (!verified.ok) throw this.refuse(request, 'authentication_failed', verified.reason, verified.detail);
    const distinctId = (request.params as Record<string, string> | undefined)?.distinct_id;
    if (distinctId !== verified.claims.distinct_id) {
      throw this.refuse(request, 'permission_denied', 'another_user', `the user token does not grant this user's ${resource}`);
    }
    return {
      workspace: publicKey.workspace,
      publicKeyId: publicKey.publicKeyId,
      userToken: { distinctId: verified.claims.distinct_id, tenantId: verified.claims.tenant_id, exp: verified.claims.exp },
    };
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

  private refuse(request: FastifyRequest, code: 'authentication_failed' | 'permission_denied', reason: string, detail: string): HeraldError {
    // The reason, never the key or the token.
    this.logger.warn(code === 'permission_denied' ? 'request refused: permission denied' : 'request refused: authentication failed', {
      method: request.method,
      path: request.routeOptions.url,
      reason,
    });
    return new HeraldError(code, detail);
  }
}

export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
