import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { databaseTargets } from '@herald/testing';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { openManagementDatabase, outboxPayloads } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { SigningKey, SigningKeyRepository } from './signing-key.repository';

type SigningKeyChange = Extract<CredentialsChanged, { kind: 'signing_key' }>;

describe.each(databaseTargets())('the signing key repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let now = new Date('2026-03-01T10:00:00Z');
  let keys: SigningKeyRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    keys = new SigningKeyRepository(db, { now: () => now });
  });
  afterAll(async () => {
    await dispose?.();
  });

  const tick = (): Date => (now = new Date(now.getTime() + 1_000));
  /** The workspace's signing_key announcements, in order, as [change, uid, pem]. */
  async function announced(workspace: ScopedWorkspace): Promise<Array<[string, string, string]>> {
    return (await outboxPayloads<CredentialsChanged>(db))
      .filter((change): change is SigningKeyChange => change.kind === 'signing_key' && change.workspace_id === workspace.id)
      .map((change) => [change.change, change.signing_key_uid, change.public_key_pem]);
  }
  const all = { limit: 100, offset: 0 };
  const onlyOneActive = { fieldErrors: [{ path: '', message: 'only 1 active signing key is allowed; roll it to replace it' }] };

  it('creates the active key, stores what it answers and announces its public half', async () => {
    const workspace = await newWorkspace();

    const created = await keys.create(workspace, 'PEM-1');

    expect(created).toEqual({
      id: expect.stringMatching(/^ws_signk_[A-Za-z0-9_-]{16}$/),
      // The reference's `signing_key_<UTC time>`, and a random tail.
      uid: expect.stringMatching(/^signing_key_20260301T100000_[0-9a-f]{6}$/),
      workspaceId: workspace.id,
      status: 'active',
      publicKeyPem: 'PEM-1',
      createdAt: expect.any(Date),
      rolledAt: null,
      deletedAt: null,
    });
    expect(await keys.list(workspace, all)).toEqual({ count: 1, keys: [created] });
    const [payload]: Array<{ value: string }> = await db.query(`SELECT value FROM ${MANAGEMENT_OUTBOX} WHERE value LIKE $1`, [`%${created.uid}%`]);
    expect(JSON.parse(payload.value).payload).toEqual({
      kind: 'signing_key',
      change: 'created',
      signing_key_uid: created.uid,
      workspace_id: workspace.id,
      workspace_slug: workspace.slug,
      public_key_pem: 'PEM-1',
    });
  });

  it('refuses a second active key in the workspace, but not in another one, and allows one again once the active key is deleted', async () => {
    const workspace = await newWorkspace();
    const first = await keys.create(workspace, 'PEM-1');

    await expect(keys.create(workspace, 'PEM-2')).rejects.toMatchObject(onlyOneActive);
    const elsewhere = await keys.create(await newWorkspace(), 'PEM-other');
    expect(elsewhere.status).toBe('active');

    await keys.remove(workspace, first.uid);
    const again = await keys.create(workspace, 'PEM-3');
    expect(again.status).toBe('active');
    expect(await announced(workspace)).toEqual([
      ['created', first.uid, 'PEM-1'],
      ['deleted', first.uid, 'PEM-1'],
      ['created', again.uid, 'PEM-3'],
    ]);
  });

  it('lets only one of two concurrent creations make the active key', async () => {
    const workspace = await newWorkspace();

    const results = await Promise.allSettled([keys.create(workspace, 'PEM-A'), keys.create(workspace, 'PEM-B')]);

    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    // Refused by the check under the workspace lock, not by the unique index.
    expect(refused?.reason).toMatchObject(onlyOneActive);
    expect((await keys.list(workspace, all)).count).toBe(1);
    expect((await announced(workspace)).length).toBe(1);
  });

  it('rolls the active key: it stays, rolled, beside its active replacement, announced in that order', async () => {
    const workspace = await newWorkspace();
    const first = await keys.create(workspace, 'PEM-1');
    tick();

    const second = await keys.roll(workspace, first.uid, 'PEM-2');

    expect(second).toEqual({ ...first, id: expect.any(String), uid: expect.stringMatching(/^signing_key_20260301T1000\d\d_/), publicKeyPem: 'PEM-2', createdAt: expect.any(Date) });
    expect(second.id).not.toBe(first.id);
    expect(second.uid).not.toBe(first.uid);
    expect(await keys.list(workspace, all)).toEqual({ count: 2, keys: [second, { ...first, status: 'rolled', rolledAt: now }] });
    expect(await announced(workspace)).toEqual([
      ['created', first.uid, 'PEM-1'],
      ['rolled', first.uid, 'PEM-1'],
      ['created', second.uid, 'PEM-2'],
    ]);
    // The rolled key no longer counts as the active one: only its replacement rolls.
    await expect(keys.roll(workspace, first.uid, 'PEM-3')).rejects.toMatchObject({ message: `active signing key '${first.uid}' not found` });
    await expect(keys.create(workspace, 'PEM-3')).rejects.toMatchObject(onlyOneActive);
  });

  it("rolls only the workspace's own, live, active key", async () => {
    const workspace = await newWorkspace();
    const key = await keys.create(workspace, 'PEM-1');

    await expect(keys.roll(await newWorkspace(), key.uid, 'PEM-2')).rejects.toThrow('not found');
    await expect(keys.roll(workspace, 'signing_key_unknown', 'PEM-2')).rejects.toThrow('not found');
    expect(await keys.list(workspace, all)).toEqual({ count: 1, keys: [key] });

    await keys.remove(workspace, key.uid);
    await expect(keys.roll(workspace, key.uid, 'PEM-2')).rejects.toThrow('not found');
    expect(await keys.list(workspace, all)).toEqual({ count: 0, keys: [] });
    expect((await announced(workspace)).map(([change]) => change)).toEqual(['created', 'deleted']);
  });

  it('lets only one of two concurrent rolls of a key succeed', async () => {
    const workspace = await newWorkspace();
    const key = await keys.create(workspace, 'PEM-1');

    const results = await Promise.allSettled([keys.roll(workspace, key.uid, 'PEM-A'), keys.roll(workspace, key.uid, 'PEM-B')]);

    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await keys.list(workspace, all)).keys.map((listed) => listed.status)).toEqual(['active', 'rolled']);
    expect((await announced(workspace)).map(([change]) => change)).toEqual(['created', 'rolled', 'created']);
  });

  it("lists a page of the workspace's keys, active and rolled, newest first, without the deleted ones", async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    const made: SigningKey[] = [await keys.create(workspace, 'PEM-0')];
    for (const pem of ['PEM-1', 'PEM-2', 'PEM-3']) {
      tick();
      made.push(await keys.roll(workspace, made[made.length - 1].uid, pem));
    }
    await keys.create(other, 'PEM-other');
    await keys.remove(workspace, made[1].uid);

    const listed = await keys.list(workspace, all);
    expect(listed.count).toBe(3);
    expect(listed.keys.map((key) => [key.publicKeyPem, key.status])).toEqual([
      ['PEM-3', 'active'],
      ['PEM-2', 'rolled'],
      ['PEM-0', 'rolled'],
    ]);
    expect((await keys.list(workspace, { limit: 1, offset: 1 })).keys.map((key) => key.publicKeyPem)).toEqual(['PEM-2']);
    expect(await keys.list(workspace, { limit: 10, offset: 3 })).toEqual({ count: 3, keys: [] });
    expect((await keys.list(other, all)).keys.map((key) => key.publicKeyPem)).toEqual(['PEM-other']);
  });

  it('removes a rolled or an active key once, and never another workspace one', async () => {
    const workspace = await newWorkspace();
    const first = await keys.create(workspace, 'PEM-1');
    const second = await keys.roll(workspace, first.uid, 'PEM-2');
    tick();

    await expect(keys.remove(await newWorkspace(), first.uid)).rejects.toThrow('not found');
    await keys.remove(workspace, first.uid);
    await expect(keys.remove(workspace, first.uid)).rejects.toMatchObject({ message: `signing key '${first.uid}' not found` });
    const [row]: Array<{ deleted_at: Date }> = await db.query(`SELECT deleted_at FROM management.signing_keys WHERE id = $1`, [first.id]);
    expect(row.deleted_at).toEqual(now);
    await keys.remove(workspace, second.uid);

    expect(await keys.list(workspace, all)).toEqual({ count: 0, keys: [] });
    expect((await announced(workspace)).filter(([change]) => change === 'deleted')).toEqual([
      ['deleted', first.uid, 'PEM-1'],
      ['deleted', second.uid, 'PEM-2'],
    ]);
  });
});
