import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { CredentialsChanged, DefinitionChanged, ParseResult, TOPICS, parseCredentialsChanged, parseDefinitionChanged, parseEnvelope } from '@herald/contracts';
import { EmbeddedPostgres } from '@herald/database';
import { ServiceDefinition, TestHttpApp, hashToken, startTestHttpApp } from '@herald/runtime';
import { DatabaseTarget, createTemporaryDatabase, fetchJson } from '@herald/testing';
import { managementApi } from '../management-api.module';
import { openApiProblems } from './openapi-response-check';

/** What every management endpoint answers to a wrong service token (interface 7, decisions.md). */
export const INVALID_SERVICE_TOKEN = {
  status: 401,
  body: {
    code: 401,
    error_code: 'authentication_failed',
    type: 'AuthenticationFailed',
    message: 'invalid service token',
    detail: 'invalid service token',
  },
} as const;

export interface ManagementTestApp {
  readonly app: TestHttpApp;
  /** A service token of the bootstrapped account (workspace `staging`). */
  readonly token: string;
  /** A service token of a second account, which also has a workspace `staging`. */
  readonly otherToken: string;
  /** Every definition.changed message published so far. */
  readonly definitions: DefinitionChanged[];
  /** Every credentials.changed message published so far. */
  readonly credentials: CredentialsChanged[];
  call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: unknown }>;
  sql<T>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * management-api on a fresh database of the target (embedded PGlite, or a
 * temporary database on the configured Postgres), with a second account to prove
 * that nothing crosses accounts, and a reader of the definitions it publishes.
 */
export async function startManagementTestApp(
  target: DatabaseTarget,
  overrides: { readonly service?: ServiceDefinition; readonly env?: Record<string, string> } = {},
): Promise<ManagementTestApp> {
  const token = `hst_${randomBytes(24).toString('base64url')}`;
  const otherToken = `hst_${randomBytes(24).toString('base64url')}`;
  let databaseUrl: string;
  let dispose: () => Promise<void>;
  if (target.kind === 'embedded') {
    const embedded = await EmbeddedPostgres.start();
    databaseUrl = embedded.url;
    dispose = () => embedded.stop();
  } else {
    const database = await createTemporaryDatabase(target.url);
    databaseUrl = database.url;
    dispose = () => database.drop();
  }
  const app = await startTestHttpApp(overrides.service ?? managementApi, databaseUrl, {
    env: { HERALD_BOOTSTRAP_SERVICE_TOKEN: token, HERALD_COMMIT_VISIBILITY_TIMEOUT_MS: '0', ...overrides.env },
  });

  const sql = async <T>(text: string, params: unknown[] = []): Promise<T[]> => {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  };

  const definitions: DefinitionChanged[] = [];
  const credentials: CredentialsChanged[] = [];
  await collect(app, TOPICS.definitionChanged.name, parseDefinitionChanged, definitions);
  await collect(app, TOPICS.credentialsChanged.name, parseCredentialsChanged, credentials);

  const otherAccount = randomUUID();
  await sql(`INSERT INTO management.accounts (id, name) VALUES ($1, 'other')`, [otherAccount]);
  await sql(`INSERT INTO management.service_tokens (id, account_id, name, token_hash, token_hint) VALUES ($1, $2, 'other', $3, 'x')`, [
    randomUUID(),
    otherAccount,
    hashToken(otherToken),
  ]);
  await sql(`INSERT INTO management.workspaces (id, account_id, slug, name) VALUES ($1, $2, 'staging', 'other staging')`, [
    randomUUID(),
    otherAccount,
  ]);

  return {
    app,
    token,
    otherToken,
    definitions,
    credentials,
    sql,
    call: async (method, path, body, bearer = token) => {
      const response = await fetchJson(`${app.url}${path}`, {
        method,
        headers: { authorization: `ServiceToken ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      // Every response a test sees must be what the OpenAPI description promises.
      const problems = openApiProblems(method, `${app.url}${path}`, response.status, response.body);
      if (problems.length > 0) throw new Error(`response does not match the OpenAPI description:\n${problems.join('\n')}`);
      return response;
    },
    close: async () => {
      await app.close();
      await dispose();
    },
  };
}

/** Reads what management publishes on a topic; an invalid message fails loudly. */
async function collect<T>(app: TestHttpApp, topic: string, parse: (payload: unknown) => ParseResult<T>, into: T[]): Promise<void> {
  await app.bus.subscribe({
    groupId: `test-reader-${topic}`,
    topics: [topic],
    handler: async (message) => {
      const envelope = parseEnvelope(message.value);
      const payload = envelope.ok ? parse(envelope.value.payload) : undefined;
      if (!payload?.ok) throw new Error(`management published an invalid message on ${topic}: ${message.value.toString()}`);
      into.push(payload.value);
    },
  });
}
