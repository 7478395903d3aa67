import { CanActivate, ExecutionContext, Inject, Injectable, createParamDecorator } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { AuthFailureLimiter, AuthenticatedWorkspace, BrowserKeys, BrowserRequest, HERALD_LOGGER, HeraldLogger, corsHeadersFor, firstHeader } from '@herald/runtime';
import { readJsInboxUser, subscriberIdMatches, workspaceKeyOf } from '../inbox/js-inbox-protocol';
import { InboxOwner } from '../inbox/inbox-owner';
import { WorkspaceKeySecrets } from '../read-models/workspace-key-secrets';

const MAX_ORIGIN_LENGTH = 512;

/** A caller of `@suprsend/js-inbox`'s protocol: the workspace its key proves, and (once its subscriber id is checked) one user in it. */
export interface JsInboxCaller {
  readonly workspace: AuthenticatedWorkspace;
  readonly workspaceKey: string;
}

/** Where the CORS headers of an allowed origin go: the reply, or nowhere (a WebSocket has no CORS). */
interface HeaderSink {
  headers(values: Record<string, string>): unknown;
}

/**
 * `@suprsend/js-inbox` 2.x's credential: `Authorization: <workspace_key>:<nonce>` and the
 * user's `distinct_id` with its `subscriber_id` (HMAC-SHA256 of the distinct id under
 * the key's secret, made by the customer's backend). One user of one workspace: an
 * unknown key, or a subscriber id of another user (or made with another secret) is 401.
 * The workspace key carries no allowed origins, so a page's origin must be one that one
 * of the workspace's public keys allows (403 otherwise); once it is, every answer
 * (errors included) carries the CORS headers. Failures count against the limits per
 * address and per key and user (AuthFailureLimiter), as the browser SDK's do.
 */
@Injectable()
export class JsInboxAuthenticator {
  constructor(
    private readonly workspaceKeys: WorkspaceKeySecrets,
    private readonly browserKeys: BrowserKeys,
    private readonly failures: AuthFailureLimiter,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  /** The workspace of the key in `authorization`, the origin checked (the click carries no user). */
  async authenticateWorkspace(request: BrowserRequest, reply: HeaderSink, authorization: string | undefined, distinctId?: string): Promise<JsInboxCaller & { secrets: readonly string[] }> {
    const workspaceKey = workspaceKeyOf(authorization);
    const credential = `workspace_key:${workspaceKey ?? ''}:user:${distinctId ?? ''}`;
    this.failures.refuseIfLimited(request.ip, credential);
    if (workspaceKey === undefined) throw this.refuse(request, 'authentication_failed', 'missing_workspace_key', 'a workspace key is required in Authorization (<workspace_key>:)', credential);
    const secrets = await this.workspaceKeys.secretsOf(workspaceKey);
    if (secrets.length === 0) throw this.refuse(request, 'authentication_failed', 'unknown_workspace_key', 'invalid workspace key', credential);
    const workspace = secrets[0].workspace;
    // Browsers send Origin on every cross-origin request; a caller without one is no web page.
    const origin = firstHeader(request.headers.origin);
    if (origin !== undefined) {
      if (origin.length > MAX_ORIGIN_LENGTH || !(await this.browserKeys.isAllowedInWorkspace(workspace.id, origin))) {
        throw this.refuse(request, 'permission_denied', 'origin_not_allowed', `origin ${origin.slice(0, MAX_ORIGIN_LENGTH)} is not allowed by any public key of this workspace`);
      }
      reply.headers(corsHeadersFor(origin));
    }
    return { workspace, workspaceKey, secrets: secrets.map((secret) => secret.secret) };
  }

  /**
   * The user of the call (`distinct_id`, `subscriber_id`, `tenant_id` from `fields`: the
   * query, the body or a socket's payload): its inbox, in the tenant it names (the HMAC
   * covers the user alone, as in SuprSend: any of the user's tenants).
   */
  async authenticateUser(request: BrowserRequest, reply: HeaderSink, authorization: string | undefined, fields: unknown, fieldPrefix = ''): Promise<InboxOwner> {
    const claimed = typeof fields === 'object' && fields !== null ? (fields as Record<string, unknown>).distinct_id : undefined;
    const caller = await this.authenticateWorkspace(request, reply, authorization, typeof claimed === 'string' ? claimed.slice(0, 255) : undefined);
    const user = readJsInboxUser(fields, fieldPrefix);
    if (!subscriberIdMatches(user.subscriberId, user.distinctId, caller.secrets)) {
      throw this.refuse(request, 'authentication_failed', 'wrong_subscriber_id', 'subscriber_id is not the HMAC of distinct_id under this workspace key\'s secret', `workspace_key:${caller.workspaceKey}:user:${user.distinctId}`);
    }
    return { workspaceId: caller.workspace.id, distinctId: user.distinctId, ...(user.tenantId === undefined ? {} : { tenantId: user.tenantId }) };
  }

  private refuse(request: BrowserRequest, code: 'authentication_failed' | 'permission_denied', reason: string, detail: string, credential?: string): HeraldError {
    if (code === 'authentication_failed') this.failures.recordFailure(request.ip, credential);
    // The reason, never the key or the subscriber id.
    this.logger.warn(code === 'permission_denied' ? 'request refused: permission denied' : 'request refused: authentication failed', {
      method: request.method,
      path: request.routeOptions.url,
      reason,
    });
    return new HeraldError(code, detail);
  }
}

type JsInboxRequest = FastifyRequest & { jsInboxOwner?: InboxOwner; jsInboxCaller?: JsInboxCaller };

/** A route of one user's inbox: the user's fields in the query (GET) or the JSON body (POST). */
@Injectable()
export class JsInboxUserGuard implements CanActivate {
  constructor(private readonly authenticator: JsInboxAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<JsInboxRequest>();
    const fields = request.method === 'GET' ? request.query : request.body;
    request.jsInboxOwner = await this.authenticator.authenticateUser(request, context.switchToHttp().getResponse<FastifyReply>(), request.headers.authorization, fields);
    return true;
  }
}

/** The click, which names the message alone: the workspace key and the origin. */
@Injectable()
export class JsInboxWorkspaceGuard implements CanActivate {
  constructor(private readonly authenticator: JsInboxAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<JsInboxRequest>();
    const { workspace, workspaceKey } = await this.authenticator.authenticateWorkspace(request, context.switchToHttp().getResponse<FastifyReply>(), request.headers.authorization);
    request.jsInboxCaller = { workspace, workspaceKey };
    return true;
  }
}

export const JsInboxOwner = createParamDecorator((_data: unknown, context: ExecutionContext): InboxOwner => {
  const owner = context.switchToHttp().getRequest<JsInboxRequest>().jsInboxOwner;
  if (owner === undefined) throw new Error('JsInboxOwner used on a route without JsInboxUserGuard');
  return owner;
});

export const JsInboxWorkspace = createParamDecorator((_data: unknown, context: ExecutionContext): JsInboxCaller => {
  const caller = context.switchToHttp().getRequest<JsInboxRequest>().jsInboxCaller;
  if (caller === undefined) throw new Error('JsInboxWorkspace used on a route without JsInboxWorkspaceGuard');
  return caller;
});
