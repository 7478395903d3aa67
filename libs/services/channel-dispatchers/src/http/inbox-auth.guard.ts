import { CanActivate, ExecutionContext, Inject, Injectable, createParamDecorator } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger, parseBearerToken } from '@herald/runtime';
import { MAX_USER_TOKEN_LENGTH, verifyUserToken } from '../inbox/user-token';
import { ApiKeyReadModel, InboxWorkspace } from '../read-models/api-key-read-model';
import { BrowserKeyReadModel } from '../read-models/browser-key-read-model';
import { corsHeadersFor } from './inbox-cors';

/** Who may act on the inbox of the route's `distinct_id`, and what bounds their event streams. */
export interface InboxCaller {
  readonly workspace: InboxWorkspace;
  /** Connection limits count per key: the public key's id, or the API key's workspace. */
  readonly limitKey: string;
  /** A browser's user token: its tenant and when it expires (seconds since the epoch). */
  readonly userToken?: { readonly tenantId?: string; readonly exp: number };
}

type InboxRequest = FastifyRequest & { inboxCaller?: InboxCaller };

/** Every public key starts so (the reference's shape); anything else in Authorization is a Bearer API key or nothing. */
const PUBLIC_KEY_PREFIX = 'SS.PUBK.';
/** The SuprSend browser SDK's header for the user token. */
const USER_TOKEN_HEADER = 'x-ss-signature';

/**
 * Two callers. A backend: `Authorization: Bearer <api_key>`, any recipient of the
 * workspace. A browser, as SuprSend's web SDK calls: `Authorization: <public key>` and
 * `x-ss-signature: <user token>` (an ES256 JWT from the customer's backend), for the
 * token's `distinct_id` alone. An EventSource cannot set headers, so the stream also
 * takes them as `public_key` and `token` query parameters. A missing, unknown, expired
 * or wrongly signed credential is 401; another user's inbox, or an origin the public
 * key does not allow, is 403.
 */
@Injectable()
export class InboxAuthGuard implements CanActivate {
  constructor(
    private readonly apiKeys: ApiKeyReadModel,
    private readonly browserKeys: BrowserKeyReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<InboxRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const authorization = request.headers.authorization;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const publicKey = authorization === undefined ? query.public_key : authorization;
    if (typeof publicKey !== 'string' || !publicKey.startsWith(PUBLIC_KEY_PREFIX)) {
      request.inboxCaller = await this.backend(request, authorization);
    } else {
      const token = firstHeader(request.headers[USER_TOKEN_HEADER]) ?? (typeof query.token === 'string' ? query.token : undefined);
      request.inboxCaller = await this.browser(request, reply, publicKey, token);
    }
    return true;
  }

  private async backend(request: InboxRequest, authorization: string | undefined): Promise<InboxCaller> {
    const bearer = parseBearerToken(authorization);
    if (!bearer.ok) throw this.refuse(request, 'authentication_failed', bearer.reason, bearer.detail);
    const workspace = await this.apiKeys.workspaceOfApiKey(bearer.token);
    if (workspace === null) throw this.refuse(request, 'authentication_failed', 'unknown_api_key', 'invalid API key');
    return { workspace, limitKey: `api_key:${workspace.id}` };
  }

  private async browser(request: InboxRequest, reply: FastifyReply, publicKeyValue: string, token: string | undefined): Promise<InboxCaller> {
    if (publicKeyValue.length > 256) throw this.refuse(request, 'authentication_failed', 'unknown_public_key', 'invalid public key');
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
      throw this.refuse(request, 'permission_denied', 'another_user', "the user token does not grant this user's inbox");
    }
    return {
      workspace: publicKey.workspace,
      limitKey: `public_key:${publicKey.publicKeyId}`,
      userToken: { tenantId: verified.claims.tenant_id, exp: verified.claims.exp },
    };
  }

  private refuse(request: InboxRequest, code: 'authentication_failed' | 'permission_denied', reason: string, detail: string): HeraldError {
    // The reason, never the key or the token.
    this.logger.warn(code === 'permission_denied' ? 'request refused: permission denied' : 'request refused: authentication failed', {
      method: request.method,
      path: request.routeOptions.url,
      reason,
    });
    return new HeraldError(code, detail);
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): InboxCaller => {
  const caller = context.switchToHttp().getRequest<InboxRequest>().inboxCaller;
  if (caller === undefined) throw new Error('CurrentCaller used on a route without InboxAuthGuard');
  return caller;
});

export const CurrentWorkspace = createParamDecorator((_data: unknown, context: ExecutionContext): InboxWorkspace => {
  const caller = context.switchToHttp().getRequest<InboxRequest>().inboxCaller;
  if (caller === undefined) throw new Error('CurrentWorkspace used on a route without InboxAuthGuard');
  return caller.workspace;
});

