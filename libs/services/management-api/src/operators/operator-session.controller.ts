import { Controller, Delete, Get, HttpCode, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HeraldError } from '@herald/contracts';
import { ValidBody } from '@herald/runtime';
import { AuditLogRepository } from '../audit/audit-log.repository';
import { CONSOLE_HEADER, SESSION_COOKIE, readCookie, setCookie } from '../auth/console-session-cookie';
import { PublicRoute } from '../auth/roles';
import { ManagementRequest, ServiceTokenGuard } from '../auth/service-token.guard';
import { OIDC_CALLBACK_PATH, OIDC_STATE_COOKIE, OidcSignIn } from './oidc/oidc-sign-in';
import { LOGIN_LIFETIME_MS } from './oidc/oidc-client';
import { InvitationAccept, OPERATOR_BODIES, OperatorSignIn, PasswordResetUse } from './request-bodies';
import { OperatorSessions, StartedSession } from './operator-sessions';
import { Operator } from './operator.repository';
import { OperatorView, operatorView } from './operators.controller';

export interface SessionView {
  readonly operator: OperatorView | null;
  readonly expires_at: Date | null;
  /** Signing in through the identity provider is offered (HERALD_OIDC_ISSUER is set). */
  readonly sso: boolean;
}

/**
 * `/v1/operator_session/`: the console's sign-in. Each route authenticates by its own
 * means (a password, an invitation, the identity provider, the session cookie), so each
 * is public to the guard. The session is an HttpOnly cookie (console-session-cookie.ts
 * says why); the answers never carry its value.
 */
@Controller('v1/operator_session')
@UseGuards(ServiceTokenGuard)
export class OperatorSessionController {
  constructor(
    private readonly sessions: OperatorSessions,
    private readonly oidc: OidcSignIn,
    private readonly audit: AuditLogRepository,
  ) {}

  /** Who this browser is signed in as; `operator: null` (not a 401) when no one, so a console loading logs no error. */
  @PublicRoute()
  @Get()
  async current(@Req() request: ManagementRequest): Promise<SessionView> {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    const live = token !== undefined && request.headers[CONSOLE_HEADER] === '1' ? await this.sessions.live(token) : null;
    return { operator: live ? operatorView(live.operator) : null, expires_at: live?.session.expiresAt ?? null, sso: this.oidc.configured };
  }

  @PublicRoute()
  @Post()
  @HttpCode(201)
  async signIn(@Req() request: ManagementRequest, @ValidBody(OPERATOR_BODIES.signIn) body: OperatorSignIn, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionView> {
    return this.started(request, reply, await this.sessions.signInWithPassword(body.email, body.password, request.ip));
  }

  /** Signs out: the session ends on the server (its cookie stops working wherever it is) and the cookie is cleared. */
  @PublicRoute()
  @Delete()
  @HttpCode(204)
  async signOut(@Req() request: ManagementRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    // The header proves the console asked (another site cannot sign the operator out).
    if (token !== undefined && request.headers[CONSOLE_HEADER] === '1') {
      const live = await this.sessions.live(token);
      if (live) await this.sessions.signOut(live.session.id);
    }
    void reply.header('set-cookie', setCookie(SESSION_COOKIE, '', { maxAgeSeconds: 0, secure: request.protocol === 'https' }));
  }

  /** Accepts an invitation: the name and password are set (the rules apply) and the operator is signed in. */
  @PublicRoute()
  @Post('invitation')
  @HttpCode(201)
  async acceptInvitation(@Req() request: ManagementRequest, @ValidBody(OPERATOR_BODIES.invitationAccept) body: InvitationAccept, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionView> {
    const started = await this.sessions.acceptInvitation(body.token, body.name, body.password, request.ip);
    const { operator } = started;
    await this.recordOwnChange(request, operator, 'invitation', { status: 'invited' }, operatorView(operator));
    return this.started(request, reply, started);
  }

  /** Uses a password reset link: the new password is set (the rules apply), every other session ends, and this browser is signed in. */
  @PublicRoute()
  @Post('password_reset')
  @HttpCode(201)
  async resetPassword(@Req() request: ManagementRequest, @ValidBody(OPERATOR_BODIES.passwordResetUse) body: PasswordResetUse, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionView> {
    const started = await this.sessions.resetPassword(body.token, body.password, request.ip);
    const { operator } = started;
    // The password is never recorded.
    await this.recordOwnChange(request, operator, 'password_reset', null, { operator: operatorView(operator), password: 'changed', other_sessions: 'ended' });
    return this.started(request, reply, started);
  }

  /**
   * An operator's change to itself through a public route, which the audit interceptor does
   * not see (it records authenticated requests): the operator is its own actor.
   */
  private async recordOwnChange(request: ManagementRequest, operator: Operator, route: 'invitation' | 'password_reset', before: object | null, after: object): Promise<void> {
    await this.audit.append({
      accountId: operator.accountId,
      workspaceSlug: null,
      actor: { kind: 'operator', id: operator.id, name: operator.email },
      method: 'POST',
      route: `/v1/operator_session/${route}`,
      path: request.url.split('?')[0],
      resourceType: 'operator',
      resourceIds: { id: operator.id },
      statusCode: 201,
      before,
      after,
    });
  }

  /** Starts a sign-in with the identity provider: a redirect to it (the console links here). */
  @PublicRoute()
  @Get('oidc/start')
  async oidcStart(@Req() request: ManagementRequest, @Res() reply: FastifyReply): Promise<void> {
    const { url, sealedState } = await this.oidc.begin(`${request.protocol}://${request.host}${OIDC_CALLBACK_PATH}`);
    void reply
      .header('set-cookie', setCookie(OIDC_STATE_COOKIE, sealedState, { maxAgeSeconds: LOGIN_LIFETIME_MS / 1000, secure: request.protocol === 'https', path: '/v1/operator_session/oidc/' }))
      .header('cache-control', 'no-store')
      .redirect(url, 302);
  }

  /** The identity provider's redirect back: a session, then the console; a refusal goes to the console's sign-in page with its reason. */
  @PublicRoute()
  @Get('oidc/callback')
  async oidcCallback(
    @Req() request: ManagementRequest,
    @Res() reply: FastifyReply,
    @Query('state') state?: string,
    @Query('code') code?: string,
    @Query('error') error?: string,
    @Query('error_description') errorDescription?: string,
  ): Promise<void> {
    const secure = request.protocol === 'https';
    const cookies = [setCookie(OIDC_STATE_COOKIE, '', { maxAgeSeconds: 0, secure, path: '/v1/operator_session/oidc/' })];
    let target = '/console/';
    try {
      if (error) throw new HeraldError('authentication_failed', `SSO: the identity provider refused: ${errorDescription ?? error}`);
      const started = await this.oidc.complete(readCookie(request.headers.cookie, OIDC_STATE_COOKIE), state, code);
      cookies.push(this.sessionCookie(started, secure));
    } catch (caught) {
      if (!(caught instanceof HeraldError)) throw caught;
      target = `/console/?sso_error=${encodeURIComponent(caught.message)}`;
    }
    void reply.header('set-cookie', cookies).header('cache-control', 'no-store').redirect(target, 302);
  }

  private started(request: ManagementRequest, reply: FastifyReply, started: StartedSession): SessionView {
    void reply.header('set-cookie', this.sessionCookie(started, request.protocol === 'https'));
    return { operator: operatorView(started.operator), expires_at: started.session.expiresAt, sso: this.oidc.configured };
  }

  private sessionCookie(started: StartedSession, secure: boolean): string {
    return setCookie(SESSION_COOKIE, started.token, { maxAgeSeconds: (started.session.expiresAt.getTime() - Date.now()) / 1000, secure });
  }
}
