import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { openMigratedSchema } from '@herald/database';
import { databaseTargets } from '@herald/testing';
import { browserKeysMigration } from './browser-keys.migration';
import { BrowserKeysRepository, PublicKeyChange, SigningKeyChange } from './browser-keys.repository';

/** A service's schema as a service that opens routes to browsers migrates it. */
const SCHEMA = 'browser';

describe.each(databaseTargets())('the browser keys repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let keys: BrowserKeysRepository;

  beforeAll(async () => {
    const opened = await openMigratedSchema(target, { schema: SCHEMA, migrations: [browserKeysMigration(SCHEMA, 1764800000000)] });
    db = opened.db;
    dispose = opened.close;
    keys = new BrowserKeysRepository(db, SCHEMA);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const hash = (): string => randomBytes(32).toString('hex');
  const origin = (): string => `https://${randomUUID()}.example.com`;
  const publicKey = (fields: Partial<PublicKeyChange> = {}): PublicKeyChange => ({
    kind: 'public_key',
    change: 'created',
    public_key_id: `pk_${randomUUID()}`,
    workspace_id: randomUUID(),
    workspace_slug: 'acme',
    key_hash: hash(),
    allowed_origins: [origin()],
    ...fields,
  });
  const pem = (): string => generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const signingKey = (fields: Partial<SigningKeyChange> = {}): SigningKeyChange => ({
    kind: 'signing_key',
    change: 'created',
    signing_key_uid: `sk_${randomUUID()}`,
    workspace_id: randomUUID(),
    workspace_slug: 'acme',
    public_key_pem: pem(),
    ...fields,
  });

  it('answers a public key by its hash with its workspace and allowed origins; null for an unknown hash', async () => {
    const key = publicKey({ allowed_origins: ['https://app.example.com', 'http://localhost:3000'] });
    const none = publicKey({ allowed_origins: [] });
    await keys.savePublicKey(key);
    await keys.savePublicKey(none);
    expect(await keys.publicKeyByHash(hash())).toBeNull();
    expect(await keys.publicKeyByHash(key.key_hash)).toEqual({
      publicKeyId: key.public_key_id,
      workspace: { id: key.workspace_id, slug: 'acme' },
      allowedOrigins: ['https://app.example.com', 'http://localhost:3000'],
    });
    expect(await keys.publicKeyByHash(none.key_hash)).toMatchObject({ allowedOrigins: [] });
  });

  it('updates a public key announced again (hash, slug, origins, never its workspace) and removes a deleted one', async () => {
    const key = publicKey();
    await keys.savePublicKey(key);
    const rotated = { ...key, change: 'rotated' as const, key_hash: hash(), workspace_slug: 'renamed', workspace_id: randomUUID(), allowed_origins: [origin(), origin()] };
    await keys.savePublicKey(rotated);
    expect(await keys.publicKeyByHash(key.key_hash)).toBeNull();
    expect(await keys.publicKeyByHash(rotated.key_hash)).toEqual({ publicKeyId: key.public_key_id, workspace: { id: key.workspace_id, slug: 'renamed' }, allowedOrigins: rotated.allowed_origins });

    await keys.removePublicKey(`pk_${randomUUID()}`);
    expect(await keys.publicKeyByHash(rotated.key_hash)).not.toBeNull();
    await keys.removePublicKey(key.public_key_id);
    expect(await keys.publicKeyByHash(rotated.key_hash)).toBeNull();
  });

  it('tells whether any public key, of any workspace, allows an origin', async () => {
    const allowed = origin();
    const key = publicKey({ allowed_origins: [origin(), allowed] });
    expect(await keys.anyKeyAllows(allowed)).toBe(false);
    await keys.savePublicKey(key);
    await keys.savePublicKey(publicKey({ allowed_origins: [allowed] }));
    expect(await keys.anyKeyAllows(allowed)).toBe(true);
    expect(await keys.anyKeyAllows(origin())).toBe(false);
    expect(await keys.anyKeyAllows(allowed.toUpperCase())).toBe(false);
  });

  it("tells whether one of the workspace's own public keys allows an origin, not another workspace's", async () => {
    const allowed = origin();
    const mine = publicKey({ allowed_origins: [allowed] });
    const theirs = publicKey({ allowed_origins: [origin()] });
    await keys.savePublicKey(mine);
    await keys.savePublicKey(theirs);
    expect(await keys.workspaceKeyAllows(mine.workspace_id, allowed)).toBe(true);
    expect(await keys.workspaceKeyAllows(theirs.workspace_id, allowed)).toBe(false);
    expect(await keys.workspaceKeyAllows(mine.workspace_id, theirs.allowed_origins[0])).toBe(false);
    await keys.removePublicKey(mine.public_key_id);
    expect(await keys.workspaceKeyAllows(mine.workspace_id, allowed)).toBe(false);
  });

  it("answers a workspace's signing keys, active and rolled; a key announced again keeps its first PEM; a deleted one goes", async () => {
    const workspaceId = randomUUID();
    expect(await keys.signingKeyPemsOf(workspaceId)).toEqual([]);
    const active = signingKey({ workspace_id: workspaceId });
    const rolled = signingKey({ workspace_id: workspaceId, change: 'rolled' });
    await keys.saveSigningKey(active);
    await keys.saveSigningKey(rolled);
    await keys.saveSigningKey(signingKey());
    expect((await keys.signingKeyPemsOf(workspaceId)).sort()).toEqual([active.public_key_pem, rolled.public_key_pem].sort());

    await keys.saveSigningKey({ ...active, public_key_pem: pem() });
    expect(await keys.signingKeyPemsOf(workspaceId)).toContain(active.public_key_pem);

    await keys.removeSigningKey(`sk_${randomUUID()}`);
    await keys.removeSigningKey(active.signing_key_uid);
    expect(await keys.signingKeyPemsOf(workspaceId)).toEqual([rolled.public_key_pem]);
  });
});
