import { DataSource } from 'typeorm';
import { SuppressionChanged } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { openManagementDatabase } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { SuppressionRepository } from './suppression.repository';

describe.each(databaseTargets())('the suppression repository ($kind)', (target) => {
  let db: DataSource;
  let close: () => Promise<void>;
  let newWorkspace: () => Promise<ScopedWorkspace>;
  let now = new Date('2026-03-01T10:00:00Z');
  let suppressions: SuppressionRepository;

  beforeAll(async () => {
    ({ db, close, newWorkspace } = await openManagementDatabase(target));
    suppressions = new SuppressionRepository(db, { now: () => now });
  });
  afterAll(async () => close?.());

  const tick = (): Date => (now = new Date(now.getTime() + 1_000));
  /** What the outbox announced about the workspace's list, in order. */
  async function announced(workspace: ScopedWorkspace): Promise<SuppressionChanged[]> {
    const rows: Array<{ topic: string; key: string; value: string }> = await db.query(`SELECT topic, key, value FROM ${MANAGEMENT_OUTBOX} WHERE key = $1 ORDER BY id`, [workspace.id]);
    return rows.filter((row) => row.topic === 'notify.suppression.changed.v1').map((row) => (JSON.parse(row.value) as { payload: SuppressionChanged }).payload);
  }
  const page = { limit: 10, offset: 0 };

  it('adds an address and announces it in the same transaction; adding it again keeps when it was first listed and takes the new reason', async () => {
    const workspace = await newWorkspace();
    const first = await suppressions.add(workspace, 'email', 'ada@example.com', 'manual', 'asked us by phone');
    const firstAt = now;
    expect(first).toEqual({ workspaceId: workspace.id, channel: 'email', address: 'ada@example.com', reason: 'manual', detail: 'asked us by phone', vendor: null, createdAt: firstAt });
    tick();
    const again = await suppressions.add(workspace, 'email', 'ada@example.com', 'complaint', null);
    expect(again).toMatchObject({ reason: 'complaint', detail: null, createdAt: firstAt });

    expect(await announced(workspace)).toEqual([
      { workspace_id: workspace.id, channel: 'email', address: 'ada@example.com', change: 'added', reason: 'manual', detail: 'asked us by phone', at: firstAt.toISOString() },
      { workspace_id: workspace.id, channel: 'email', address: 'ada@example.com', change: 'added', reason: 'complaint', at: now.toISOString() },
    ]);
  });

  it('lists a page of one workspace, newest first, by channel and by any of an address\'s forms, with the count of all that match', async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    await suppressions.add(workspace, 'email', 'a@example.com', 'manual', null);
    tick();
    await suppressions.add(workspace, 'sms', '+14155550100', 'manual', null);
    tick();
    await suppressions.add(workspace, 'whatsapp', '+14155550100', 'manual', null);
    await suppressions.add(other, 'email', 'a@example.com', 'manual', null);

    const listed = await suppressions.list(workspace, {}, page);
    expect([listed.count, listed.suppressions.map((s) => `${s.channel} ${s.address}`)]).toEqual([3, ['whatsapp +14155550100', 'sms +14155550100', 'email a@example.com']]);
    expect((await suppressions.list(workspace, {}, { limit: 1, offset: 1 })).suppressions.map((s) => s.channel)).toEqual(['sms']);
    expect((await suppressions.list(workspace, { channel: 'sms' }, page)).suppressions.map((s) => s.channel)).toEqual(['sms']);
    expect((await suppressions.list(workspace, { addresses: ['+14155550100', 'nobody'] }, page)).count).toBe(2);
    expect((await suppressions.list(workspace, { channel: 'email', addresses: ['+14155550100'] }, page)).count).toBe(0);
  });

  it("removes an entry once, announcing it, and never another workspace's", async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    await suppressions.add(workspace, 'sms', '+447700900000', 'manual', null);

    expect(await suppressions.remove(other, 'sms', '+447700900000')).toBe(false);
    const results = await Promise.all([suppressions.remove(workspace, 'sms', '+447700900000'), suppressions.remove(workspace, 'sms', '+447700900000')]);
    expect(results.sort()).toEqual([false, true]);
    expect(await suppressions.find(workspace, 'sms', '+447700900000')).toBeNull();
    expect((await announced(workspace)).map((change) => change.change)).toEqual(['added', 'removed']);
    expect(await announced(other)).toEqual([]);
  });

  it("applies the topic's changes (a dispatcher's bounce, the API's own coming back) without announcing them, ending at the last word", async () => {
    const workspace = await newWorkspace();
    const bounce: SuppressionChanged = {
      workspace_id: workspace.id,
      channel: 'email',
      address: 'gone@example.com',
      change: 'added',
      reason: 'hard_bounce',
      detail: '550 5.1.1 user unknown',
      vendor: 'email/sendgrid',
      at: '2026-02-01T00:00:00.000Z',
    };
    await suppressions.apply(bounce);
    await suppressions.apply(bounce);
    expect(await suppressions.find(workspace, 'email', 'gone@example.com')).toEqual({
      workspaceId: workspace.id,
      channel: 'email',
      address: 'gone@example.com',
      reason: 'hard_bounce',
      detail: '550 5.1.1 user unknown',
      vendor: 'email/sendgrid',
      createdAt: new Date('2026-02-01T00:00:00Z'),
    });
    await suppressions.apply({ workspace_id: workspace.id, channel: 'email', address: 'gone@example.com', change: 'removed', at: '2026-02-02T00:00:00.000Z' });
    await suppressions.apply({ workspace_id: workspace.id, channel: 'email', address: 'gone@example.com', change: 'removed', at: '2026-02-02T00:00:00.000Z' });
    expect(await suppressions.find(workspace, 'email', 'gone@example.com')).toBeNull();
    expect(await announced(workspace)).toEqual([]);
  });
});
