import { CanActivate, ExecutionContext, Inject, Injectable, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger, authorizationKind, parseBearerToken, parseSdkAuthorization, verifySdkSignature } from '@herald/runtime';
import { AudienceCredentials, AudienceWorkspace } from './audience-credentials';

export type AudienceRequest = FastifyRequest & { rawBody?: Buffer; workspace?: AudienceWorkspace };

/**
 * `{base_url}` authentication, the same as ingest-api's (decisions.md): `Bearer
 * <api_key>` or the SuprSend SDK signature over the raw request target and body.
 * The credential selects the workspace; every query below is scoped by it.
 */
@Injectable()
export class AudienceAuthGuard implements CanActivate {
  constructor(
    private readonly credentials: AudienceCredentials,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AudienceRequest>();
    request.workspace = await this.authenticate(request);
    return true;
  }

  private async authenticate(request: AudienceRequest): Promise<AudienceWorkspace> {
    const authorization = request.headers.authorization;
    switch (authorizationKind(authorization)) {
      case 'missing':
        throw this.refuse(request, 'missing_authorization', 'the Authorization header is missing');
      case 'bearer': {
        const bearer = parseBearerToken(authorization);
        if (!bearer.ok) throw this.refuse(request, bearer.reason, bearer.detail);
        const workspace = await this.credentials.workspaceOfApiKey(bearer.token);
        if (workspace === null) throw this.refuse(request, 'unknown_api_key', 'invalid API key');
        return workspace;
      }
      case 'sdk_signature':
        return this.verifySignature(request, authorization);
      default:
        throw this.refuse(request, 'unsupported_scheme', 'the Authorization header must be "Bearer <api_key>" or "<workspace_key>:<signature>"');
    }
  }

  private async verifySignature(request: AudienceRequest, authorization: string | undefined): Promise<AudienceWorkspace> {
    const parsed = parseSdkAuthorization(authorization);
    if (!parsed.ok) throw this.refuse(request, parsed.reason, parsed.detail);
    const signed = {
      method: request.method,
      requestUri: request.raw.url ?? request.url,
      contentType: header(request, 'content-type'),
      date: header(request, 'date'),
      body: request.rawBody,
      authorization,
    };
    const candidates = await this.credentials.secretsOfWorkspaceKey(parsed.workspaceKey);
    let failure = verifySdkSignature(signed, () => undefined, this.clock.now());
    for (const candidate of candidates) {
      const result = verifySdkSignature(signed, () => candidate.secret, this.clock.now());
      if (result.ok) return candidate.workspace;
      failure = result;
    }
    const reason = failure.ok ? { reason: 'unknown_workspace_key', detail: 'no workspace has this workspace key' } : failure;
    throw this.refuse(request, reason.reason, reason.detail);
  }

  private refuse(request: AudienceRequest, reason: string, detail: string): HeraldError {
    // The reason, never the credential: logs must not carry keys or signatures.
    this.logger.warn('request refused: authentication failed', { method: request.method, path: request.routeOptions.url, reason });
    return new HeraldError('authentication_failed', detail);
  }
}

function header(request: AudienceRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The workspace AudienceAuthGuard proved. */
export const Workspace = createParamDecorator((_data: unknown, context: ExecutionContext): AudienceWorkspace => {
  const workspace = context.switchToHttp().getRequest<AudienceRequest>().workspace;
  if (workspace === undefined) throw new Error('Workspace used on a route without AudienceAuthGuard');
  return workspace;
});
