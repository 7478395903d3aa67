import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { hashToken } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { openDispatchDatabase } from '../testing/repository-database';
import { ApiKeyRepository } from './api-key.repository';

type ApiKeyChange = Extract<CredentialsChanged, { kind: 'api_key' }>;

describe.each(databaseTargets())('the API key repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let keys: ApiKeyRepository;

  beforeAll(async () => {
    const opened = await openDispatchDatabase(target);
    db = opened.db;
    dispose = opened.close;
    keys = new ApiKeyRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const announced = (id: string, apiKey: string, workspaceId: string, fields: Partial<ApiKeyChange> = {}): ApiKeyChange => ({
    kind: 'api_key',
    change: 'created',
    api_key_id: id,
    workspace_id: workspaceId,
    workspace_slug: 'acme',
    key_hash: hashToken(apiKey).toString('hex'),
    ...fields,
  });
  const hashOf = (apiKey: string): string => hashToken(apiKey).toString('hex');

  it('finds the workspace of an announced key by its hash (an announcement read twice is one key) and forgets a deleted key', async () => {
    const id = randomUUID();
    const workspaceId = randomUUID();
    expect(await keys.workspaceOfKeyHash(hashOf('hk_live'))).toBeNull();
    await keys.apply(announced(id, 'hk_live', workspaceId));
    await keys.apply(announced(id, 'hk_live', workspaceId, { workspace_slug: 'acme-renamed' }));
    expect(await keys.workspaceOfKeyHash(hashOf('hk_live'))).toEqual({ id: workspaceId, slug: 'acme-renamed' });
    expect(await keys.workspaceOfKeyHash(hashOf('hk_other'))).toBeNull();
    await keys.apply(announced(id, 'hk_live', workspaceId, { change: 'deleted' }));
    await keys.apply(announced(id, 'hk_live', workspaceId, { change: 'deleted' }));
    expect(await keys.workspaceOfKeyHash(hashOf('hk_live'))).toBeNull();
  });

  it('says a read-only key is one, and a key announced read-only and then not is not', async () => {
    const id = randomUUID();
    const workspaceId = randomUUID();
    await keys.apply(announced(id, 'hk_viewer', workspaceId, { read_only: true }));
    expect(await keys.workspaceOfKeyHash(hashOf('hk_viewer'))).toEqual({ id: workspaceId, slug: 'acme', readOnly: true });
    await keys.apply(announced(id, 'hk_viewer', workspaceId));
    expect(await keys.workspaceOfKeyHash(hashOf('hk_viewer'))).toEqual({ id: workspaceId, slug: 'acme' });
  });
});
