import { CanActivate, Controller, ExecutionContext, Headers, Injectable, Options, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { AuthenticatedRequest, BrowserAuthenticator, WorkspaceAuthGuard } from '@herald/runtime';

/**
 * The one place preference-service opens to browsers: a user's own preferences. A
 * backend authenticates as everywhere else (Bearer API key or SDK signature); a browser
 * with a public key and a user token (as SuprSend's web SDK sends them) reaches the
 * token's `distinct_id` alone (BrowserAuthenticator, shared with the inbox). Every other
 * route keeps WorkspaceAuthGuard, which refuses a public key with 401.
 */
@Injectable()
export class UserPreferencesAuthGuard implements CanActivate {
  constructor(
    private readonly workspaceAuth: WorkspaceAuthGuard,
    private readonly browsers: BrowserAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const browser = this.browsers.credentialOf(request);
    if (browser === undefined) return this.workspaceAuth.canActivate(context);
    const caller = await this.browsers.authenticate(request, context.switchToHttp().getResponse<FastifyReply>(), browser.publicKey, browser.token, 'preferences');
    request.workspace = caller.workspace;
    scopeToTokenTenant(request, caller.userToken.tenantId);
    return true;
  }
}

/**
 * A user token that names a tenant works in that tenant's scope: the `tenant_id` query
 * defaults to it, and another tenant is refused. The handlers read the query after the
 * guards, so they see the scope set here.
 */
function scopeToTokenTenant(request: AuthenticatedRequest, tenantId: string | undefined): void {
  if (tenantId === undefined) return;
  const query = request.query as Record<string, unknown>;
  if (query.tenant_id === undefined) query.tenant_id = tenantId;
  else if (query.tenant_id !== tenantId) throw new HeraldError('permission_denied', `the user token is for tenant '${tenantId}'`);
}

const PREFERENCE_CORS_METHODS = 'GET, PATCH, OPTIONS';

/** CORS preflights of a user's preference routes, answered for the origins public keys allow. */
@Controller('v1/user/:distinct_id/preference')
export class UserPreferencesPreflightController {
  constructor(private readonly browsers: BrowserAuthenticator) {}

  @Options()
  async full(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.browsers.answerPreflight(origin, reply, PREFERENCE_CORS_METHODS);
  }

  @Options('category')
  async categories(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.browsers.answerPreflight(origin, reply, PREFERENCE_CORS_METHODS);
  }

  @Options('category/:category_slug')
  async category(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.browsers.answerPreflight(origin, reply, PREFERENCE_CORS_METHODS);
  }

  @Options('channel_preference')
  async channels(@Headers('origin') origin: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.browsers.answerPreflight(origin, reply, PREFERENCE_CORS_METHODS);
  }
}
