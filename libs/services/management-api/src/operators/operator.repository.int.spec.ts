import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { databaseTargets } from '@herald/testing';
import { openManagementDatabase } from '../testing/repository-database';
import { OperatorRepository } from './operator.repository';

describe.each(databaseTargets())('the operator repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let now = new Date('2026-03-01T10:00:00Z');
  let operators: OperatorRepository;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    db = opened.db;
    dispose = opened.close;
    operators = new OperatorRepository(db, { now: () => now });
  });
  afterAll(async () => {
    await dispose?.();
  });

  async function newAccount(): Promise<string> {
    const id = randomUUID();
    await db.query(`INSERT INTO management.accounts (id, name) VALUES ($1, 'test')`, [id]);
    return id;
  }
  const hash = (): Buffer => randomBytes(32);

  it('invites once per address, lets one of two concurrent acceptances win, and never accepts an expired invitation', async () => {
    const account = await newAccount();
    const token = hash();
    const { operator } = await operators.invite(account, 'Ana@example.com', 'editor', token, new Date(now.getTime() + 60_000));
    await expect(operators.invite(await newAccount(), 'ana@example.com', 'viewer', hash(), new Date(now.getTime() + 60_000))).rejects.toThrow('already an operator');

    const accepted = await Promise.all([operators.acceptInvitation(token, 'Ana', 'scrypt$x'), operators.acceptInvitation(token, 'Ana', 'scrypt$y')]);
    expect(accepted.filter((result) => result !== null)).toEqual([expect.objectContaining({ id: operator.id, status: 'active', name: 'Ana' })]);

    const late = hash();
    await operators.invite(account, 'late@example.com', 'viewer', late, new Date(now.getTime() + 1_000));
    now = new Date(now.getTime() + 2_000);
    expect(await operators.findInvited(late)).toBeNull();
    expect(await operators.acceptInvitation(late, 'Late', 'scrypt$z')).toBeNull();
    // A new invitation of the same address replaces the old one.
    const again = hash();
    await operators.invite(account, 'late@example.com', 'editor', again, new Date(now.getTime() + 60_000));
    expect(await operators.findInvited(again)).toMatchObject({ email: 'late@example.com', role: 'editor' });
  });

  it('keeps the last owner under concurrent demotions, and ends a removed operator\'s sessions', async () => {
    const account = await newAccount();
    expect(await operators.createFirstOwner(account, 'first@example.com', 'First', 'scrypt$a')).toBe(true);
    expect(await operators.createFirstOwner(account, 'second@example.com', 'Second', 'scrypt$b')).toBe(false);
    const second = hash();
    const { operator: other } = await operators.invite(account, 'second@example.com', 'owner', second, new Date(now.getTime() + 60_000));
    await operators.acceptInvitation(second, 'Second', 'scrypt$b');
    const first = (await operators.findByEmail('first@example.com'))!;

    const outcomes = await Promise.allSettled([operators.changeRole(account, first.id, 'viewer'), operators.changeRole(account, other.id, 'viewer')]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await db.query(`SELECT count(*)::int AS owners FROM management.operators WHERE account_id = $1 AND role = 'owner'`, [account])).toEqual([{ owners: 1 }]);

    const demoted = first.id === (await operators.list(account, { limit: 10, offset: 0 })).operators.find((o) => o.role === 'viewer')!.id ? first : other;
    const sessionToken = hash();
    const session = await operators.createSession(demoted.id, sessionToken, 'password', new Date(now.getTime() + 60_000));
    await operators.addConsoleApiKey(session.id, { id: randomUUID(), workspaceId: randomUUID(), workspaceSlug: 'staging' });
    expect((await operators.liveSession(sessionToken))?.operator.id).toBe(demoted.id);
    const removed = await operators.remove(account, demoted.id);
    expect(removed?.consoleApiKeys).toHaveLength(1);
    expect(await operators.liveSession(sessionToken)).toBeNull();
    expect(await operators.revokeSession(session.id)).toEqual([]);
  });

  it("resets an active operator's password with the newest unexpired link once, ending its sessions; never across accounts", async () => {
    const account = await newAccount();
    expect(await operators.createFirstOwner(account, 'reset@example.com', 'Reset', 'scrypt$old')).toBe(true);
    const operator = (await operators.findByEmail('reset@example.com'))!;
    expect(await operators.issuePasswordReset(await newAccount(), operator.id, hash(), new Date(now.getTime() + 60_000))).toBeUndefined();
    const older = hash();
    const link = hash();
    await operators.issuePasswordReset(account, operator.id, older, new Date(now.getTime() + 60_000));
    expect(await operators.issuePasswordReset(account, operator.id, link, new Date(now.getTime() + 60_000))).toMatchObject({ id: operator.id });
    expect(await operators.findByPasswordReset(older)).toBeNull();
    expect(await operators.findByPasswordReset(link)).toMatchObject({ id: operator.id });

    const sessionToken = hash();
    const session = await operators.createSession(operator.id, sessionToken, 'password', new Date(now.getTime() + 60_000));
    await operators.addConsoleApiKey(session.id, { id: randomUUID(), workspaceId: randomUUID(), workspaceSlug: 'staging' });
    const uses = await Promise.all([operators.resetPassword(link, 'scrypt$new'), operators.resetPassword(link, 'scrypt$other')]);
    const winner = uses.find((use) => use !== null)!;
    expect(uses.filter((use) => use !== null)).toHaveLength(1);
    expect(winner.consoleApiKeys).toHaveLength(1);
    expect((await operators.findByEmail('reset@example.com'))?.passwordHash).toBe(winner.operator.passwordHash);
    expect(await operators.liveSession(sessionToken)).toBeNull();

    const late = hash();
    await operators.issuePasswordReset(account, operator.id, late, new Date(now.getTime() + 1_000));
    now = new Date(now.getTime() + 2_000);
    expect(await operators.resetPassword(late, 'scrypt$late')).toBeNull();
  });
});
