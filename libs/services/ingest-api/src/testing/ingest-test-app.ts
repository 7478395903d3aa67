import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import {
  CREDENTIALS_CHANGED_TYPE,
  CredentialsChanged,
  DEFINITION_CHANGED_TYPE,
  DeadLetterPayload,
  DefinitionChanged,
  Envelope,
  TOPICS,
  TriggerChunkAccepted,
  envelopeOf,
  expandTriggerChunk,
  recipientKey,
} from '@herald/contracts';
import { MessageBus, MessageHeaders, partitionFor } from '@herald/bus';
import {
  SecretBox,
  TestHttpApp,
  ensureHeraldTopics,
  hashToken,
  openTargetBus,
  openTargetDatabase,
  signSdkRequest,
  startTestHttpApp,
} from '@herald/runtime';
import { BusTarget, DatabaseTarget, expectEventually, fetchJson, openApiResponseChecker, uniqueName } from '@herald/testing';
import { ingestApi } from '../ingest-api.module';
import { ingestOpenApi } from '../openapi/ingest-openapi';

const openApiProblems = openApiResponseChecker(ingestOpenApi);

/** The recipient of the triggers that probe whether ingest knows a workflow yet. */
export const PROBE_RECIPIENT = '__probe__';

/** Partitions of the topics the test app creates. */
const TEST_PARTITIONS = 3;
/** Header of the markers `drain` publishes; the readers note them instead of capturing them. */
const MARKER_HEADER = 'herald-test-marker';

/** A message the test read back from a topic. */
export interface Captured<T = unknown> {
  readonly key: string;
  readonly headers: MessageHeaders;
  readonly envelope: Envelope<T>;
  /** For a trigger: the chunk it came in. */
  readonly chunk?: { readonly key: string; readonly headers: MessageHeaders; readonly message_id: string };
}

/** A chunk's recipients as the engine sees them, each with the key it would have had alone. */
function perRecipient(key: string, headers: MessageHeaders, chunk: Envelope<TriggerChunkAccepted>): Captured[] {
  return expandTriggerChunk(chunk).map((envelope) => ({
    key: recipientKey(chunk.workspace_id, envelope.payload.recipient, envelope.message_id),
    headers: { 'message-id': envelope.message_id, 'trigger-message-id': chunk.payload.message_id },
    envelope,
    chunk: { key, headers, message_id: chunk.message_id },
  }));
}

export interface TestWorkspace {
  readonly id: string;
  readonly slug: string;
  readonly apiKey: string;
  readonly workspaceKey: string;
  readonly workspaceSecret: string;
}

export interface IngestTestApp {
  readonly app: TestHttpApp;
  readonly bus: MessageBus;
  /** A workspace whose credentials ingest knows, with the workflows of `withWorkflows`. */
  readonly workspace: TestWorkspace;
  /** A second workspace, to prove nothing crosses workspaces. */
  readonly other: TestWorkspace;
  /**
   * The triggers ingest accepted, one per recipient: each chunk it published, expanded as
   * the engine expands it, with the recipient's own key and the chunk's key and id in
   * `chunk`.
   */
  readonly triggers: Captured[];
  readonly events: Captured[];
  readonly audience: Captured[];
  readonly broadcasts: Captured[];
  readonly deadLetters: DeadLetterPayload[];
  /**
   * Resolves once the readers have read everything published before the call: a marker
   * on every partition of each captured topic, each read only after what was published
   * before it on its partition. How a test proves that nothing more arrives, without a sleep.
   */
  drain(): Promise<void>;
  /** Announces a workflow as management-api would, and waits until ingest knows it. */
  announceWorkflow(workspace: TestWorkspace, slug: string, options?: { enabled?: boolean; change?: DefinitionChanged['change'] }): Promise<void>;
  /** Announces a credentials change as management-api would. */
  announceCredentials(change: CredentialsChanged): Promise<void>;
  /** A request with `Authorization: Bearer <api key>` (the workspace's unless `headers` says otherwise). */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: unknown }>;
  /** A request signed the way the SuprSend SDKs sign. */
  signedCall(method: string, path: string, body: string | undefined, workspace?: TestWorkspace): Promise<{ status: number; body: unknown }>;
  /** A query on the test database (to stage states no request can reach, such as an abandoned claim). */
  sql<T>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * ingest-api on a fresh database of the target and on the bus of the target (the
 * in-process bus, or Kafka under a namespace of its own), fed with credentials and
 * workflows through the same messages management-api publishes, with a reader of
 * everything ingest publishes.
 */
export async function startIngestTestApp(database: DatabaseTarget, busTarget: BusTarget, options: { env?: Record<string, string> } = {}): Promise<IngestTestApp> {
  const secretsKey = randomBytes(32);
  const box = new SecretBox(secretsKey);
  const { url: databaseUrl, dispose } = await openTargetDatabase(database);
  const bus = openTargetBus(busTarget, 'ingest-test');
  await ensureHeraldTopics(bus, TEST_PARTITIONS);
  // Ingest groups a trigger's recipients by partition: tell it how many the topics have.
  const app = await startTestHttpApp(ingestApi, databaseUrl, { bus, secretsKey, env: { HERALD_KAFKA_PARTITIONS: String(TEST_PARTITIONS), ...options.env } });

  const triggers: Captured[] = [];
  const events: Captured[] = [];
  const audience: Captured[] = [];
  const broadcasts: Captured[] = [];
  const deadLetters: DeadLetterPayload[] = [];
  const markersRead = new Set<string>();
  const reader = uniqueName('test-reader');
  const capture = (topic: string, into: Captured[]): Promise<unknown> =>
    bus.subscribe({
      groupId: `${reader}-${topic}`,
      topics: [topic],
      handler: async (message) => {
        const marker = message.headers[MARKER_HEADER];
        if (marker !== undefined) markersRead.add(marker);
        else if (topic === TOPICS.triggerChunkAccepted.name) into.push(...perRecipient(message.key, message.headers, JSON.parse(message.value.toString('utf8')) as Envelope<TriggerChunkAccepted>));
        else into.push({ key: message.key, headers: message.headers, envelope: JSON.parse(message.value.toString('utf8')) as Envelope });
      },
    });
  const captured: Array<[string, Captured[]]> = [
    [TOPICS.triggerChunkAccepted.name, triggers],
    [TOPICS.eventAccepted.name, events],
    [TOPICS.audienceChanged.name, audience],
    [TOPICS.broadcastAccepted.name, broadcasts],
  ];
  for (const [topic, into] of captured) await capture(topic, into);
  const drain = async (): Promise<void> => {
    const markers: string[] = [];
    for (const [topic] of captured) {
      const messages = Array.from({ length: TEST_PARTITIONS }, (_, partition) => {
        const id = randomUUID();
        markers.push(id);
        return { key: keyOnPartition(partition), value: '{}', headers: { [MARKER_HEADER]: id } };
      });
      await bus.publish(topic, messages);
    }
    await expectEventually(() => expect(markers.filter((id) => !markersRead.has(id))).toEqual([]));
  };
  await bus.subscribe({
    groupId: `${reader}-dlt`,
    topics: [TOPICS.deadLetter.name],
    handler: async (message) => {
      deadLetters.push(JSON.parse(message.value.toString('utf8')) as DeadLetterPayload);
    },
  });

  const versions = new Map<string, number>();
  const announceCredentials = async (change: CredentialsChanged): Promise<void> => {
    const id = randomUUID();
    await bus.publish(TOPICS.credentialsChanged.name, [
      { key: change.workspace_id, value: JSON.stringify(envelopeOf(CREDENTIALS_CHANGED_TYPE, 1, id, change.workspace_id, new Date(), change)) },
    ]);
  };
  const createWorkspace = async (slug: string): Promise<TestWorkspace> => {
    const workspace: TestWorkspace = {
      id: randomUUID(),
      slug,
      apiKey: `hak_${randomBytes(24).toString('base64url')}`,
      workspaceKey: `hwk_${randomBytes(16).toString('hex')}`,
      workspaceSecret: `hws_${randomBytes(24).toString('base64url')}`,
    };
    const workspaceKeyId = randomUUID();
    await announceCredentials({
      kind: 'workspace_key',
      change: 'created',
      workspace_key_id: workspaceKeyId,
      workspace_id: workspace.id,
      workspace_slug: slug,
      key: workspace.workspaceKey,
      secret_sealed: box.seal(workspace.workspaceSecret, `workspace_key:${workspaceKeyId}`).toString('base64'),
    });
    // The API key last: the feed applies one workspace's changes in order, so once the API
    // key authenticates, the workspace key (and its SDK signatures) is known too.
    await announceCredentials({
      kind: 'api_key',
      change: 'created',
      api_key_id: randomUUID(),
      workspace_id: workspace.id,
      workspace_slug: slug,
      key_hash: hashToken(workspace.apiKey).toString('hex'),
    });
    return workspace;
  };

  const checked = async (method: string, path: string, response: { status: number; body: unknown }): Promise<{ status: number; body: unknown }> => {
    // Every response a test sees must be what /openapi.json promises.
    const problems = openApiProblems(method, `${app.url}${path}`, response.status, response.body);
    if (problems.length > 0) throw new Error(`response does not match the OpenAPI description:\n${problems.join('\n')}`);
    return response;
  };
  const call: IngestTestApp['call'] = async (method, path, body, headers = {}) =>
    checked(
      method,
      path,
      await fetchJson(`${app.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${workspace.apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );

  const workspace = await createWorkspace('staging');
  const other = await createWorkspace('staging');
  // Ready when both workspaces' API keys authenticate (an empty body is then 400, not 401),
  // and with them their workspace keys, announced before.
  for (const ws of [workspace, other]) {
    await expectEventually(async () => expect((await call('POST', 'trigger/', undefined, { authorization: `Bearer ${ws.apiKey}` })).status).toBe(400));
  }

  return {
    app,
    bus,
    workspace,
    other,
    triggers,
    events,
    audience,
    broadcasts,
    deadLetters,
    drain,
    announceCredentials,
    announceWorkflow: async (ws, slug, { enabled = true, change = 'committed' } = {}) => {
      const versionKey = `${ws.id}/${slug}`;
      const version = (versions.get(versionKey) ?? 0) + 1;
      versions.set(versionKey, version);
      const announcement: DefinitionChanged = {
        kind: 'workflow',
        change,
        workspace_id: ws.id,
        workspace_slug: ws.slug,
        id: slug,
        version,
        document: change === 'deleted' ? undefined : { slug, version_no: version, is_enabled: enabled, hash: 'h', definition: { slug, trigger_type: 'api' } },
      };
      await bus.publish(TOPICS.definitionChanged.name, [
        { key: ws.id, value: JSON.stringify(envelopeOf(DEFINITION_CHANGED_TYPE, 1, randomUUID(), ws.id, new Date(), announcement)) },
      ]);
      // Known once a trigger of it is no longer answered "not found" (or, disabled, "is disabled").
      const expected = change === 'deleted' ? 'not found' : enabled ? undefined : 'is disabled';
      await expectEventually(async () => {
        const probe = await call('POST', 'trigger/', { workflow: slug, recipients: [PROBE_RECIPIENT] }, { authorization: `Bearer ${ws.apiKey}` });
        const message = (probe.body as { message?: string }).message ?? '';
        if (expected === undefined) expect(probe.status).toBe(202);
        else expect(message).toContain(expected);
      });
    },
    call,
    signedCall: (method, path, body, ws = workspace) => {
      const contentType = 'application/json; charset=utf-8';
      const date = new Date().toUTCString();
      const requestUri = new URL(`${app.url}${path}`).pathname + new URL(`${app.url}${path}`).search;
      const authorization = signSdkRequest(
        { method, requestUri, contentType, date, body: body === undefined ? undefined : Buffer.from(body, 'utf8') },
        ws.workspaceKey,
        ws.workspaceSecret,
      );
      return fetchJson(`${app.url}${path}`, { method, headers: { authorization, date, 'content-type': contentType }, body }).then((r) => checked(method, path, r));
    },
    sql: async <T>(text: string, params: unknown[] = []): Promise<T[]> => {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return (await client.query(text, params)).rows as T[];
      } finally {
        await client.end();
      }
    },
    close: async () => {
      await app.close();
      await bus.close();
      await dispose();
    },
  };
}

/** A key the partitioner (the same for Kafka and the in-process bus) puts on this partition. */
function keyOnPartition(partition: number): string {
  for (let n = 0; ; n++) if (partitionFor('', `marker-${n}`, TEST_PARTITIONS) === partition) return `marker-${n}`;
}
