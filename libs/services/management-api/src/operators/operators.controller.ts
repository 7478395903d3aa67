import { Controller, Delete, Get, HttpCode, Inject, Param, ParseUUIDPipe, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { CLOCK, Clock, ValidBody, generateCredential, hashToken } from '@herald/runtime';
import { noteAuditChange } from '../audit/audit.interceptor';
import { RequiredRole } from '../auth/roles';
import { ManagementRequest, ServiceTokenGuard, accountOf } from '../auth/service-token.guard';
import { OffsetList, offsetPage } from '../http/offset-page';
import { OPERATOR_BODIES, OperatorInvite, OperatorRoleChange } from './request-bodies';
import { Operator, OperatorRepository } from './operator.repository';
import { INVITATION_LIFETIME_MS, OperatorSessions, PASSWORD_RESET_LIFETIME_MS } from './operator-sessions';

export interface OperatorView {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: Operator['role'];
  readonly status: Operator['status'];
  /** Signs in with a password (else only through SSO, or not yet). */
  readonly has_password: boolean;
  readonly created_at: Date;
  readonly last_sign_in_at: Date | null;
}

export interface InvitationView {
  /** Shown once: the invited person opens `accept_url` (or posts it to `/v1/operator_session/invitation/`). */
  readonly token: string;
  readonly accept_url: string;
  readonly expires_at: Date;
}

export interface PasswordResetView {
  /** Shown once: the operator opens `reset_url` (or posts the token to `/v1/operator_session/password_reset/`). */
  readonly token: string;
  readonly reset_url: string;
  readonly expires_at: Date;
}

const operatorNotFound = (): HeraldError => HeraldError.notFound('operator not found');

/**
 * `/v1/operator/`: the people of the account. Owners invite (the answer holds the
 * single-use invitation link; Herald sends no mail), change roles and remove; everyone
 * may list. A service token is an owner here too: it invites the first owner of an
 * installation started without HERALD_BOOTSTRAP_OPERATOR_EMAIL.
 */
@Controller('v1/operator')
@UseGuards(ServiceTokenGuard)
export class OperatorsController {
  constructor(
    private readonly operators: OperatorRepository,
    private readonly sessions: OperatorSessions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @RequiredRole('viewer')
  @Get()
  async list(@Req() request: ManagementRequest, @Query('limit') limit?: string, @Query('offset') offset?: string): Promise<OffsetList<OperatorView>> {
    const page = offsetPage(limit, offset);
    const { count, operators } = await this.operators.list(accountOf(request), page);
    return { meta: { count, ...page }, results: operators.map(operatorView) };
  }

  /** Invites an address (again: a fresh link replaces the earlier ones). */
  @RequiredRole('owner')
  @Post()
  @HttpCode(201)
  async invite(@Req() request: ManagementRequest, @ValidBody(OPERATOR_BODIES.invite) body: OperatorInvite): Promise<OperatorView & { invitation: InvitationView }> {
    const token = generateCredential('hoi');
    const expiresAt = new Date(this.clock.now().getTime() + INVITATION_LIFETIME_MS);
    const { before, operator } = await this.operators.invite(accountOf(request), body.email.trim(), body.role, hashToken(token), expiresAt);
    noteAuditChange(request, { before: before ? operatorView(before) : null, after: operatorView(operator), resourceIds: { id: operator.id } });
    const acceptUrl = `${request.protocol}://${request.host}/console/accept-invitation?token=${encodeURIComponent(token)}`;
    return { ...operatorView(operator), invitation: { token, accept_url: acceptUrl, expires_at: expiresAt } };
  }

  @RequiredRole('owner')
  @Patch(':id')
  async changeRole(
    @Req() request: ManagementRequest,
    @Param('id', new ParseUUIDPipe({ exceptionFactory: operatorNotFound })) id: string,
    @ValidBody(OPERATOR_BODIES.roleChange) body: OperatorRoleChange,
  ): Promise<OperatorView> {
    const changed = await this.operators.changeRole(accountOf(request), id, body.role);
    if (!changed) throw operatorNotFound();
    noteAuditChange(request, { before: operatorView(changed.before), after: operatorView(changed.after) });
    return operatorView(changed.after);
  }

  /**
   * A single-use link that sets a new password for an active operator (one who forgot it,
   * or signs in through SSO only and wants a password): Herald sends no mail, the owner
   * hands the link over. Until it is used the old password still works; using it ends
   * every session of the operator. A new link replaces the earlier ones.
   */
  @RequiredRole('owner')
  @Post(':id/password_reset')
  @HttpCode(201)
  async issuePasswordReset(@Req() request: ManagementRequest, @Param('id', new ParseUUIDPipe({ exceptionFactory: operatorNotFound })) id: string): Promise<PasswordResetView> {
    const token = generateCredential('hor');
    const expiresAt = new Date(this.clock.now().getTime() + PASSWORD_RESET_LIFETIME_MS);
    const operator = await this.operators.issuePasswordReset(accountOf(request), id, hashToken(token), expiresAt);
    if (!operator) throw HeraldError.notFound('no active operator with this id: an invited operator accepts its invitation instead');
    // Who was given a way in, and until when; never the token.
    noteAuditChange(request, { before: null, after: { operator: operatorView(operator), password_reset_expires_at: expiresAt }, resourceIds: { id } });
    const resetUrl = `${request.protocol}://${request.host}/console/reset-password?token=${encodeURIComponent(token)}`;
    return { token, reset_url: resetUrl, expires_at: expiresAt };
  }

  /** Removes the operator: signed out everywhere at once, its invitation no longer works. */
  @RequiredRole('owner')
  @Delete(':id')
  @HttpCode(204)
  async remove(@Req() request: ManagementRequest, @Param('id', new ParseUUIDPipe({ exceptionFactory: operatorNotFound })) id: string): Promise<void> {
    const removed = await this.operators.remove(accountOf(request), id);
    if (!removed) throw operatorNotFound();
    await this.sessions.deleteConsoleApiKeys(removed.consoleApiKeys);
    noteAuditChange(request, { before: operatorView(removed.before), after: null });
  }
}

export function operatorView(operator: Operator): OperatorView {
  return {
    id: operator.id,
    email: operator.email,
    name: operator.name,
    role: operator.role,
    status: operator.status,
    has_password: operator.passwordHash !== null,
    created_at: operator.createdAt,
    last_sign_in_at: operator.lastSignInAt,
  };
}
