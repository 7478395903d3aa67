import { CanActivate, ExecutionContext, Inject, Injectable, createParamDecorator } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HeraldError } from '@herald/contracts';
import {
  AuthFailureLimiter,
  BrowserAuthenticator,
  HERALD_LOGGER,
  HeraldLogger,
  USER_TOKEN_HEADER,
  firstHeader,
  isBearer,
  isPublicKey,
  parseBearerToken,
  presentedCredential,
  refuseWriteWithReadOnlyKey,
} from '@herald/runtime';
import { InboxWorkspace } from '../read-models/api-key.repository';
import { InboxApiKeys } from '../read-models/inbox-api-keys';

/** Who may act on the inbox of the route's `distinct_id`, and what bounds their event streams. */
export interface InboxCaller {
  readonly workspace: InboxWorkspace;
  /** Connection limits count per key: the public key's id, or the API key's workspace. */
  readonly limitKey: string;
  /** A browser's user token: its tenant and when it expires (seconds since the epoch). */
  readonly userToken?: { readonly tenantId?: string; readonly exp: number };
}

type InboxRequest = FastifyRequest & { inboxCaller?: InboxCaller };

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
    private readonly apiKeys: InboxApiKeys,
    private readonly browsers: BrowserAuthenticator,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<InboxRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const authorization = request.headers.authorization;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const publicKey = authorization === undefined ? query.public_key : authorization;
    if (!isPublicKey(publicKey)) {
      // A backend's call, or the operator console's from its own origin: readable by any origin, refusals included (OperatorCors).
      if (isBearer(authorization)) void reply.header('access-control-allow-origin', '*');
      request.inboxCaller = await this.backend(request, authorization);
    } else {
      const token = firstHeader(request.headers[USER_TOKEN_HEADER]) ?? (typeof query.token === 'string' ? query.token : undefined);
      // The same check as every route open to browsers (BrowserAuthenticator in @herald/runtime).
      const browser = await this.browsers.authenticate(request, reply, publicKey, token, 'inbox');
      request.inboxCaller = {
        workspace: browser.workspace,
        limitKey: `public_key:${browser.publicKeyId}`,
        userToken: { tenantId: browser.userToken.tenantId, exp: browser.userToken.exp },
      };
    }
    return true;
  }

  private async backend(request: InboxRequest, authorization: string | undefined): Promise<InboxCaller> {
    this.failures.refuseIfLimited(request.ip, presentedCredential(authorization));
    const bearer = parseBearerToken(authorization);
    if (!bearer.ok) throw this.refuse(request, 'authentication_failed', bearer.reason, bearer.detail);
    const workspace = await this.apiKeys.workspaceOfApiKey(bearer.token);
    if (workspace === null) throw this.refuse(request, 'authentication_failed', 'unknown_api_key', 'invalid API key');
    refuseWriteWithReadOnlyKey(workspace, request.method);
    return { workspace, limitKey: `api_key:${workspace.id}` };
  }

  private refuse(request: InboxRequest, code: 'authentication_failed' | 'permission_denied', reason: string, detail: string): HeraldError {
    // The reason, never the key or the token.
    this.logger.warn(code === 'permission_denied' ? 'request refused: permission denied' : 'request refused: authentication failed', {
      method: request.method,
      path: request.routeOptions.url,
      reason,
    });
    if (code === 'authentication_failed') this.failures.recordFailure(request.ip, presentedCredential(request.headers.authorization));
    return new HeraldError(code, detail);
  }
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

