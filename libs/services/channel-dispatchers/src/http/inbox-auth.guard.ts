import { CanActivate, ExecutionContext, Inject, Injectable, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { HERALD_LOGGER, HeraldLogger, parseBearerToken } from '@herald/runtime';
import { ApiKeyReadModel, InboxWorkspace } from '../read-models/api-key-read-model';

type InboxRequest = FastifyRequest & { workspace?: InboxWorkspace };

/** `Authorization: Bearer <api_key>` selects the workspace; every failure is 401 `authentication_failed`. */
@Injectable()
export class InboxAuthGuard implements CanActivate {
  constructor(
    private readonly apiKeys: ApiKeyReadModel,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<InboxRequest>();
    const bearer = parseBearerToken(request.headers.authorization);
    if (!bearer.ok) throw this.refuse(request, bearer.reason, bearer.detail);
    const workspace = await this.apiKeys.workspaceOfApiKey(bearer.token);
    if (workspace === null) throw this.refuse(request, 'unknown_api_key', 'invalid API key');
    request.workspace = workspace;
    return true;
  }

  private refuse(request: InboxRequest, reason: string, detail: string): HeraldError {
    // The reason, never the key.
    this.logger.warn('request refused: authentication failed', { method: request.method, path: request.routeOptions.url, reason });
    return new HeraldError('authentication_failed', detail);
  }
}

export const CurrentWorkspace = createParamDecorator((_data: unknown, context: ExecutionContext): InboxWorkspace => {
  const workspace = context.switchToHttp().getRequest<InboxRequest>().workspace;
  if (workspace === undefined) throw new Error('CurrentWorkspace used on a route without InboxAuthGuard');
  return workspace;
});
