import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { hashToken } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { openManagementDatabase } from '../testing/repository-database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { PublicKeyRepository } from './public-key.repository';
import { SigningKeyRepository } from './signing-key.repository';

type Announced<K extends CredentialsChanged['kind']> = Extract<CredentialsChanged, { kind: K }>;

describe.each(databaseTargets())('the public and signing key repositories ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let now = new Date('2026-03-01T10:00:00Z');
  let publicKeys: PublicKeyRepository;
  let signingKeys: SigningKeyRepository;
  let newWorkspace: () => Promise<ScopedWorkspace>;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    ({ db, newWorkspace } = opened);
    dispose = opened.close;
    publicKeys = new PublicKeyRepository(db, { now: () => now });
    signingKeys = new SigningKeyRepository(db, { now: () => now });
  });
  afterAll(async () => {
    await dispose?.();
  });

  async function announced<K extends CredentialsChanged['kind']>(kind: K, workspace: ScopedWorkspace): Promise<Array<Announced<K>>> {
    const rows: Array<{ value: string }> = await db.query(`SELECT value FROM ${MANAGEMENT_OUTBOX} ORDER BY id`);
    return rows
      .map((row) => (JSON.parse(row.value) as { payload: CredentialsChanged }).payload)
      .filter((change): change is Announced<K> => change.kind === kind && change.workspace_id === workspace.id);
  }

  it('creates a public key with its origins normalised, updates, rotates and deletes it, announcing each with the key hash only', async () => {
    const workspace = await newWorkspace();
    const created = await publicKeys.create(workspace, 'web', 'the shop', ['https://Shop.example.com:443', 'https://shop.example.com']);
    expect(created).toMatchObject({ workspaceId: workspace.id, name: 'web', description: 'the shop', allowedDomains: ['https://shop.example.com'], isSecureModeEnabled: true, rotatedAt: null, deletedAt: null });
    expect(created.apiKey).toMatch(/^SS\.PUBK\.[A-Za-z0-9_-]{43}$/);
    expect(created.createdAt).toBeInstanceOf(Date);

    now = new Date(now.getTime() + 1_000);
    expect(await publicKeys.update(workspace, created.id, undefined)).toMatchObject({ allowedDomains: ['https://shop.example.com'], updatedAt: now });
    expect((await publicKeys.update(workspace, created.id, null)).allowedDomains).toBeNull();
    const rotated = await publicKeys.rotate(workspace, created.id);
    expect(rotated.apiKey).not.toBe(created.apiKey);
    expect(rotated.rotatedAt).toEqual(now);
    expect((await publicKeys.list(workspace, { limit: 10, offset: 0 })).keys).toEqual([expect.objectContaining({ id: created.id, apiKey: rotated.apiKey, allowedDomains: null })]);

    await publicKeys.remove(workspace, created.id);
    expect(await publicKeys.list(workspace, { limit: 10, offset: 0 })).toEqual({ count: 0, keys: [] });
    await expect(publicKeys.rotate(workspace, created.id)).rejects.toThrow('not found');
    const changes = await announced('public_key', workspace);
    expect(changes.map((change) => [change.change, change.allowed_origins])).toEqual([
      ['created', ['https://shop.example.com']],
      ['updated', ['https://shop.example.com']],
      ['updated', []],
      ['rotated', []],
      ['deleted', []],
    ]);
    expect(changes[0].key_hash).toBe(hashToken(created.apiKey).toString('hex'));
    expect(changes[3].key_hash).toBe(hashToken(rotated.apiKey).toString('hex'));
  });

  it("never changes another workspace's public key", async () => {
    const workspace = await newWorkspace();
    const key = await publicKeys.create(workspace, 'web', null, null);
    const other = await newWorkspace();
    await expect(publicKeys.update(other, key.id, ['https://evil.example'])).rejects.toThrow('not found');
    await expect(publicKeys.remove(other, key.id)).rejects.toThrow('not found');
    await expect(publicKeys.rotate(other, randomUUID())).rejects.toThrow('not found');
    expect((await publicKeys.list(workspace, { limit: 10, offset: 0 })).keys[0]).toMatchObject({ apiKey: key.apiKey, allowedDomains: null });
  });

  it('keeps one active signing key: a second is refused, rolling replaces it and keeps the rolled one listed until deleted', async () => {
    const workspace = await newWorkspace();
    const first = await signingKeys.create(workspace, 'PEM-1');
    expect(first).toMatchObject({ workspaceId: workspace.id, status: 'active', publicKeyPem: 'PEM-1', rolledAt: null, deletedAt: null });
    // The reference's `signing_key_<UTC time>`, and a random tail.
    expect(first.uid).toMatch(new RegExp(`^signing_key_${now.toISOString().replace(/[-:]/g, '').slice(0, 15)}_[0-9a-f]{6}$`));
    await expect(signingKeys.create(workspace, 'PEM-2')).rejects.toMatchObject({ fieldErrors: [{ path: '', message: 'only 1 active signing key is allowed; roll it to replace it' }] });
    await expect(signingKeys.roll(await newWorkspace(), first.uid, 'PEM-2')).rejects.toThrow('not found');

    now = new Date(now.getTime() + 1_000);
    const second = await signingKeys.roll(workspace, first.uid, 'PEM-2');
    await expect(signingKeys.roll(workspace, first.uid, 'PEM-3')).rejects.toThrow('not found');
    const listed = await signingKeys.list(workspace, { limit: 10, offset: 0 });
    expect(listed.count).toBe(2);
    expect(listed.keys.map((key) => [key.uid, key.status])).toEqual(expect.arrayContaining([[first.uid, 'rolled'], [second.uid, 'active']]));
    expect(listed.keys.find((key) => key.uid === first.uid)?.rolledAt).toEqual(now);

    await signingKeys.remove(workspace, first.uid);
    await expect(signingKeys.remove(workspace, first.uid)).rejects.toThrow('not found');
    expect((await signingKeys.list(workspace, { limit: 10, offset: 0 })).keys.map((key) => key.uid)).toEqual([second.uid]);
    expect((await announced('signing_key', workspace)).map((change) => [change.change, change.signing_key_uid, change.public_key_pem])).toEqual([
      ['created', first.uid, 'PEM-1'],
      ['rolled', first.uid, 'PEM-1'],
      ['created', second.uid, 'PEM-2'],
      ['deleted', first.uid, 'PEM-1'],
    ]);
  });
});
