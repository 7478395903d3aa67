import { Inject, Injectable } from '@nestjs/common';
import { HeraldError } from '@herald/contracts';
import { AuthFailureLimiter, CLOCK, Clock, HERALD_LOGGER, HeraldLogger, generateCredential, hashToken } from '@herald/runtime';
import { ApiKeyRepository } from '../api-keys/api-key.repository';
import { ConsoleApiKey, Operator, OperatorRepository, OperatorSession } from './operator.repository';
import { hashPassword, passwordProblems, verifyPassword } from './passwords';

/** A console session lasts a working day; signing in again starts a new one. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** An invitation link works for a week, once. */
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** A password reset link works for a day, once: it is a way in for whoever holds it. */
export const PASSWORD_RESET_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface StartedSession {
  /** The session token (the cookie's value): shown to no one else, stored hashed. */
  readonly token: string;
  readonly session: OperatorSession;
  readonly operator: Operator;
}

/**
 * Signing operators in and out: passwords checked against their scrypt hash (an unknown
 * address costs as much as a wrong password), failures counted by `AuthFailureLimiter`
 * per address and per email, sessions started and ended (with the API keys the console
 * minted for them).
 */
@Injectable()
export class OperatorSessions {
  constructor(
    private readonly operators: OperatorRepository,
    private readonly apiKeys: ApiKeyRepository,
    private readonly failures: AuthFailureLimiter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async signInWithPassword(email: string, password: string, address: string): Promise<StartedSession> {
    const credential = `operator:${email.trim().toLowerCase()}`;
    this.failures.refuseIfLimited(address, credential);
    const operator = await this.operators.findByEmail(email.trim());
    const matches = await verifyPassword(password, operator?.status === 'active' ? operator.passwordHash : null);
    if (!operator || !matches) {
      this.failures.recordFailure(address, credential);
      // One answer for an unknown address and a wrong password: nothing tells which addresses exist.
      throw new HeraldError('authentication_failed', 'wrong email or password');
    }
    return this.start(operator, 'password');
  }

  /** Accepts an invitation: the operator becomes active with this name and password, and is signed in. */
  async acceptInvitation(token: string, name: string, password: string, address: string): Promise<StartedSession> {
    this.failures.refuseIfLimited(address, token);
    const invited = await this.operators.findInvited(hashToken(token));
    if (!invited) {
      this.failures.recordFailure(address, token);
      throw new HeraldError('not_found', 'this invitation is unknown, used or expired: ask an owner for a new one');
    }
    const problems = passwordProblems(password, invited.email);
    if (problems.length > 0) throw HeraldError.validation(problems);
    const operator = await this.operators.acceptInvitation(hashToken(token), name.trim(), await hashPassword(password));
    // Accepted by a concurrent request first.
    if (!operator) throw new HeraldError('not_found', 'this invitation is unknown, used or expired: ask an owner for a new one');
    return this.start(operator, 'password');
  }

  /**
   * Uses a password reset link: the password rules apply, every session of the operator
   * ends (with the console's API keys of them), and this browser is signed in anew.
   */
  async resetPassword(token: string, password: string, address: string): Promise<StartedSession> {
    const unknown = () => new HeraldError('not_found', 'this password reset link is unknown, used or expired: ask an owner for a new one');
    this.failures.refuseIfLimited(address, token);
    const holder = await this.operators.findByPasswordReset(hashToken(token));
    if (!holder) {
      this.failures.recordFailure(address, token);
      throw unknown();
    }
    const problems = passwordProblems(password, holder.email);
    if (problems.length > 0) throw HeraldError.validation(problems);
    const reset = await this.operators.resetPassword(hashToken(token), await hashPassword(password));
    // Used by a concurrent request first.
    if (!reset) throw unknown();
    await this.deleteConsoleApiKeys(reset.consoleApiKeys);
    return this.start(reset.operator, 'password');
  }

  async start(operator: Operator, method: OperatorSession['method']): Promise<StartedSession> {
    const token = generateCredential('hos');
    const session = await this.operators.createSession(operator.id, hashToken(token), method, new Date(this.clock.now().getTime() + SESSION_LIFETIME_MS));
    return { token, session, operator };
  }

  /** The live session of a cookie's token, with its operator; null when it has ended. */
  async live(token: string): Promise<{ session: OperatorSession; operator: Operator } | null> {
    return this.operators.liveSession(hashToken(token));
  }

  /** Ends the session and deletes the API keys the console minted for it. */
  async signOut(sessionId: string): Promise<void> {
    await this.deleteConsoleApiKeys(await this.operators.revokeSession(sessionId));
  }

  /** Deletes keys minted for sessions that ended (sign-out, an operator removed); a key already gone is fine. */
  async deleteConsoleApiKeys(keys: readonly ConsoleApiKey[]): Promise<void> {
    for (const key of keys) {
      try {
        await this.apiKeys.remove({ id: key.workspaceId, slug: key.workspaceSlug }, key.id);
      } catch (error) {
        // The key expires with the session anyway: a failure here is logged, not the sign-out's.
        this.logger.warn('could not delete a console session API key; it expires with the session', {
          component: 'operator-sessions',
          api_key_id: key.id,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
}
