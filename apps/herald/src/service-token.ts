import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { EmbeddedPostgres } from '@herald/database';
import { generateCredential, hashToken, loadHeraldConfig } from '@herald/runtime';
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
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    const accountId = await accountOf(client, options.workspace);
    const token = generateCredential('hst');
    const name = options.name ?? `cli-${new Date().toISOString().slice(0, 10)}`;
    await client.query(`INSERT INTO management.service_tokens (id, account_id, name, token_hash, token_hint) VALUES ($1, $2, $3, $4, $5)`, [
      randomUUID(),
      accountId,
      name,
      hashToken(token),
      `${token.slice(0, 6)}…${token.slice(-4)}`,
    ]);
    return { token, accountId, name };
  } finally {
    await client.end().catch(() => undefined);
    await embedded?.stop();
    unlock?.();
  }
}

async function accountOf(client: Client, workspace: string | undefined): Promise<string> {
  const schema = await client.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = 'management' AND table_name = 'service_tokens'`);
  if (schema.rowCount === 0) throw new Error('this database has no Herald account yet: start Herald (or management-api) once, it creates the first account');
  if (workspace !== undefined) {
    const { rows } = await client.query<{ account_id: string }>(`SELECT account_id FROM management.workspaces WHERE slug = $1`, [workspace]);
    if (rows.length === 0) throw new Error(`no workspace '${workspace}'`);
    if (rows.length > 1) throw new Error(`several accounts have a workspace '${workspace}'`);
    return rows[0].account_id;
  }
  const { rows } = await client.query<{ id: string }>(`SELECT id FROM management.accounts ORDER BY id LIMIT 2`);
  if (rows.length === 0) throw new Error('this database has no Herald account yet: start Herald (or management-api) once, it creates the first account');
  if (rows.length > 1) throw new Error('this database holds several accounts: name one of its workspaces with --workspace <slug>');
  return rows[0].id;
}
