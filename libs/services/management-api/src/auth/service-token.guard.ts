import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { AuthFailureLimiter, hashToken, presentedCredential } from '@herald/runtime';
import type { AuditActor } from '../audit/audit-log.repository';
import { OperatorRepository } from '../operators/operator.repository';
import { CONSOLE_HEADER, SESSION_COOKIE, readCookie } from './console-session-cookie';
import { OperatorRole, ROUTE_ACCESS, RouteAccess, roleAllows } from './roles';
import { ServiceTokenRepository } from './service-token.repository';

export interface AuthenticatedAccount {
  readonly accountId: string;
  /** What the caller may do: an operator's role; a service token is an owner. */
  readonly role: OperatorRole;
  /** Who the audit log names. */
  readonly actor: AuditActor;
  /** A console session's id (signed in with a password or SSO), absent for a service token. */
  readonly sessionId?: string;
}

export type ManagementRequest = FastifyRequest & { account?: AuthenticatedAccount };

/**
 * Every management route declares the least role it needs (`@RequiredRole`, or
 * `@PublicRoute`); this guard authenticates the caller and refuses a role below it (403),
 * and refuses a route that declares nothing. Two credentials: `Authorization:
 * ServiceToken <token>` (automation; acts as an owner), or an operator's console session
 * cookie with `X-Herald-Console: 1`. Either selects the account and nothing else is
 * reachable. Failures count against the limits per address and per credential: past them, 429.
 */
@Injectable()
export class ServiceTokenGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: ServiceTokenRepository,
    private readonly operators: OperatorRepository,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.get<RouteAccess | undefined>(ROUTE_ACCESS, context.getHandler());
    // Fail closed: a route added without a role is refused to everyone, not open to everyone.
    if (access === undefined) throw new HeraldError('permission_denied', 'this route declares no required role');
    if (access === 'public') return true;
    const request = context.switchToHttp().getRequest<ManagementRequest>();
    const account = await this.authenticate(request);
    request.account = account;
    if (!roleAllows(account.role, access)) {
      throw new HeraldError('permission_denied', `this needs the ${access} role (or higher); ${account.actor.name} is ${account.role === 'editor' ? 'an' : 'a'} ${account.role}`);
    }
    return true;
  }

  private async authenticate(request: ManagementRequest): Promise<AuthenticatedAccount> {
    const cookie = readCookie(request.headers.cookie, SESSION_COOKIE);
    // A service token wins over a cookie: automation never depends on a browser's state.
    if (request.headers.authorization === undefined && cookie !== undefined) return this.authenticateSession(request, cookie);
    const credential = presentedCredential(request.headers.authorization);
    this.failures.refuseIfLimited(request.ip, credential);
    const refuse = (message: string): HeraldError => {
      this.failures.recordFailure(request.ip, credential);
      return new HeraldError('authentication_failed', message);
    };
    const match = /^ServiceToken\s+(\S+)$/.exec(request.headers.authorization ?? '');
    if (!match) throw refuse('missing or malformed ServiceToken authorization');
    const token = await this.tokens.liveToken(hashToken(match[1]));
    if (token === null) throw refuse('invalid service token');
    return { accountId: token.accountId, role: 'owner', actor: { kind: 'service_token', id: token.id, name: token.name } };
  }

  private async authenticateSession(request: ManagementRequest, cookie: string): Promise<AuthenticatedAccount> {
    if (request.headers[CONSOLE_HEADER] !== '1') {
      throw new HeraldError('authentication_failed', `a console session needs the ${CONSOLE_HEADER} header (other clients use a service token)`);
    }
    this.failures.refuseIfLimited(request.ip, cookie);
    const live = await this.operators.liveSession(hashToken(cookie));
    if (live === null) {
      this.failures.recordFailure(request.ip, cookie);
      throw new HeraldError('authentication_failed', 'the console session has ended: sign in again');
    }
    const { operator, session } = live;
    return { accountId: operator.accountId, role: operator.role, actor: { kind: 'operator', id: operator.id, name: operator.email }, sessionId: session.id };
  }
}

/** The account a guarded request authenticated as. */
export function accountOf(request: ManagementRequest): string {
  return authenticated(request).accountId;
}

/** The caller of a guarded request: its account, role and identity. */
export function authenticated(request: ManagementRequest): AuthenticatedAccount {
  if (!request.account) throw new HeraldError('authentication_failed', 'not authenticated');
  return request.account;
}

/** Viewers never see secrets, even where the answer otherwise shows them. */
export function maySeeSecrets(request: ManagementRequest): boolean {
  return authenticated(request).role !== 'viewer';
}
