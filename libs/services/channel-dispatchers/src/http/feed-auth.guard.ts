import { CanActivate, ExecutionContext, Injectable, createParamDecorator } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HeraldError, MAX_ID_LENGTH } from '@herald/contracts';
import { BrowserAuthenticator, BrowserCaller, BrowserRequest } from '@herald/runtime';
import { InboxOwner } from '../inbox/inbox-owner';

type FeedRequest = FastifyRequest & { feedOwner?: InboxOwner };

/**
 * SuprSend's feed API is a browser's: `Authorization: <public key>`, `x-ss-signature:
 * <user token>` (BrowserAuthenticator, as the inbox), and the user and tenant in the
 * `distinct_id` and `tenant_id` query parameters. The user must be the token's (403);
 * a token that names a tenant is good for that tenant alone (403 for another). Without
 * `tenant_id` (and a tenant in the token) the feed holds every tenant's messages.
 */
@Injectable()
export class FeedAuthGuard implements CanActivate {
  constructor(private readonly browsers: BrowserAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FeedRequest>();
    const credential = this.browsers.credentialOf(request);
    if (credential === undefined) throw new HeraldError('authentication_failed', 'a public key is required in Authorization, and a user token in x-ss-signature');
    const query = (request.query ?? {}) as Record<string, unknown>;
    const claimed = typeof query.distinct_id === 'string' ? query.distinct_id : undefined;
    const caller = await this.browsers.authenticateAnyUser(request, context.switchToHttp().getResponse<FastifyReply>(), credential.publicKey, credential.token, claimed);
    request.feedOwner = feedOwnerOf(this.browsers, request, caller, claimed, query.tenant_id);
    return true;
  }
}

/**
 * Whose feed an authenticated browser asks for (`distinct_id` and `tenant_id`, of the
 * query or of a socket's connect payload): the token's user alone, in the token's tenant
 * if it names one. Shared by the feed's routes and its socket (FeedSockets).
 */
export function feedOwnerOf(browsers: BrowserAuthenticator, request: BrowserRequest, caller: BrowserCaller, claimed: string | undefined, tenant: unknown): InboxOwner {
  if (claimed === undefined || claimed === '') throw HeraldError.validation([{ path: 'distinct_id', message: 'is required: the id of the signed-in user' }]);
  if (claimed !== caller.userToken.distinctId) throw browsers.refuseAnotherUser(request, 'feed');
  if (tenant !== undefined && (typeof tenant !== 'string' || tenant === '' || tenant.length > MAX_ID_LENGTH)) {
    throw HeraldError.validation([{ path: 'tenant_id', message: `must be a string of 1 to ${MAX_ID_LENGTH} characters` }]);
  }
  const tokenTenant = caller.userToken.tenantId;
  if (tokenTenant !== undefined && tenant !== undefined && tenant !== tokenTenant) throw new HeraldError('permission_denied', `the user token is for tenant '${tokenTenant}'`);
  return { workspaceId: caller.workspace.id, distinctId: claimed, tenantId: (tenant as string | undefined) ?? tokenTenant };
}

export const FeedOwner = createParamDecorator((_data: unknown, context: ExecutionContext): InboxOwner => {
  const owner = context.switchToHttp().getRequest<FeedRequest>().feedOwner;
  if (owner === undefined) throw new Error('FeedOwner used on a route without FeedAuthGuard');
  return owner;
});
