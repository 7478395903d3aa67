import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SuppressionChanged } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { openDispatchDatabase } from '../testing/repository-database';
import { SuppressionRepository } from './suppression.repository';

describe.each(databaseTargets())('the suppression repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let entries: SuppressionRepository;

  beforeAll(async () => {
    const opened = await openDispatchDatabase(target);
    db = opened.db;
    dispose = opened.close;
    entries = new SuppressionRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const change = (workspaceId: string, address: string, fields: Partial<SuppressionChanged> = {}): SuppressionChanged => ({
    change: 'added',
    workspace_id: workspaceId,
    channel: 'email',
    address,
    reason: 'hard_bounce',
    detail: '550 no such user',
    vendor: 'email/postmark',
    at: '2026-03-01T10:00:00.000Z',
    ...fields,
  });

  it('adds an address once, keeping when it was first listed while its reason changes, and removes it', async () => {
    const workspace = randomUUID();
    await entries.apply(change(workspace, 'ada@example.com'));
    await entries.apply(change(workspace, 'ada@example.com', { reason: 'complaint', detail: undefined, vendor: 'email/sendgrid', at: '2026-03-02T10:00:00.000Z' }));
    expect(await entries.among(workspace, 'email', ['ada@example.com', 'bob@example.com'])).toEqual([
      { workspaceId: workspace, channel: 'email', address: 'ada@example.com', reason: 'complaint', detail: null, vendor: 'email/sendgrid', createdAt: new Date('2026-03-01T10:00:00.000Z') },
    ]);
    await entries.apply(change(workspace, 'ada@example.com', { change: 'removed' }));
    await entries.apply(change(workspace, 'ada@example.com', { change: 'removed' }));
    expect(await entries.among(workspace, 'email', ['ada@example.com'])).toEqual([]);
  });

  it("lists a workspace channel's entries up to a limit, never another workspace's or channel's", async () => {
    const workspace = randomUUID();
    for (const address of ['a@example.com', 'b@example.com', 'c@example.com']) await entries.apply(change(workspace, address));
    await entries.apply(change(workspace, '+15550001', { channel: 'sms' }));
    await entries.apply(change(randomUUID(), 'a@example.com'));
    expect((await entries.listOf(workspace, 'email', 10)).map((entry) => entry.address).sort()).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    expect(await entries.listOf(workspace, 'email', 2)).toHaveLength(2);
    expect((await entries.listOf(workspace, 'sms', 10)).map((entry) => entry.address)).toEqual(['+15550001']);
    expect(await entries.among(workspace, 'email', [])).toEqual([]);
  });

  it("writes in the caller's transaction: rolled back with it", async () => {
    const workspace = randomUUID();
    await expect(
      db.transaction(async (tx) => {
        await entries.apply(change(workspace, 'undone@example.com'), tx);
        expect(await tx.query(`SELECT address FROM dispatch.suppressions WHERE workspace_id = $1`, [workspace])).toEqual([{ address: 'undone@example.com' }]);
        throw new Error('the callback failed after it');
      }),
    ).rejects.toThrow('the callback failed after it');
    expect(await entries.among(workspace, 'email', ['undone@example.com'])).toEqual([]);
  });
});
