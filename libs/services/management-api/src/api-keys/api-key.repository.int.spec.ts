import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { openManagementDatabase, outboxPayloads } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { ApiKeyRepository } from './api-key.repository';

describe.each(databaseTargets())('the API key repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let now = new Date('2026-03-01T10:00:00Z');
  let keys: ApiKeyRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    keys = new ApiKeyRepository(db, { now: () => now });
  });
  afterAll(async () => {
    await dispose?.();
  });

  const hash = (): Buffer => randomBytes(32);
  /** What the outbox holds about a key: its credentials.changed announcements, in order. */
  async function announcementsOf(apiKeyId: string): Promise<CredentialsChanged[]> {
    return (await outboxPayloads<CredentialsChanged>(db))
      .filter((change) => change.kind === 'api_key' && change.api_key_id === apiKeyId);
  }

  it('creates a key with the columns the database fills, and announces it in the same transaction', async () => {
    const workspace = await newWorkspace();
    const keyHash = hash();
    const expiresAt = new Date('2026-04-01T00:00:00Z');

    const created = await keys.create(workspace, 'ci', keyHash, 'hak_abcd************', expiresAt);

    expect(created).toEqual({
      id: expect.any(String),
      workspaceId: workspace.id,
      name: 'ci',
      keyHash,
      keyHint: 'hak_abcd************',
      createdAt: expect.any(Date),
      deletedAt: null,
      expiresAt,
      readOnly: false,
    });
    expect(await announcementsOf(created.id)).toEqual([
      { kind: 'api_key', change: 'created', api_key_id: created.id, workspace_id: workspace.id, workspace_slug: workspace.slug, key_hash: keyHash.toString('hex') },
    ]);
  });

  it('stores and announces a read-only key as such, on its creation and its removal', async () => {
    const workspace = await newWorkspace();
    const keyHash = hash();
    const created = await keys.create(workspace, 'dashboard', keyHash, 'h', null, true);
    expect(created.readOnly).toBe(true);
    expect(await keys.remove(workspace, created.id)).toBe(true);
    expect((await announcementsOf(created.id)).map((change) => [change.change, change.kind === 'api_key' && change.read_only])).toEqual([
      ['created', true],
      ['deleted', true],
    ]);
  });

  it('writes neither key nor announcement when the insert fails', async () => {
    const workspace = await newWorkspace();
    const keyHash = hash();
    const first = await keys.create(workspace, 'first', keyHash, 'h', null);

    // key_hash is unique: the second insert fails, and its transaction leaves nothing behind.
    await expect(keys.create(workspace, 'second', keyHash, 'h', null)).rejects.toThrow();

    const { keys: live } = await keys.listLive(workspace, { limit: 10, offset: 0 });
    expect(live.map((key) => key.name)).toEqual(['first']);
    const announced: Array<{ count: number }> = await db.query(`SELECT count(*)::int AS count FROM ${MANAGEMENT_OUTBOX} WHERE value LIKE $1`, [`%${keyHash.toString('hex')}%`]);
    expect(announced).toEqual([{ count: 1 }]);
    expect((await announcementsOf(first.id)).length).toBe(1);
  });

  it("creates a key in the caller's transaction when given one: kept and announced with its commit, gone with its rollback", async () => {
    const workspace = await newWorkspace();
    const kept = await db.transaction((tx) => keys.create(workspace, 'bootstrap', hash(), 'h', null, false, tx));
    await expect(
      db.transaction(async (tx) => {
        await keys.create(workspace, 'rolled back', hash(), 'h', null, false, tx);
        throw new Error('the rest of the transaction failed');
      }),
    ).rejects.toThrow('the rest of the transaction failed');

    expect((await keys.listLive(workspace, { limit: 10, offset: 0 })).keys).toEqual([kept]);
    expect(await announcementsOf(kept.id)).toEqual([
      { kind: 'api_key', change: 'created', api_key_id: kept.id, workspace_id: workspace.id, workspace_slug: workspace.slug, key_hash: kept.keyHash.toString('hex') },
    ]);
    const announced: Array<{ count: number }> = await db.query(`SELECT count(*)::int AS count FROM ${MANAGEMENT_OUTBOX} WHERE value LIKE $1`, [`%${workspace.id}%`]);
    expect(announced).toEqual([{ count: 1 }]);
  });

  it('lists a page of the workspace live keys, oldest first, with the count of all of them', async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    const created = [];
    for (const name of ['a', 'b', 'c']) created.push(await keys.create(workspace, name, hash(), `hint-${name}`, null));
    await keys.create(other, 'elsewhere', hash(), 'h', null);
    await keys.remove(workspace, created[1].id);

    expect(await keys.listLive(workspace, { limit: 10, offset: 0 })).toEqual({ count: 2, keys: [created[0], created[2]] });
    expect(await keys.listLive(workspace, { limit: 1, offset: 1 })).toEqual({ count: 2, keys: [created[2]] });
    expect(await keys.listLive(workspace, { limit: 10, offset: 5 })).toEqual({ count: 2, keys: [] });
  });

  it("removes a live key once, announcing it, and never another workspace's key", async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    const key = await keys.create(workspace, 'k', hash(), 'h', null);

    expect(await keys.remove(other, key.id)).toBe(false);
    expect(await keys.remove(workspace, randomUUID())).toBe(false);
    expect(await keys.remove(workspace, key.id)).toBe(true);
    expect(await keys.remove(workspace, key.id)).toBe(false);

    expect((await announcementsOf(key.id)).map((change) => change.change)).toEqual(['created', 'deleted']);
    const [row]: Array<{ deleted_at: Date | null }> = await db.query(`SELECT deleted_at FROM management.api_keys WHERE id = $1`, [key.id]);
    expect(row.deleted_at).toBeInstanceOf(Date);
    expect((await keys.listLive(workspace, { limit: 10, offset: 0 })).count).toBe(0);
  });

  it('lets only one of two concurrent removals of a key succeed and announce', async () => {
    const workspace = await newWorkspace();
    const key = await keys.create(workspace, 'k', hash(), 'h', null);

    const results = await Promise.all([keys.remove(workspace, key.id), keys.remove(workspace, key.id)]);

    expect(results.sort()).toEqual([false, true]);
    expect((await announcementsOf(key.id)).map((change) => change.change)).toEqual(['created', 'deleted']);
  });

  it('expires the keys due, announcing each, and answers when the next live key expires', async () => {
    const workspace = await newWorkspace();
    const later = new Date(now.getTime() + 3_600_000);
    const due = await keys.create(workspace, 'due', hash(), 'h', new Date(now.getTime() + 1_000));
    const notYet = await keys.create(workspace, 'not-yet', hash(), 'h', later);
    const forever = await keys.create(workspace, 'forever', hash(), 'h', null);
    // Other tests' keys may be due too: this one's outcome is what is asserted.
    now = new Date(now.getTime() + 60_000);

    const { expired, nextExpiry } = await keys.expireDue();

    expect(expired).toBeGreaterThanOrEqual(1);
    expect(nextExpiry).toEqual(later);
    expect((await keys.listLive(workspace, { limit: 10, offset: 0 })).keys.map((key) => key.name)).toEqual(['not-yet', 'forever']);
    expect(await announcementsOf(due.id)).toEqual([
      expect.objectContaining({ change: 'created' }),
      { kind: 'api_key', change: 'deleted', api_key_id: due.id, workspace_id: workspace.id, workspace_slug: workspace.slug, key_hash: due.keyHash.toString('hex') },
    ]);
    expect((await announcementsOf(notYet.id)).length).toBe(1);
    expect((await announcementsOf(forever.id)).length).toBe(1);
    // Nothing left due: a second sweep deletes nothing.
    expect(await keys.expireDue()).toEqual({ expired: 0, nextExpiry: later });
  });
});
