import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { SecretBox } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { openManagementDatabase, outboxPayloads } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { WorkspaceKeyRepository } from './workspace-key.repository';

describe.each(databaseTargets())('the workspace key repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  const now = new Date('2026-03-01T10:00:00Z');
  const secretsKey = randomBytes(32);
  let keys: WorkspaceKeyRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    keys = new WorkspaceKeyRepository(db, secretsKey, { now: () => now });
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** The key's credentials.changed announcements in the outbox, in order. */
  async function announcementsOf(id: string): Promise<Array<Extract<CredentialsChanged, { kind: 'workspace_key' }>>> {
    return (await outboxPayloads<CredentialsChanged>(db))
      .filter((change): change is Extract<CredentialsChanged, { kind: 'workspace_key' }> => change.kind === 'workspace_key' && change.workspace_key_id === id);
  }
  const opened = (sealed: string | undefined, id: string): string => new SecretBox(secretsKey).open(Buffer.from(sealed ?? '', 'base64'), `workspace_key:${id}`);

  it('creates a key whose secret is stored sealed, answered opened, and announced sealed in the same transaction', async () => {
    const workspace = await newWorkspace();
    const created = await keys.create(workspace, 'mobile app', ['example.com']);
    expect(created).toEqual({
      id: expect.any(String),
      workspaceId: workspace.id,
      name: 'mobile app',
      key: expect.stringMatching(/^hwk_/),
      secret: expect.stringMatching(/^hws_/),
      isDefault: false,
      isActive: true,
      isDeleted: false,
      allowedDomains: ['example.com'],
      createdAt: expect.any(Date),
      createdBy: null,
      rotatedAt: null,
      rotatedBy: null,
      deletedAt: null,
      deletedBy: null,
    });
    const [stored]: Array<{ secret_sealed: Buffer }> = await db.query(`SELECT secret_sealed FROM management.workspace_keys WHERE id = $1`, [created.id]);
    expect(stored.secret_sealed.toString('utf8')).not.toContain(created.secret);
    const [announced] = await announcementsOf(created.id);
    expect(announced).toMatchObject({ change: 'created', workspace_id: workspace.id, workspace_slug: workspace.slug, key: created.key });
    expect(opened(announced.secret_sealed, created.id)).toBe(created.secret);
  });

  it("creates a workspace's default key with the key and secret given, in the caller's transaction: announced with its commit, gone with its rollback", async () => {
    const workspace = await newWorkspace();
    const [key, secret] = [`hwk_${randomBytes(18).toString('base64url')}`, `hws_${randomBytes(24).toString('base64url')}`];
    const created = await db.transaction((tx) => keys.createDefault(tx, workspace, key, secret));
    expect(created).toMatchObject({ workspaceId: workspace.id, name: 'default', key, secret, isDefault: true, isActive: true, isDeleted: false, allowedDomains: [] });
    expect((await keys.list(workspace, { limit: 10, offset: 0 })).keys).toEqual([created]);
    const [announced] = await announcementsOf(created.id);
    expect(announced).toMatchObject({ change: 'created', workspace_id: workspace.id, workspace_slug: workspace.slug, key });
    expect(opened(announced.secret_sealed, created.id)).toBe(secret);

    const other = await newWorkspace();
    await expect(
      db.transaction(async (tx) => {
        await keys.createDefault(tx, other, `hwk_${randomBytes(18).toString('base64url')}`, secret);
        throw new Error('the rest of the transaction failed');
      }),
    ).rejects.toThrow('the rest of the transaction failed');
    expect((await keys.list(other, { limit: 10, offset: 0 })).count).toBe(0);
    expect(await db.query(`SELECT count(*)::int AS count FROM ${MANAGEMENT_OUTBOX} WHERE value LIKE $1`, [`%${other.id}%`])).toEqual([{ count: 0 }]);
  });

  it('lists live keys oldest first with their count, and only the workspace\'s own', async () => {
    const workspace = await newWorkspace();
    const first = await keys.create(workspace, 'first', []);
    const second = await keys.create(workspace, 'second', []);
    await keys.create(await newWorkspace(), 'elsewhere', []);
    const listed = await keys.list(workspace, { limit: 1, offset: 1 });
    expect(listed.count).toBe(2);
    expect(listed.keys.map((key) => [key.id, key.secret])).toEqual([[second.id, second.secret]]);
    expect((await keys.list(workspace, { limit: 10, offset: 0 })).keys.map((key) => key.id)).toEqual([first.id, second.id]);
  });

  it("rotates a secret and removes a key, announcing each; another workspace's key and a removed one are left alone", async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    const key = await keys.create(workspace, 'server', []);
    expect(await keys.rotate(other, key.id)).toBeUndefined();
    expect(await keys.remove(other, key.id)).toBe(false);
    expect(await keys.rotate(workspace, randomUUID())).toBeUndefined();

    const rotated = await keys.rotate(workspace, key.id);
    expect(rotated).toMatchObject({ id: key.id, key: key.key, rotatedAt: now });
    expect(rotated!.secret).not.toBe(key.secret);
    expect((await keys.list(workspace, { limit: 10, offset: 0 })).keys[0].secret).toBe(rotated!.secret);

    expect(await keys.remove(workspace, key.id)).toBe(true);
    expect(await keys.remove(workspace, key.id)).toBe(false);
    expect(await keys.rotate(workspace, key.id)).toBeUndefined();
    expect((await keys.list(workspace, { limit: 10, offset: 0 })).count).toBe(0);
    const announcements = await announcementsOf(key.id);
    expect(announcements.map((change) => change.change)).toEqual(['created', 'rotated', 'deleted']);
    expect(opened(announcements[1].secret_sealed, key.id)).toBe(rotated!.secret);
    expect(announcements[2].secret_sealed).toBeUndefined();
  });
});
