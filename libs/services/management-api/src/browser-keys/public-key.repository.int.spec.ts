import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { hashToken } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { openManagementDatabase, outboxPayloads } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { PublicKey, PublicKeyRepository } from './public-key.repository';

type PublicKeyChange = Extract<CredentialsChanged, { kind: 'public_key' }>;

describe.each(databaseTargets())('the public key repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let now = new Date('2026-03-01T10:00:00Z');
  let keys: PublicKeyRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    keys = new PublicKeyRepository(db, { now: () => now });
  });
  afterAll(async () => {
    await dispose?.();
  });

  const tick = (): Date => (now = new Date(now.getTime() + 1_000));
  /** The key's public_key announcements, in order. */
  async function announcementsOf(id: string): Promise<PublicKeyChange[]> {
    return (await outboxPayloads<CredentialsChanged>(db))
      .filter((change): change is PublicKeyChange => change.kind === 'public_key' && change.public_key_id === id);
  }
  const all = { limit: 100, offset: 0 };
  const stored = async (workspace: ScopedWorkspace, id: string): Promise<PublicKey | undefined> => (await keys.list(workspace, all)).keys.find((key) => key.id === id);

  it('creates a key with its origins normalised once each, stores what it answers and announces its hash, never the key', async () => {
    const workspace = await newWorkspace();

    const created = await keys.create(workspace, 'web', 'the shop', ['https://Shop.example.com:443', 'https://shop.example.com', 'http://localhost:3000/']);

    expect(created).toEqual({
      id: expect.stringMatching(/^ws_pubk_[A-Za-z0-9_-]{16}$/),
      workspaceId: workspace.id,
      name: 'web',
      description: 'the shop',
      apiKey: expect.stringMatching(/^SS\.PUBK\.[A-Za-z0-9_-]{43}$/),
      allowedDomains: ['https://shop.example.com', 'http://localhost:3000'],
      isSecureModeEnabled: true,
      createdAt: expect.any(Date),
      updatedAt: now,
      rotatedAt: null,
      deletedAt: null,
    });
    expect(await stored(workspace, created.id)).toEqual(created);
    expect(await announcementsOf(created.id)).toEqual([
      {
        kind: 'public_key',
        change: 'created',
        public_key_id: created.id,
        workspace_id: workspace.id,
        workspace_slug: workspace.slug,
        key_hash: hashToken(created.apiKey).toString('hex'),
        allowed_origins: ['https://shop.example.com', 'http://localhost:3000'],
      },
    ]);
    expect(JSON.stringify(await announcementsOf(created.id))).not.toContain(created.apiKey);
  });

  it('keeps "none set" (undefined or null) apart from an empty list of origins, announcing both as none allowed', async () => {
    const workspace = await newWorkspace();
    const unset = await keys.create(workspace, 'a', null, undefined);
    const nulled = await keys.create(workspace, 'b', null, null);
    const empty = await keys.create(workspace, 'c', null, []);

    expect([unset.allowedDomains, nulled.allowedDomains, empty.allowedDomains]).toEqual([null, null, []]);
    expect((await keys.list(workspace, all)).keys.map((key) => [key.name, key.description, key.allowedDomains])).toEqual([
      ['a', null, null],
      ['b', null, null],
      ['c', null, []],
    ]);
    for (const key of [unset, nulled, empty]) expect((await announcementsOf(key.id))[0].allowed_origins).toEqual([]);
  });

  it("lists a page of the workspace's live keys, oldest first, with the count of all of them", async () => {
    const workspace = await newWorkspace();
    const other = await newWorkspace();
    const created: PublicKey[] = [];
    for (const name of ['a', 'b', 'c', 'd']) created.push(await keys.create(workspace, name, null, null));
    await keys.create(other, 'elsewhere', null, null);
    await keys.remove(workspace, created[1].id);

    expect(await keys.list(workspace, all)).toEqual({ count: 3, keys: [created[0], created[2], created[3]] });
    expect(await keys.list(workspace, { limit: 1, offset: 1 })).toEqual({ count: 3, keys: [created[2]] });
    expect(await keys.list(workspace, { limit: 10, offset: 3 })).toEqual({ count: 3, keys: [] });
    expect((await keys.list(other, all)).keys.map((key) => key.name)).toEqual(['elsewhere']);
    expect(await keys.list(await newWorkspace(), all)).toEqual({ count: 0, keys: [] });
  });

  it('updates the origins (undefined leaves them, null clears them), keeping the key and stamping updatedAt', async () => {
    const workspace = await newWorkspace();
    const created = await keys.create(workspace, 'web', 'd', ['https://a.example']);

    tick();
    const untouched = await keys.update(workspace, created.id, undefined);
    expect(untouched).toEqual({ ...created, updatedAt: now });
    expect(await stored(workspace, created.id)).toEqual(untouched);

    tick();

    const replaced = await keys.update(workspace, created.id, ['HTTPS://B.example', 'https://b.example/']);
    expect(replaced).toEqual({ ...created, allowedDomains: ['https://b.example'], updatedAt: now });
    expect(await stored(workspace, created.id)).toEqual(replaced);

    tick();
    const cleared = await keys.update(workspace, created.id, null);
    expect(cleared).toEqual({ ...created, allowedDomains: null, updatedAt: now });
    expect(await stored(workspace, created.id)).toEqual(cleared);

    const changes = await announcementsOf(created.id);
    expect(changes.map((change) => [change.change, change.allowed_origins, change.key_hash])).toEqual([
      ['created', ['https://a.example'], hashToken(created.apiKey).toString('hex')],
      ['updated', ['https://a.example'], hashToken(created.apiKey).toString('hex')],
      ['updated', ['https://b.example'], hashToken(created.apiKey).toString('hex')],
      ['updated', [], hashToken(created.apiKey).toString('hex')],
    ]);
  });

  it('rotates the key material of the same record, announcing the new hash', async () => {
    const workspace = await newWorkspace();
    const created = await keys.create(workspace, 'web', null, ['https://a.example']);
    tick();

    const rotated = await keys.rotate(workspace, created.id);

    expect(rotated).toEqual({ ...created, apiKey: expect.stringMatching(/^SS\.PUBK\.[A-Za-z0-9_-]{43}$/), rotatedAt: now, updatedAt: now });
    expect(rotated.apiKey).not.toBe(created.apiKey);
    expect(await stored(workspace, created.id)).toEqual(rotated);
    const changes = await announcementsOf(created.id);
    expect(changes.map((change) => [change.change, change.key_hash, change.allowed_origins])).toEqual([
      ['created', hashToken(created.apiKey).toString('hex'), ['https://a.example']],
      ['rotated', hashToken(rotated.apiKey).toString('hex'), ['https://a.example']],
    ]);
  });

  it('removes a key once: it leaves the list, refuses every change after, and its removal is announced with its current hash', async () => {
    const workspace = await newWorkspace();
    const created = await keys.create(workspace, 'web', null, ['https://a.example']);
    const rotated = await keys.rotate(workspace, created.id);
    tick();

    await keys.remove(workspace, created.id);

    expect(await keys.list(workspace, all)).toEqual({ count: 0, keys: [] });
    const [row]: Array<{ deleted_at: Date }> = await db.query(`SELECT deleted_at FROM management.public_keys WHERE id = $1`, [created.id]);
    expect(row.deleted_at).toEqual(now);
    await expect(keys.remove(workspace, created.id)).rejects.toMatchObject({ message: `public key '${created.id}' not found` });
    await expect(keys.update(workspace, created.id, [])).rejects.toThrow('not found');
    await expect(keys.rotate(workspace, created.id)).rejects.toThrow('not found');
    expect((await announcementsOf(created.id)).map((change) => [change.change, change.key_hash])).toEqual([
      ['created', hashToken(created.apiKey).toString('hex')],
      ['rotated', hashToken(rotated.apiKey).toString('hex')],
      ['deleted', hashToken(rotated.apiKey).toString('hex')],
    ]);
  });

  it("never changes another workspace's key, nor announces anything for the attempt", async () => {
    const workspace = await newWorkspace();
    const key = await keys.create(workspace, 'web', null, null);
    const other = await newWorkspace();

    await expect(keys.update(other, key.id, ['https://evil.example'])).rejects.toThrow('not found');
    await expect(keys.rotate(other, key.id)).rejects.toThrow('not found');
    await expect(keys.remove(other, key.id)).rejects.toThrow('not found');
    await expect(keys.rotate(workspace, randomUUID())).rejects.toThrow('not found');

    expect(await stored(workspace, key.id)).toEqual(key);
    expect((await announcementsOf(key.id)).map((change) => change.change)).toEqual(['created']);
  });

  it('lets only one of two concurrent removals of a key succeed and announce', async () => {
    const workspace = await newWorkspace();
    const key = await keys.create(workspace, 'web', null, null);

    const results = await Promise.allSettled([keys.remove(workspace, key.id), keys.remove(workspace, key.id)]);

    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await announcementsOf(key.id)).map((change) => change.change)).toEqual(['created', 'deleted']);
  });
});
