import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, EntitySchema, In, IsNull, MoreThan, Not, Repository } from 'typeorm';
import { HeraldError } from '@herald/contracts';
import { CLOCK, Clock } from '@herald/runtime';
import { OffsetPage } from '../http/offset-page';
import { OperatorRole } from '../auth/roles';

export type OperatorStatus = 'invited' | 'active' | 'removed';

/** A named person of an account who signs in to the console. */
export interface Operator {
  id: string;
  accountId: string;
  email: string;
  name: string;
  /** scrypt (passwords.ts); null until an invitation is accepted, and for operators who only use SSO. */
  passwordHash: string | null;
  role: OperatorRole;
  status: OperatorStatus;
  createdAt: Date;
  updatedAt: Date;
  lastSignInAt: Date | null;
}

/** A single-use link (an invitation, or a password reset): its token's hash only. */
export interface OperatorInvitation {
  id: string;
  operatorId: string;
  purpose: 'invitation' | 'password_reset';
  tokenHash: Buffer;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

/** An API key the console minted for a session, deleted when the session ends. */
export interface ConsoleApiKey {
  id: string;
  workspaceId: string;
  workspaceSlug: string;
}

/** A console session: its token's hash only. */
export interface OperatorSession {
  id: string;
  operatorId: string;
  tokenHash: Buffer;
  method: 'password' | 'oidc';
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  consoleApiKeys: ConsoleApiKey[];
}

/** `management.operators` (created by the migrations, never by TypeORM). */
export const OperatorEntity = new EntitySchema<Operator>({
  name: 'Operator',
  schema: 'management',
  tableName: 'operators',
  columns: {
    id: { type: 'uuid', primary: true },
    accountId: { name: 'account_id', type: 'uuid' },
    email: { type: 'text' },
    name: { type: 'text' },
    passwordHash: { name: 'password_hash', type: 'text', nullable: true },
    role: { type: 'text' },
    status: { type: 'text' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
    lastSignInAt: { name: 'last_sign_in_at', type: 'timestamptz', nullable: true },
  },
});

export const OperatorInvitationEntity = new EntitySchema<OperatorInvitation>({
  name: 'OperatorInvitation',
  schema: 'management',
  tableName: 'operator_invitations',
  columns: {
    id: { type: 'uuid', primary: true },
    operatorId: { name: 'operator_id', type: 'uuid' },
    purpose: { type: 'text' },
    tokenHash: { name: 'token_hash', type: 'bytea' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
    expiresAt: { name: 'expires_at', type: 'timestamptz' },
    usedAt: { name: 'used_at', type: 'timestamptz', nullable: true },
  },
});

export const OperatorSessionEntity = new EntitySchema<OperatorSession>({
  name: 'OperatorSession',
  schema: 'management',
  tableName: 'operator_sessions',
  columns: {
    id: { type: 'uuid', primary: true },
    operatorId: { name: 'operator_id', type: 'uuid' },
    tokenHash: { name: 'token_hash', type: 'bytea' },
    method: { type: 'text' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
    expiresAt: { name: 'expires_at', type: 'timestamptz' },
    revokedAt: { name: 'revoked_at', type: 'timestamptz', nullable: true },
    consoleApiKeys: { name: 'console_api_keys', type: 'jsonb' },
  },
});

export const OPERATOR_ENTITIES = [OperatorEntity, OperatorInvitationEntity, OperatorSessionEntity];

const LIVE: OperatorStatus[] = ['invited', 'active'];

/** Operators, invitations and console sessions of accounts. */
@Injectable()
export class OperatorRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** A page of the account's operators (invited and active), oldest first, and how many in all. */
  async list(accountId: string, page: OffsetPage): Promise<{ count: number; operators: Operator[] }> {
    const [operators, count] = await this.operators().findAndCount({
      where: { accountId, status: In(LIVE) },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { count, operators };
  }

  async find(accountId: string, id: string): Promise<Operator | null> {
    return this.operators().findOne({ where: { id, accountId, status: In(LIVE) } });
  }

  /** The operator (invited or active, of any account) an address belongs to. */
  async findByEmail(email: string): Promise<Operator | null> {
    const [row] = await this.operators()
      .createQueryBuilder('o')
      .where('lower(o.email) = lower(:email)', { email })
      .andWhere('o.status IN (:...live)', { live: LIVE })
      .getMany();
    return row ?? null;
  }

  /** How many operators the account has (any status but removed). */
  async count(accountId: string): Promise<number> {
    return this.operators().count({ where: { accountId, status: In(LIVE) } });
  }

  /**
   * Invites `email` as `role`: a new operator waiting for its invitation to be accepted, or
   * (an address already invited to this account) a fresh invitation replacing the earlier
   * ones, with the role given now. An address that already signs in is a conflict.
   */
  async invite(accountId: string, email: string, role: OperatorRole, tokenHash: Buffer, expiresAt: Date): Promise<{ before: Operator | null; operator: Operator }> {
    try {
      return await this.db.transaction(async (tx) => {
        const existing = await this.operators(tx)
          .createQueryBuilder('o')
          .setLock('pessimistic_write')
          .where('lower(o.email) = lower(:email)', { email })
          .andWhere('o.status IN (:...live)', { live: LIVE })
          .getOne();
        if (existing && (existing.accountId !== accountId || existing.status === 'active')) {
          throw new HeraldError('conflict', `${email} is already an operator`, [{ path: 'email', message: 'is already an operator' }]);
        }
        const now = this.clock.now();
        let operator: Operator;
        if (existing) {
          operator = { ...existing, role, updatedAt: now };
          await this.operators(tx).update({ id: existing.id }, { role, updatedAt: now });
          await this.invitations(tx).update({ operatorId: existing.id, usedAt: IsNull() }, { usedAt: now });
        } else {
          operator = this.operators(tx).create({ id: randomUUID(), accountId, email, name: '', passwordHash: null, role, status: 'invited', updatedAt: now, lastSignInAt: null });
          await this.operators(tx).insert(operator);
        }
        await this.invitations(tx).insert({ id: randomUUID(), operatorId: operator.id, purpose: 'invitation', tokenHash, expiresAt, usedAt: null });
        return { before: existing, operator };
      });
    } catch (error) {
      // Two invitations of one address at once: the unique index lets one through.
      if (isUniqueViolation(error)) throw new HeraldError('conflict', `${email} is already an operator`, [{ path: 'email', message: 'is already an operator' }]);
      throw error;
    }
  }

  /** The invited operator a live (unused, unexpired) invitation token belongs to, or null. */
  async findInvited(tokenHash: Buffer): Promise<Operator | null> {
    const invitation = await this.invitations().findOne({ where: { tokenHash, purpose: 'invitation', usedAt: IsNull(), expiresAt: MoreThan(this.clock.now()) } });
    return invitation ? this.operators().findOne({ where: { id: invitation.operatorId, status: 'invited' } }) : null;
  }

  /**
   * Uses a live invitation: its operator becomes active with this name and password hash.
   * Null when the token is unknown, used, expired, or its operator was removed.
   */
  async acceptInvitation(tokenHash: Buffer, name: string, passwordHash: string): Promise<Operator | null> {
    return this.db.transaction(async (tx) => {
      const now = this.clock.now();
      // Locked, so of two acceptances of one invitation only one finds it unused.
      const invitation = await this.invitations(tx).findOne({ where: { tokenHash, purpose: 'invitation', usedAt: IsNull(), expiresAt: MoreThan(now) }, lock: { mode: 'pessimistic_write' } });
      if (!invitation) return null;
      const operator = await this.operators(tx).findOne({ where: { id: invitation.operatorId, status: 'invited' } });
      if (!operator) return null;
      await this.invitations(tx).update({ id: invitation.id }, { usedAt: now });
      const accepted: Operator = { ...operator, name, passwordHash, status: 'active', updatedAt: now };
      await this.operators(tx).update({ id: operator.id }, { name, passwordHash, status: 'active', updatedAt: now });
      return accepted;
    });
  }

  /**
   * A password reset link for an active operator of the account: earlier unused links of
   * the operator stop working. Undefined when the account has no such active operator
   * (an invited one accepts its invitation instead).
   */
  async issuePasswordReset(accountId: string, id: string, tokenHash: Buffer, expiresAt: Date): Promise<Operator | undefined> {
    return this.db.transaction(async (tx) => {
      const operator = await this.lockedOperator(tx, accountId, id);
      if (!operator || operator.status !== 'active') return undefined;
      await this.invitations(tx).update({ operatorId: id, purpose: 'password_reset', usedAt: IsNull() }, { usedAt: this.clock.now() });
      await this.invitations(tx).insert({ id: randomUUID(), operatorId: id, purpose: 'password_reset', tokenHash, expiresAt, usedAt: null });
      return operator;
    });
  }

  /** The active operator a live (unused, unexpired) password reset token belongs to, or null. */
  async findByPasswordReset(tokenHash: Buffer): Promise<Operator | null> {
    const link = await this.invitations().findOne({ where: { tokenHash, purpose: 'password_reset', usedAt: IsNull(), expiresAt: MoreThan(this.clock.now()) } });
    return link ? this.operators().findOne({ where: { id: link.operatorId, status: 'active' } }) : null;
  }

  /**
   * Uses a live reset link: the operator's password becomes this hash and every session of
   * the operator ends (answering the API keys the console minted for them, to delete).
   * Null when the token is unknown, used, expired, or its operator is no longer active.
   */
  async resetPassword(tokenHash: Buffer, passwordHash: string): Promise<{ operator: Operator; consoleApiKeys: ConsoleApiKey[] } | null> {
    return this.db.transaction(async (tx) => {
      const now = this.clock.now();
      // Locked, so of two uses of one link only one finds it unused.
      const link = await this.invitations(tx).findOne({ where: { tokenHash, purpose: 'password_reset', usedAt: IsNull(), expiresAt: MoreThan(now) }, lock: { mode: 'pessimistic_write' } });
      if (!link) return null;
      const operator = await this.operators(tx).findOne({ where: { id: link.operatorId, status: 'active' } });
      if (!operator) return null;
      await this.invitations(tx).update({ id: link.id }, { usedAt: now });
      await this.operators(tx).update({ id: operator.id }, { passwordHash, updatedAt: now });
      const sessions = await this.sessions(tx).find({ where: { operatorId: operator.id, revokedAt: IsNull() } });
      await this.sessions(tx).update({ operatorId: operator.id, revokedAt: IsNull() }, { revokedAt: now });
      return { operator: { ...operator, passwordHash, updatedAt: now }, consoleApiKeys: sessions.flatMap((session) => session.consoleApiKeys) };
    });
  }

  /** An invited operator who signs in through the identity provider: active from now on, its invitations spent. */
  async activate(operatorId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      await this.operators(tx).update({ id: operatorId, status: 'invited' }, { status: 'active', updatedAt: now });
      await this.invitations(tx).update({ operatorId, usedAt: IsNull() }, { usedAt: now });
    });
  }

  /**
   * The operator's role becomes `role`; undefined when the account has no such operator.
   * The last active owner keeps the role: an account always has someone to manage it.
   */
  async changeRole(accountId: string, id: string, role: OperatorRole): Promise<{ before: Operator; after: Operator } | undefined> {
    return this.db.transaction(async (tx) => {
      const before = await this.lockedOperator(tx, accountId, id);
      if (!before) return undefined;
      if (before.role === 'owner' && role !== 'owner' && before.status === 'active') await this.refuseLastOwner(tx, accountId, 'change the role of');
      const now = this.clock.now();
      await this.operators(tx).update({ id }, { role, updatedAt: now });
      return { before, after: { ...before, role, updatedAt: now } };
    });
  }

  /** Removes the operator: its sessions end and its invitations stop working. Undefined when there is no such operator. */
  async remove(accountId: string, id: string): Promise<{ before: Operator; consoleApiKeys: ConsoleApiKey[] } | undefined> {
    return this.db.transaction(async (tx) => {
      const before = await this.lockedOperator(tx, accountId, id);
      if (!before) return undefined;
      if (before.role === 'owner' && before.status === 'active') await this.refuseLastOwner(tx, accountId, 'remove');
      const now = this.clock.now();
      await this.operators(tx).update({ id }, { status: 'removed', updatedAt: now });
      await this.invitations(tx).update({ operatorId: id, usedAt: IsNull() }, { usedAt: now });
      const sessions = await this.sessions(tx).find({ where: { operatorId: id, revokedAt: IsNull() } });
      await this.sessions(tx).update({ operatorId: id, revokedAt: IsNull() }, { revokedAt: now });
      return { before, consoleApiKeys: sessions.flatMap((session) => session.consoleApiKeys) };
    });
  }

  /** The first owner, from the environment, when the account has no operator yet; false when it has. */
  async createFirstOwner(accountId: string, email: string, name: string, passwordHash: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await tx.getRepository(OperatorEntity).query(`SELECT pg_advisory_xact_lock(hashtext('herald:bootstrap-operator'))`);
      if ((await this.operators(tx).count({ where: { accountId, status: Not('removed') } })) > 0) return false;
      const now = this.clock.now();
      await this.operators(tx).insert({ id: randomUUID(), accountId, email, name, passwordHash, role: 'owner', status: 'active', updatedAt: now, lastSignInAt: null });
      return true;
    });
  }

  async createSession(operatorId: string, tokenHash: Buffer, method: OperatorSession['method'], expiresAt: Date): Promise<OperatorSession> {
    return this.db.transaction(async (tx) => {
      const session = this.sessions(tx).create({ id: randomUUID(), operatorId, tokenHash, method, expiresAt, revokedAt: null, consoleApiKeys: [] });
      await this.sessions(tx).insert(session);
      await this.operators(tx).update({ id: operatorId }, { lastSignInAt: this.clock.now() });
      return session;
    });
  }

  /** The live session with this token hash (unrevoked, unexpired) and its active operator, or null. */
  async liveSession(tokenHash: Buffer): Promise<{ session: OperatorSession; operator: Operator } | null> {
    const session = await this.sessions().findOne({ where: { tokenHash, revokedAt: IsNull(), expiresAt: MoreThan(this.clock.now()) } });
    if (!session) return null;
    const operator = await this.operators().findOne({ where: { id: session.operatorId, status: 'active' } });
    return operator ? { session, operator } : null;
  }

  async sessionById(id: string): Promise<OperatorSession | null> {
    return this.sessions().findOne({ where: { id } });
  }

  /** Ends the session; answers the API keys the console minted for it (to delete), none when it had already ended. */
  async revokeSession(id: string): Promise<ConsoleApiKey[]> {
    return this.db.transaction(async (tx) => {
      const session = await this.sessions(tx).findOne({ where: { id, revokedAt: IsNull() }, lock: { mode: 'pessimistic_write' } });
      if (!session) return [];
      await this.sessions(tx).update({ id }, { revokedAt: this.clock.now() });
      return session.consoleApiKeys;
    });
  }

  /** Remembers an API key minted for the session, to delete it when the session ends. */
  async addConsoleApiKey(sessionId: string, key: ConsoleApiKey): Promise<void> {
    await this.sessions()
      .createQueryBuilder()
      .update()
      .set({ consoleApiKeys: () => `console_api_keys || :key::jsonb` })
      .where('id = :id', { id: sessionId })
      .setParameter('key', JSON.stringify([key]))
      .execute();
  }

  private async lockedOperator(tx: EntityManager, accountId: string, id: string): Promise<Operator | null> {
    return this.operators(tx).findOne({ where: { id, accountId, status: In(LIVE) }, lock: { mode: 'pessimistic_write' } });
  }

  /** Refuses when the account has one active owner left (the account's row lock orders concurrent demotions). */
  private async refuseLastOwner(tx: EntityManager, accountId: string, action: string): Promise<void> {
    await tx.getRepository(OperatorEntity).query(`SELECT id FROM management.accounts WHERE id = $1 FOR UPDATE`, [accountId]);
    const owners = await this.operators(tx).count({ where: { accountId, role: 'owner', status: 'active' } });
    if (owners <= 1) throw new HeraldError('conflict', `cannot ${action} the last owner: make another operator an owner first`);
  }

  private operators(manager: EntityManager = this.db.manager): Repository<Operator> {
    return manager.getRepository(OperatorEntity);
  }

  private invitations(manager: EntityManager = this.db.manager): Repository<OperatorInvitation> {
    return manager.getRepository(OperatorInvitationEntity);
  }

  private sessions(manager: EntityManager = this.db.manager): Repository<OperatorSession> {
    return manager.getRepository(OperatorSessionEntity);
  }
}

function isUniqueViolation(error: unknown): boolean {
  const driverError = (error as { driverError?: { code?: string }; code?: string }) ?? {};
  return driverError.code === '23505' || driverError.driverError?.code === '23505';
}
