import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CredentialsChanged, DefinitionChanged } from '@herald/contracts';
import { openMigratedSchema } from '@herald/database';
import { HeraldLogger, hashToken, loadHeraldConfig } from '@herald/runtime';
import { DatabaseTarget, databaseTargets } from '@herald/testing';
import { ApiKeyRepository } from '../api-keys/api-key.repository';
import { maskedKey } from '../api-keys/api-keys.controller';
import { ServiceTokenRepository } from '../auth/service-token.repository';
import { MANAGEMENT_OUTBOX } from '../management-events/management-events';
import { OperatorRepository } from '../operators/operator.repository';
import { MANAGEMENT_ENTITIES } from '../persistence/entities';
import { MANAGEMENT_MIGRATIONS } from '../persistence/migrations';
import { WorkspaceKeyRepository } from '../workspace-keys/workspace-key.repository';
import { WorkspaceRepository } from '../workspaces/workspace.repository';
import { outboxPayloads } from '../testing/repository-database';
import { AccountRepository } from './account.repository';
import { BootstrapAccount, hint } from './bootstrap-account';

/**
 * The accounts, and with them the first start (BootstrapAccount) that makes the first one:
 * the service token methods it and the service-token CLI use are exercised here too
 * (`ServiceTokenRepository.create`, `tableExists`).
 */
describe.each(databaseTargets())('the account repository and the first start ($kind)', (target: DatabaseTarget) => {
  const now = new Date('2026-03-01T10:00:00Z');
  const clock = { now: () => now };
  const credential = (prefix: string): string => `${prefix}_${randomBytes(24).toString('base64url')}`;

  /** management's migrated schema with no account at all (what a first start finds). */
  async function withEmptyDatabase(test: (db: DataSource) => Promise<void>): Promise<void> {
    const { db, close } = await openMigratedSchema(target, { schema: 'management', migrations: MANAGEMENT_MIGRATIONS, entities: MANAGEMENT_ENTITIES });
    try {
      await test(db);
    } finally {
      await close();
    }
  }

  it('runs the first start only while there is no account: in one transaction, and once of two replicas starting together', async () => {
    await withEmptyDatabase(async (db) => {
      const accounts = new AccountRepository(db);
      const tokens = new ServiceTokenRepository(db);
      expect(await accounts.firstIds(2)).toEqual([]);
      expect(await accounts.oldest()).toBeNull();

      // A first start that fails leaves nothing behind: the account and its token roll back together.
      const lostToken = hashToken(credential('hst'));
      await expect(
        accounts.whileNoAccount(async (tx) => {
          const accountId = await accounts.create('default', tx);
          await tokens.create({ accountId, name: 'bootstrap', tokenHash: lostToken, tokenHint: 'hst_ab…wxyz' }, tx);
          throw new Error('the disk is full');
        }),
      ).rejects.toThrow('the disk is full');
      expect(await accounts.firstIds(2)).toEqual([]);
      expect(await tokens.liveToken(lostToken)).toBeNull();

      const tokenHash = hashToken(credential('hst'));
      const firstStart = (): Promise<string | undefined> =>
        accounts.whileNoAccount(async (tx) => {
          const accountId = await accounts.create('default', tx);
          await tokens.create({ accountId, name: 'bootstrap', tokenHash, tokenHint: 'hst_ab…wxyz' }, tx);
          return accountId;
        });
      const made = (await Promise.all([firstStart(), firstStart()])).filter((id): id is string => id !== undefined);
      expect(made).toHaveLength(1);
      expect(await accounts.firstIds(2)).toEqual(made);
      expect(await tokens.liveToken(tokenHash)).toEqual({ id: expect.any(String), accountId: made[0], name: 'bootstrap' });

      const work = jest.fn(async () => 'ran');
      expect(await accounts.whileNoAccount(work)).toBeUndefined();
      expect(work).not.toHaveBeenCalled();
    });
  });

  it('answers the oldest account, and account ids in id order up to a limit; a token is stored with its hash and hint', async () => {
    await withEmptyDatabase(async (db) => {
      const accounts = new AccountRepository(db);
      const tokens = new ServiceTokenRepository(db);
      const made: string[] = [];
      // One statement each, so each has a created_at of its own transaction.
      for (const name of ['first', 'second', 'third']) made.push(await accounts.create(name));
      const names: Array<{ id: string; name: string }> = await db.query(`SELECT id, name FROM management.accounts`);
      expect(new Map(names.map((row) => [row.id, row.name]))).toEqual(new Map([[made[0], 'first'], [made[1], 'second'], [made[2], 'third']]));

      expect(await accounts.oldest()).toBe(made[0]);
      const byId = [...made].sort();
      expect(await accounts.firstIds(2)).toEqual(byId.slice(0, 2));
      expect(await accounts.firstIds(10)).toEqual(byId);

      const tokenHash = hashToken(credential('hst'));
      const id = await tokens.create({ accountId: made[1], name: 'cli-2026-03-01', tokenHash, tokenHint: 'hst_ab…wxyz' });
      const [stored]: Array<{ id: string; account_id: string; name: string; token_hint: string; revoked_at: Date | null }> = await db.query(
        `SELECT id, account_id, name, token_hint, revoked_at FROM management.service_tokens WHERE token_hash = $1`,
        [tokenHash],
      );
      expect(stored).toEqual({ id, account_id: made[1], name: 'cli-2026-03-01', token_hint: 'hst_ab…wxyz', revoked_at: null });
      expect(await tokens.accountOfLiveToken(tokenHash)).toBe(made[1]);
      expect(await tokens.tableExists()).toBe(true);
    });
  });

  it('says a database management has not migrated has no service token table', async () => {
    const { db, close } = await openMigratedSchema(target, { schema: 'management', migrations: [], entities: MANAGEMENT_ENTITIES });
    try {
      expect(await new ServiceTokenRepository(db).tableExists()).toBe(false);
    } finally {
      await close();
    }
  });

  it('makes the first account, its token, workspace and keys on the first start, announced together; a later start makes nothing and says what it ignored', async () => {
    await withEmptyDatabase(async (db) => {
      const printed: string[] = [];
      const logged: string[] = [];
      const secretsKey = randomBytes(32);
      const start = (env: Record<string, string>): Promise<void> =>
        new BootstrapAccount(
          loadHeraldConfig(env),
          new HeraldLogger('management-api', 'info', { write: (line) => logged.push(line) }),
          { write: (text) => printed.push(text) },
          new AccountRepository(db),
          new ServiceTokenRepository(db),
          new WorkspaceRepository(db, clock),
          new ApiKeyRepository(db, clock),
          new WorkspaceKeyRepository(db, secretsKey, clock),
          new OperatorRepository(db, clock),
        ).onApplicationBootstrap();
      const serviceToken = credential('hst');
      await start({
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_WORKSPACE: 'main',
        HERALD_BOOTSTRAP_OPERATOR_EMAIL: 'owner@example.com',
        HERALD_BOOTSTRAP_OPERATOR_PASSWORD: 'correct horse battery staple',
      });

      // Printed once: the credentials given, and those generated.
      expect(printed).toHaveLength(1);
      const shown = (label: string): string => new RegExp(`${label}:\\s+(\\S+)`).exec(printed[0])?.[1] ?? '';
      expect(shown('workspace')).toBe('main');
      expect(shown('service token')).toBe(serviceToken);
      const [apiKey, workspaceKey, workspaceSecret] = [shown('api key'), shown('workspace key'), shown('workspace secret')];
      expect([apiKey, workspaceKey, workspaceSecret]).toEqual([expect.stringMatching(/^hak_/), expect.stringMatching(/^hwk_/), expect.stringMatching(/^hws_/)]);

      const accounts = new AccountRepository(db);
      const [accountId] = await accounts.firstIds(2);
      expect(await accounts.firstIds(2)).toEqual([accountId]);
      expect(await new ServiceTokenRepository(db).liveToken(hashToken(serviceToken))).toEqual({ id: expect.any(String), accountId, name: 'bootstrap' });
      expect(await db.query(`SELECT token_hint FROM management.service_tokens WHERE account_id = $1`, [accountId])).toEqual([{ token_hint: hint(serviceToken) }]);
      const workspaces = new WorkspaceRepository(db, clock);
      const { workspaces: [workspace] } = await workspaces.list(accountId, { limit: 10, offset: 0 });
      expect(workspace).toMatchObject({ accountId, slug: 'main', name: 'main', mode: 'sandbox', description: '' });
      const scoped = { id: workspace.id, slug: 'main' };
      const { keys: apiKeys } = await new ApiKeyRepository(db, clock).listLive(scoped, { limit: 10, offset: 0 });
      expect(apiKeys).toEqual([expect.objectContaining({ name: 'bootstrap', keyHash: hashToken(apiKey), keyHint: maskedKey(apiKey), expiresAt: null, readOnly: false })]);
      const { keys: workspaceKeys } = await new WorkspaceKeyRepository(db, secretsKey, clock).list(scoped, { limit: 10, offset: 0 });
      expect(workspaceKeys).toEqual([
        expect.objectContaining({ name: 'default', key: workspaceKey, secret: workspaceSecret, isDefault: true, isActive: true, allowedDomains: [] }),
      ]);

      // The keys announced in order (credentials), then the workspace's default categories (a transaction of their own).
      const payloads = await outboxPayloads<CredentialsChanged | DefinitionChanged>(db);
      expect(payloads).toEqual([
        { kind: 'api_key', change: 'created', api_key_id: apiKeys[0].id, workspace_id: workspace.id, workspace_slug: 'main', key_hash: hashToken(apiKey).toString('hex') },
        expect.objectContaining({ kind: 'workspace_key', change: 'created', workspace_key_id: workspaceKeys[0].id, workspace_id: workspace.id, workspace_slug: 'main', key: workspaceKey }),
        expect.objectContaining({ kind: 'category', change: 'committed', workspace_id: workspace.id, version: 1 }),
      ]);
      expect(await db.query(`SELECT email, role FROM management.operators WHERE account_id = $1`, [accountId])).toEqual([{ email: 'owner@example.com', role: 'owner' }]);
      const messages = (): string[] => logged.map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages()).toEqual(['default notification categories created', 'first console owner created from HERALD_BOOTSTRAP_OPERATOR_EMAIL', 'bootstrapped the first account']);

      // A later start with another token wanted: nothing made, nothing printed, the variable named as ignored.
      logged.length = 0;
      await start({ HERALD_BOOTSTRAP_SERVICE_TOKEN: credential('hst') });
      expect(printed).toHaveLength(1);
      expect(await accounts.firstIds(2)).toEqual([accountId]);
      expect((await db.query(`SELECT count(*)::int AS n FROM ${MANAGEMENT_OUTBOX}`))[0]).toEqual({ n: 3 });
      expect(messages()).toEqual(['account already bootstrapped', expect.stringContaining('HERALD_BOOTSTRAP_* variables ignored')]);
      expect(JSON.parse(logged[1])).toMatchObject({ level: 'warn', ignored: 'HERALD_BOOTSTRAP_SERVICE_TOKEN' });
    });
  });
});
