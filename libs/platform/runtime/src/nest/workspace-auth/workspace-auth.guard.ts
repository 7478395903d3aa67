import { CanActivate, ExecutionContext, Inject, Injectable, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { HeraldLogger } from '../../logging/logger';
import { authorizationKind, parseBearerToken } from '../../security/request-auth/bearer-token';
import { parseSdkAuthorization, sdkSignatureReplayKey, verifySdkSignature } from '../../security/request-auth/sdk-signature';
import { CLOCK, Clock, HERALD_LOGGER } from '../tokens';
import { AuthenticatedWorkspace, WorkspaceCredentials } from './workspace-credentials';

export const WORKSPACE_CREDENTIALS = Symbol('WORKSPACE_CREDENTIALS');

export type AuthenticatedRequest = FastifyRequest & {
  rawBody?: Buffer;
  workspace?: AuthenticatedWorkspace;
  /**
   * Set when the request was proven by an SDK signature (not a Bearer key): the same
   * for every exact replay of it (`sdkSignatureReplayKey`), so a service can answer a
   * replay inside the clock window as a repeat instead of doing the work again.
   */
  signatureReplayKey?: string;
};

/**
 * `{base_url}` authentication (decisions.md): `Bearer <api_key>`, or the SuprSend SDK
 * signature `<workspace_key>:<HMAC>` over the raw body, Content-Type, Date and request
 * target. Either one selects the workspace the request may touch; nothing in the body
 * can name another. Every failure is 401 `authentication_failed`.
 */
@Injectable()
export class WorkspaceAuthGuard implements CanActivate {
  constructor(
    @Inject(WORKSPACE_CREDENTIALS) private readonly credentials: WorkspaceCredentials,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    request.workspace = await this.authenticate(request);
    return true;
  }

  private async authenticate(request: AuthenticatedRequest): Promise<AuthenticatedWorkspace> {
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

  private async verifySignature(request: AuthenticatedRequest, authorization: string | undefined): Promise<AuthenticatedWorkspace> {
    const parsed = parseSdkAuthorization(authorization);
    if (!parsed.ok) throw this.refuse(request, parsed.reason, parsed.detail);
    const candidates = await this.credentials.secretsOfWorkspaceKey(parsed.workspaceKey);
    const signed = {
      method: request.method,
      requestUri: request.raw.url ?? request.url,
      contentType: header(request, 'content-type'),
      date: header(request, 'date'),
      body: request.rawBody,
      authorization,
    };
    let failure = { reason: 'unknown_workspace_key', detail: 'no workspace has this workspace key' };
    for (const candidate of candidates) {
      const result = verifySdkSignature(signed, () => candidate.secret, this.clock.now());
      if (result.ok) {
        request.signatureReplayKey = sdkSignatureReplayKey(authorization, signed.date);
        return candidate.workspace;
      }
      failure = result;
    }
    if (candidates.length === 0) {
      // Still check the Date, so a client with a wrong clock learns that first.
      const result = verifySdkSignature(signed, () => undefined, this.clock.now());
      if (!result.ok) failure = result;
    }
    throw this.refuse(request, failure.reason, failure.detail);
  }

  private refuse(request: AuthenticatedRequest, reason: string, detail: string): HeraldError {
    // The reason, never the credential: logs must not carry keys or signatures.
    this.logger.warn('request refused: authentication failed', { method: request.method, path: request.routeOptions.url, reason });
    return new HeraldError('authentication_failed', detail);
  }
}

function header(request: AuthenticatedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The workspace WorkspaceAuthGuard proved. */
export const CurrentWorkspace = createParamDecorator((_data: unknown, context: ExecutionContext): AuthenticatedWorkspace => {
  const workspace = context.switchToHttp().getRequest<AuthenticatedRequest>().workspace;
  if (workspace === undefined) throw new Error('CurrentWorkspace used on a route without WorkspaceAuthGuard');
  return workspace;
});
