import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CredentialsChanged } from '@herald/contracts';
import { HeraldLogger, SecretBox } from '@herald/runtime';
import { databaseTargets } from '@herald/testing';
import { openDispatchDatabase } from '../testing/repository-database';
import { WorkspaceKeyRepository } from './workspace-key.repository';

type WorkspaceKeyChange = Extract<CredentialsChanged, { kind: 'workspace_key' }>;

describe.each(databaseTargets())('the workspace key repository ($kind)', (target) => {
  const box = new SecretBox(randomBytes(32));
  const logged: string[] = [];
  const logger = new HeraldLogger('test', 'error', { write: (line) => void logged.push(line) });
  let db: DataSource;
  let dispose: () => Promise<void>;
  let keys: WorkspaceKeyRepository;

  beforeAll(async () => {
    const opened = await openDispatchDatabase(target);
    db = opened.db;
    dispose = opened.close;
    keys = new WorkspaceKeyRepository(db, box, logger);
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** An announcement as management-api makes it: the secret sealed with `workspace_key:<id>`. */
  const announced = (fields: { id: string; key: string; workspaceId: string; secret?: string; sealedFor?: string; change?: WorkspaceKeyChange['change'] }): WorkspaceKeyChange => ({
    kind: 'workspace_key',
    change: fields.change ?? 'created',
    workspace_key_id: fields.id,
    workspace_id: fields.workspaceId,
    workspace_slug: `slug-${fields.workspaceId.slice(0, 8)}`,
    key: fields.key,
    secret_sealed: fields.secret === undefined ? undefined : box.seal(fields.secret, `workspace_key:${fields.sealedFor ?? fields.id}`).toString('base64'),
  });

  it('opens the secrets of a key, follows a rotation and forgets a deleted key', async () => {
    const id = randomUUID();
    const workspaceId = randomUUID();
    const key = `hwk_${randomUUID()}`;
    expect(await keys.secretsOf(key)).toEqual([]);
    await keys.apply(announced({ id, key, workspaceId, secret: 'hws_first' }));
    await keys.apply(announced({ id, key, workspaceId, secret: 'hws_first' }));
    const workspace = { id: workspaceId, slug: `slug-${workspaceId.slice(0, 8)}` };
    expect(await keys.secretsOf(key)).toEqual([{ workspace, secret: 'hws_first' }]);
    await keys.apply(announced({ id, key, workspaceId, secret: 'hws_second', change: 'rotated' }));
    expect(await keys.secretsOf(key)).toEqual([{ workspace, secret: 'hws_second' }]);
    await keys.apply(announced({ id, key, workspaceId, change: 'deleted' }));
    await keys.apply(announced({ id, key, workspaceId, change: 'deleted' }));
    expect(await keys.secretsOf(key)).toEqual([]);
  });

  it("answers each row of a key, leaving out (and logging) a secret that does not open, never another key's", async () => {
    const workspaceId = randomUUID();
    const key = `hwk_${randomUUID()}`;
    const opens = randomUUID();
    await keys.apply(announced({ id: opens, key, workspaceId, secret: 'hws_opens' }));
    // Sealed for another key's id: copied between rows, it does not open.
    await keys.apply(announced({ id: randomUUID(), key, workspaceId, secret: 'hws_copied', sealedFor: opens }));
    await keys.apply(announced({ id: randomUUID(), key: `hwk_${randomUUID()}`, workspaceId, secret: 'hws_other' }));
    expect((await keys.secretsOf(key)).map((secret) => secret.secret)).toEqual(['hws_opens']);
    expect(logged.join('')).toContain('cannot open a workspace secret');
  });
});
