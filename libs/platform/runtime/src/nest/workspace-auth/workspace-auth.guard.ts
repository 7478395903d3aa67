import { CanActivate, ExecutionContext, Inject, Injectable, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { HeraldLogger } from '../../logging/logger';
import { AuthFailureLimiter, presentedCredential } from '../../security/auth-failure-limiter';
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
 * can name another. Every failure is 401 `authentication_failed`; past the limits on
 * failures (per address, per credential) every attempt is 429 until the window ends.
 */
@Injectable()
export class WorkspaceAuthGuard implements CanActivate {
  constructor(
    @Inject(WORKSPACE_CREDENTIALS) private readonly credentials: WorkspaceCredentials,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.authenticateRequest(context.switchToHttp().getRequest<AuthenticatedRequest>());
    return true;
  }

  /**
   * The guard's work on one request, for a route that takes a server credential or
   * another kind (`POST /v2/event`: the web SDK's public key, or a backend SDK's signature).
   */
  async authenticateRequest(request: AuthenticatedRequest): Promise<AuthenticatedWorkspace> {
    this.failures.refuseIfLimited(request.ip, presentedCredential(request.headers.authorization));
    request.workspace = await this.authenticate(request);
    return request.workspace;
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
        refuseWriteWithReadOnlyKey(workspace, request.method);
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
    this.failures.recordFailure(request.ip, presentedCredential(request.headers.authorization));
    return new HeraldError('authentication_failed', detail);
  }
}

const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * A read-only API key (a console viewer's, or one minted for a dashboard) reads only: any
 * other method is 403, before the route runs. Not an authentication failure: the key is
 * valid, so it does not count towards the failure limits.
 */
export function refuseWriteWithReadOnlyKey(workspace: { readonly readOnly?: boolean }, method: string): void {
  if (workspace.readOnly && !READ_METHODS.has(method.toUpperCase())) {
    throw new HeraldError('permission_denied', 'this API key is read-only: it may only read (GET)');
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
