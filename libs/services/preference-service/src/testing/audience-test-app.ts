import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import {
  AUDIENCE_CHANGED_TYPE,
  AudienceChanged,
  CREDENTIALS_CHANGED_TYPE,
  CredentialsChanged,
  DEFINITION_CHANGED_TYPE,
  DefinitionChanged,
  TOPICS,
  envelopeOf,
  parseAudienceChanged,
  parseEnvelope,
} from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { SecretBox, TestHttpApp, ensureHeraldTopics, hashToken, signSdkRequest, openTargetBus, openTargetDatabase, startTestHttpApp } from '@herald/runtime';
import { BusTarget, DatabaseTarget, expectEventually, fetchJson, openApiResponseChecker, uniqueName } from '@herald/testing';
import { audienceOpenApi } from '../openapi/audience-openapi';
import { BroadcastFanOutOptions } from '../broadcasts/broadcast-fan-out';
import { PreferenceServiceModule, preferenceService } from '../preference-service.module';

const openApiProblems = openApiResponseChecker(audienceOpenApi);

export interface TestWorkspace {
  readonly id: string;
  readonly slug: string;
  readonly apiKey: string;
  readonly workspaceKey: string;
  readonly workspaceSecret: string;
}

export interface Response {
  readonly status: number;
  readonly body: unknown;
}

export interface AudienceTestApp {
  readonly app: TestHttpApp;
  /** The key the service seals and reads links with (an email's List-Unsubscribe link). */
  readonly secretsKey: Buffer;
  readonly bus: MessageBus;
  readonly workspace: TestWorkspace;
  /** A second workspace, to prove nothing crosses workspaces. */
  readonly other: TestWorkspace;
  /** Every audience change published so far, with its key. */
  readonly changes: Array<{ key: string; change: AudienceChanged }>;
  /** Announces the live category document as management-api would, and waits until it is applied. */
  announceCategories(workspace: TestWorkspace, document: unknown): Promise<void>;
  /** Publishes an audience change as ingest-api would (inline profiles). */
  publishAudience(workspace: TestWorkspace, key: string, change: AudienceChanged): Promise<void>;
  /** A request with `Authorization: Bearer <api key>` of `workspace` (default the first); every response is checked against the OpenAPI fragment. */
  call(method: string, path: string, body?: unknown, workspace?: TestWorkspace): Promise<Response>;
  /** A request signed the way the SuprSend SDKs sign. */
  signedCall(method: string, path: string, body: string | undefined, workspace?: TestWorkspace): Promise<Response>;
  sql<T>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * preference-service on a fresh database of the target and the target's bus (Kafka
 * under a namespace of its own), fed with credentials and categories through the
 * messages management-api publishes, with a reader of what it publishes.
 */
export async function startAudienceTestApp(
  database: DatabaseTarget,
  busTarget: BusTarget,
  options: { readonly fanOut?: Partial<BroadcastFanOutOptions> } = {},
): Promise<AudienceTestApp> {
  const secretsKey = randomBytes(32);
  const box = new SecretBox(secretsKey);
  const { url: databaseUrl, dispose } = await openTargetDatabase(database);
  const bus = openTargetBus(busTarget, 'audience-test');
  await ensureHeraldTopics(bus, 3);
  const service = options.fanOut ? { ...preferenceService, module: () => PreferenceServiceModule.register(options.fanOut) } : preferenceService;
  const app = await startTestHttpApp(service, databaseUrl, { bus, secretsKey });

  const changes: AudienceTestApp['changes'] = [];
  await bus.subscribe({
    groupId: uniqueName('test-reader-audience'),
    topics: [TOPICS.audienceChanged.name],
    handler: async (message) => {
      const envelope = parseEnvelope(message.value);
      const payload = envelope.ok ? parseAudienceChanged(envelope.value.payload) : undefined;
      if (!payload?.ok) throw new Error(`invalid message on ${TOPICS.audienceChanged.name}: ${message.value.toString()}`);
      changes.push({ key: message.key, change: payload.value });
    },
  });

  const publish = async (topic: string, type: string, workspaceId: string, key: string, payload: unknown): Promise<void> => {
    await bus.publish(topic, [{ key, value: JSON.stringify(envelopeOf(type, 1, randomUUID(), workspaceId, new Date(), payload)) }]);
  };
  const announceCredentials = (change: CredentialsChanged): Promise<void> => publish(TOPICS.credentialsChanged.name, CREDENTIALS_CHANGED_TYPE, change.workspace_id, change.workspace_id, change);
  const createWorkspace = async (): Promise<TestWorkspace> => {
    const ws: TestWorkspace = {
      id: randomUUID(),
      slug: 'staging',
      apiKey: `hak_${randomBytes(24).toString('base64url')}`,
      workspaceKey: `hwk_${randomBytes(16).toString('hex')}`,
      workspaceSecret: `hws_${randomBytes(24).toString('base64url')}`,
    };
    const workspaceKeyId = randomUUID();
    await announceCredentials({
      kind: 'workspace_key',
      change: 'created',
      workspace_key_id: workspaceKeyId,
      workspace_id: ws.id,
      workspace_slug: ws.slug,
      key: ws.workspaceKey,
      secret_sealed: box.seal(ws.workspaceSecret, `workspace_key:${workspaceKeyId}`).toString('base64'),
    });
    // The API key last: the feed applies one workspace's changes in order, so once the API
    // key authenticates, the workspace key (and its SDK signatures) is known too.
    await announceCredentials({ kind: 'api_key', change: 'created', api_key_id: randomUUID(), workspace_id: ws.id, workspace_slug: ws.slug, key_hash: hashToken(ws.apiKey).toString('hex') });
    return ws;
  };

  const checked = (method: string, path: string, response: Response): Response => {
    // Every response a test sees must be what the OpenAPI fragment promises.
    const problems = openApiProblems(method, `${app.url}${path}`, response.status, response.body);
    if (problems.length > 0) throw new Error(`response does not match the OpenAPI description:\n${problems.join('\n')}`);
    return response;
  };
  const workspace = await createWorkspace();
  const other = await createWorkspace();
  const call: AudienceTestApp['call'] = async (method, path, body, ws = workspace) =>
    checked(
      method,
      path,
      await fetchJson(`${app.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${ws.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  // Ready when both API keys authenticate (an unknown tenant is then 404, not 401), and with
  // them the workspace keys announced before.
  for (const ws of [workspace, other]) await expectEventually(async () => expect((await call('GET', 'v1/tenant/__probe__/', undefined, ws)).status).toBe(404));

  const versions = new Map<string, number>();
  return {
    app,
    secretsKey,
    bus,
    workspace,
    other,
    changes,
    announceCategories: async (ws, document) => {
      const version = (versions.get(ws.id) ?? 0) + 1;
      versions.set(ws.id, version);
      const change: DefinitionChanged = { kind: 'category', change: 'committed', workspace_id: ws.id, workspace_slug: ws.slug, id: 'categories', version, document };
      await publish(TOPICS.definitionChanged.name, DEFINITION_CHANGED_TYPE, ws.id, ws.id, change);
      await expectEventually(async () => {
        const rows = await sqlOn<{ version: number }>(databaseUrl, `SELECT version FROM audience.category_documents WHERE workspace_id = $1`, [ws.id]);
        expect(rows[0]?.version).toBe(version);
      });
    },
    publishAudience: (ws, key, change) => publish(TOPICS.audienceChanged.name, AUDIENCE_CHANGED_TYPE, ws.id, key, change),
    call,
    signedCall: async (method, path, body, ws = workspace) => {
      const contentType = 'application/json; charset=utf-8';
      const date = new Date().toUTCString();
      const url = new URL(`${app.url}${path}`);
      const authorization = signSdkRequest(
        { method, requestUri: url.pathname + url.search, contentType, date, body: body === undefined ? undefined : Buffer.from(body, 'utf8') },
        ws.workspaceKey,
        ws.workspaceSecret,
      );
      return checked(method, path, await fetchJson(url.toString(), { method, headers: { authorization, date, 'content-type': contentType }, body }));
    },
    sql: <T>(text: string, params: unknown[] = []) => sqlOn<T>(databaseUrl, text, params),
    close: async () => {
      await app.close();
      await bus.close();
      await dispose();
    },
  };
}

async function sqlOn<T>(databaseUrl: string, text: string, params: unknown[]): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}
