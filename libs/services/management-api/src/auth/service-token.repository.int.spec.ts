import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { databaseTargets } from '@herald/testing';
import { openManagementDatabase } from '../testing/repository-database';
import { ServiceTokenRepository } from './service-token.repository';

describe.each(databaseTargets())('the service token repository ($kind)', (target) => {
  let db: DataSource;
  let dispose: () => Promise<void>;
  let tokens: ServiceTokenRepository;

  beforeAll(async () => {
    const opened = await openManagementDatabase(target);
    db = opened.db;
    dispose = opened.close;
    tokens = new ServiceTokenRepository(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  async function newAccount(): Promise<string> {
    const id = randomUUID();
    await db.query(`INSERT INTO management.accounts (id, name) VALUES ($1, 'test')`, [id]);
    return id;
  }

  /** Tokens are written by the bootstrap and the CLI, never by the repository: inserted here as they do. */
  async function newToken(account: string, name: string, revoked = false): Promise<{ id: string; hash: Buffer }> {
    const token = { id: randomUUID(), hash: randomBytes(32) };
    await db.query(`INSERT INTO management.service_tokens (id, account_id, name, token_hash, token_hint, revoked_at) VALUES ($1, $2, $3, $4, 'hst_abcd****', $5)`, [
      token.id,
      account,
      name,
      token.hash,
      revoked ? new Date('2026-02-01T00:00:00Z') : null,
    ]);
    return token;
  }

  it('names a live token by its hash: its id, account and name, and nothing else', async () => {
    const account = await newAccount();
    const ci = await newToken(account, 'ci');
    await newToken(account, 'deploy');

    const found = await tokens.liveToken(ci.hash);

    // Exactly these three: the hash and hint never travel further than the guard needs.
    expect(found).toEqual({ id: ci.id, accountId: account, name: 'ci' });
  });

  it('tells apart the tokens of different accounts', async () => {
    const [mine, theirs] = [await newAccount(), await newAccount()];
    const my = await newToken(mine, 'same name');
    const their = await newToken(theirs, 'same name');

    expect(await tokens.liveToken(my.hash)).toEqual({ id: my.id, accountId: mine, name: 'same name' });
    expect(await tokens.liveToken(their.hash)).toEqual({ id: their.id, accountId: theirs, name: 'same name' });
    expect(await tokens.accountOfLiveToken(my.hash)).toBe(mine);
    expect(await tokens.accountOfLiveToken(their.hash)).toBe(theirs);
  });

  it('answers nothing for a revoked or unknown token, and stops answering once a token is revoked', async () => {
    const account = await newAccount();
    const revoked = await newToken(account, 'old', true);
    const live = await newToken(account, 'live');

    expect(await tokens.liveToken(revoked.hash)).toBeNull();
    expect(await tokens.accountOfLiveToken(revoked.hash)).toBeNull();
    expect(await tokens.liveToken(randomBytes(32))).toBeNull();
    expect(await tokens.accountOfLiveToken(randomBytes(32))).toBeNull();
    // A hash that shares a prefix is another token.
    expect(await tokens.liveToken(live.hash.subarray(0, 16))).toBeNull();

    expect(await tokens.accountOfLiveToken(live.hash)).toBe(account);
    await db.query(`UPDATE management.service_tokens SET revoked_at = now() WHERE id = $1`, [live.id]);
    expect(await tokens.liveToken(live.hash)).toBeNull();
    expect(await tokens.accountOfLiveToken(live.hash)).toBeNull();
  });
});
