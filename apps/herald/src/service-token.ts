import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EmbeddedPostgres, createServiceDataSource } from '@herald/database';
import { AccountRepository, MANAGEMENT_ENTITIES, ServiceTokenRepository, WorkspaceRepository } from '@herald/management-api';
import { generateCredential, hashToken, loadHeraldConfig, systemClock } from '@herald/runtime';
import { lockDataDir } from './data-dir';

export interface MintedServiceToken {
  readonly token: string;
  readonly accountId: string;
  readonly name: string;
}

/** What `service-token create` can be told. */
export interface MintOptions {
  /** Shown in the token list; default `cli-<date>`. */
  readonly name?: string;
  /** The account whose workspace has this slug (needed only when the database holds several accounts). */
  readonly workspace?: string;
}

/**
 * Mints a new service token for an existing installation: the way back in when the
 * token printed on the first start is lost (only its hash is stored). It writes to
 * management's own table, in the database the services use: HERALD_DATABASE_URL, or the
 * embedded PGlite under HERALD_DATA_DIR (Herald must be stopped: PGlite has one owner).
 */
export async function mintServiceToken(env: NodeJS.ProcessEnv, options: MintOptions = {}): Promise<MintedServiceToken> {
  const config = loadHeraldConfig(env);
  let unlock: (() => void) | undefined;
  let embedded: EmbeddedPostgres | undefined;
  let url = config.databaseUrl;
  if (!url) {
    const pgdata = join(config.dataDir, 'pgdata');
    if (!existsSync(pgdata)) throw new Error(`no Herald data in ${config.dataDir}: start Herald once (npm start), or set HERALD_DATA_DIR or HERALD_DATABASE_URL`);
    unlock = lockDataDir(config.dataDir);
    embedded = await EmbeddedPostgres.start({ dataDir: pgdata });
    url = embedded.url;
  }
  // Management's tables only, never migrated here (the services migrate their schemas).
  const db = createServiceDataSource({ url, schema: 'management', migrations: [], entities: MANAGEMENT_ENTITIES, poolSize: 1, applicationName: 'herald-cli' });
  try {
    await db.initialize();
    const tokens = new ServiceTokenRepository(db);
    const accountId = await accountOf(tokens, new AccountRepository(db), new WorkspaceRepository(db, systemClock), options.workspace);
    const token = generateCredential('hst');
    const name = options.name ?? `cli-${new Date().toISOString().slice(0, 10)}`;
    await tokens.create({ accountId, name, tokenHash: hashToken(token), tokenHint: `${token.slice(0, 6)}…${token.slice(-4)}` });
    return { token, accountId, name };
  } finally {
    if (db.isInitialized) await db.destroy().catch(() => undefined);
    await embedded?.stop();
    unlock?.();
  }
}

async function accountOf(tokens: ServiceTokenRepository, accounts: AccountRepository, workspaces: WorkspaceRepository, workspace: string | undefined): Promise<string> {
  if (!(await tokens.tableExists())) throw new Error('this database has no Herald account yet: start Herald (or management-api) once, it creates the first account');
  if (workspace !== undefined) {
    const owners = await workspaces.accountsWithSlug(workspace);
    if (owners.length === 0) throw new Error(`no workspace '${workspace}'`);
    if (owners.length > 1) throw new Error(`several accounts have a workspace '${workspace}'`);
    return owners[0];
  }
  const ids = await accounts.firstIds(2);
  if (ids.length === 0) throw new Error('this database has no Herald account yet: start Herald (or management-api) once, it creates the first account');
  if (ids.length > 1) throw new Error('this database holds several accounts: name one of its workspaces with --workspace <slug>');
  return ids[0];
}
