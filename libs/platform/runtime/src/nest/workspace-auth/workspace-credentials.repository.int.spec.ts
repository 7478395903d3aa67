import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { openMigratedSchema } from '@herald/database';
import { databaseTargets } from '@herald/testing';
import { readOnlyApiKeysMigration, workspaceCredentialsMigration } from './workspace-credentials.migration';
import { ApiKeyChange, WorkspaceKeyChange, WorkspaceCredentialsRepository } from './workspace-credentials.repository';

/** A service's schema as a service that authenticates `{base_url}` requests migrates it. */
const SCHEMA = 'creds';

describe.each(databaseTargets())('the workspace credentials repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let credentials: WorkspaceCredentialsRepository;

  beforeAll(async () => {
    const opened = await openMigratedSchema(target, {
      schema: SCHEMA,
      migrations: [workspaceCredentialsMigration(SCHEMA, 1763900300000), readOnlyApiKeysMigration(SCHEMA, 1765000000000)],
    });
    db = opened.db;
    dispose = opened.close;
    credentials = new WorkspaceCredentialsRepository(db, SCHEMA);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const hash = (): string => randomBytes(32).toString('hex');
  const apiKey = (fields: Partial<ApiKeyChange> = {}): ApiKeyChange => ({
    kind: 'api_key',
    change: 'created',
    api_key_id: randomUUID(),
    workspace_id: randomUUID(),
    workspace_slug: 'acme',
    key_hash: hash(),
    ...fields,
  });
  const workspaceKey = (fields: Partial<WorkspaceKeyChange> = {}): WorkspaceKeyChange => ({
    kind: 'workspace_key',
    change: 'created',
    workspace_key_id: randomUUID(),
    workspace_id: randomUUID(),
    workspace_slug: 'acme',
    key: `wk_${randomUUID()}`,
    secret_sealed: randomBytes(48).toString('base64'),
    ...fields,
  });

  it("answers an API key's workspace by its hash, read-only only when the key is; null for an unknown hash", async () => {
    const full = apiKey();
    const readOnly = apiKey({ read_only: true });
    const announcedFull = apiKey({ read_only: false });
    await credentials.saveApiKey(full);
    await credentials.saveApiKey(readOnly);
    await credentials.saveApiKey(announcedFull);

    expect(await credentials.workspaceOfApiKeyHash(hash())).toBeNull();
    expect(await credentials.workspaceOfApiKeyHash(full.key_hash)).toStrictEqual({ id: full.workspace_id, slug: 'acme' });
    expect(await credentials.workspaceOfApiKeyHash(readOnly.key_hash)).toStrictEqual({ id: readOnly.workspace_id, slug: 'acme', readOnly: true });
    expect(await credentials.workspaceOfApiKeyHash(announcedFull.key_hash)).toStrictEqual({ id: announcedFull.workspace_id, slug: 'acme' });
  });

  it("updates a key announced again: its hash, slug and read-only flag, never its workspace", async () => {
    const first = apiKey();
    await credentials.saveApiKey(first);
    const again = { ...first, key_hash: hash(), workspace_slug: 'renamed', workspace_id: randomUUID(), read_only: true };
    await credentials.saveApiKey(again);
    expect(await credentials.workspaceOfApiKeyHash(first.key_hash)).toBeNull();
    expect(await credentials.workspaceOfApiKeyHash(again.key_hash)).toStrictEqual({ id: first.workspace_id, slug: 'renamed', readOnly: true });
  });

  it('removes a deleted API key, and removes an unknown one without complaint', async () => {
    const key = apiKey();
    await credentials.saveApiKey(key);
    await credentials.removeApiKey(randomUUID());
    expect(await credentials.workspaceOfApiKeyHash(key.key_hash)).not.toBeNull();
    await credentials.removeApiKey(key.api_key_id);
    expect(await credentials.workspaceOfApiKeyHash(key.key_hash)).toBeNull();
  });

  it('answers the keys stored under a workspace key with their secrets sealed as announced; none for an unknown key', async () => {
    const key = workspaceKey();
    await credentials.saveWorkspaceKey(key);
    expect(await credentials.sealedKeysOf(`wk_${randomUUID()}`)).toEqual([]);
    expect(await credentials.sealedKeysOf(key.key)).toEqual([
      { workspaceKeyId: key.workspace_key_id, workspace: { id: key.workspace_id, slug: 'acme' }, secretSealed: key.secret_sealed },
    ]);

    // The same key under another id (announced again) is a second row.
    const twin = workspaceKey({ key: key.key, workspace_id: key.workspace_id });
    await credentials.saveWorkspaceKey(twin);
    expect((await credentials.sealedKeysOf(key.key)).map((k) => k.workspaceKeyId).sort()).toEqual([key.workspace_key_id, twin.workspace_key_id].sort());
  });

  it('updates a rotated workspace key (key, sealed secret, slug) and removes a deleted one', async () => {
    const key = workspaceKey();
    await credentials.saveWorkspaceKey(key);
    const rotated = { ...key, change: 'rotated' as const, key: `wk_${randomUUID()}`, secret_sealed: randomBytes(48).toString('base64'), workspace_slug: 'renamed' };
    await credentials.saveWorkspaceKey(rotated);
    expect(await credentials.sealedKeysOf(key.key)).toEqual([]);
    expect(await credentials.sealedKeysOf(rotated.key)).toEqual([
      { workspaceKeyId: key.workspace_key_id, workspace: { id: key.workspace_id, slug: 'renamed' }, secretSealed: rotated.secret_sealed },
    ]);

    await credentials.removeWorkspaceKey(randomUUID());
    expect(await credentials.sealedKeysOf(rotated.key)).toHaveLength(1);
    await credentials.removeWorkspaceKey(key.workspace_key_id);
    expect(await credentials.sealedKeysOf(rotated.key)).toEqual([]);
  });
});
