import { randomBytes, randomUUID } from 'node:crypto';
import {
  CREDENTIALS_CHANGED_TYPE,
  Channel,
  DEFINITION_CHANGED_TYPE,
  DELIVERY_REQUESTED_TYPE,
  DefinitionChanged,
  DeliveryOutcome,
  DeliveryRequested,
  Envelope,
  TOPICS,
  deliveryTopic,
  envelopeOf,
} from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { SecretBox, ServiceDefinition, TestHttpApp, ensureHeraldTopics, hashToken, openTargetBus, openTargetDatabase, startTestHttpApp } from '@herald/runtime';
import { BusTarget, DatabaseTarget, expectEventually, fetchJson, openApiResponseChecker, uniqueName } from '@herald/testing';
import { ChannelDispatchersModule, VendorCallbackOptions, channelDispatchers } from '../channel-dispatchers.module';
import { DispatchOptions } from '../dispatch/dispatch-options';
import { dispatchOpenApi } from '../openapi/dispatch-openapi';

const openApiProblems = openApiResponseChecker(dispatchOpenApi);

export interface DispatchTestApp {
  readonly app: TestHttpApp;
  readonly bus: MessageBus;
  readonly workspaceId: string;
  readonly apiKey: string;
  /** Every outcome published on `notify.delivery.outcome.v1`, with its key. */
  readonly outcomes: Array<{ key: string; envelope: Envelope<DeliveryOutcome> }>;
  /** Announces a vendor as management-api does (credentials sealed with `vendor:<id>`) and waits until the read model has it; resolves with its id. */
  announceVendor(channel: Channel, vendor: string, options: VendorAnnouncement): Promise<string>;
  /** Announces a workspace key and its secret as management-api does (sealed with `workspace_key:<id>`), for this workspace or `workspaceId`. */
  announceWorkspaceKey(key: string, secret: string, workspaceId?: string): Promise<void>;
  /** Announces the workspace's live translation files as management-api does on commit, and waits until the read model has them. */
  announceTranslations(files: ReadonlyArray<{ locale: string; namespace?: string | null; content: Record<string, string> }>): Promise<void>;
  /**
   * Publishes a delivery command as the engine's outbox relay would (same message-id on every
   * republish), on its channel's topic unless `onTopicOf` names another channel (a misrouted command).
   */
  publishCommand(command: DeliveryRequested, onTopicOf?: Channel): Promise<void>;
  /** The one outcome of a delivery, once published. */
  outcomeOf(deliveryId: string): Promise<{ key: string; envelope: Envelope<DeliveryOutcome> }>;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** A query on the test database, to stage states no message can reach (a claim abandoned by a crash). */
  sql(text: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  /** The test database's URL, for a connection of the test's own (a session that holds a lock). */
  readonly databaseUrl: string;
  /** Shuts the service down as SIGTERM does, keeping the database and the bus for the test to read. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export interface VendorAnnouncement {
  readonly credentials: Record<string, unknown>;
  readonly priority?: number;
  readonly baseUrl?: string | null;
  readonly settings?: Record<string, unknown>;
  readonly enabled?: boolean;
}

/** Retries fast enough for a test. */
const TEST_OPTIONS: Partial<DispatchOptions> = { initialRetryDelayMs: 100, maxRetryDelayMs: 400, maxAttempts: 3, pollIntervalMs: 50, leaseMs: 60_000 };

/**
 * channel-dispatchers on a fresh database and bus of the target, fed with an API key and
 * vendors through the messages management-api publishes, with a reader of the outcomes.
 */
export async function startDispatchTestApp(
  database: DatabaseTarget,
  busTarget: BusTarget,
  options: Partial<DispatchOptions> = {},
  callbacks: VendorCallbackOptions = {},
): Promise<DispatchTestApp> {
  const secretsKey = randomBytes(32);
  const box = new SecretBox(secretsKey);
  const { url: databaseUrl, dispose } = await openTargetDatabase(database);
  const bus = openTargetBus(busTarget, 'dispatch-test');
  await ensureHeraldTopics(bus, 3);
  const service: ServiceDefinition = { ...channelDispatchers, module: () => ChannelDispatchersModule.register({ ...TEST_OPTIONS, ...options }, {}, callbacks) };
  // The vendors of these tests are local servers, which the outbound address rule refuses unless allowed.
  const app = await startTestHttpApp(service, databaseUrl, { bus, secretsKey, env: { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' } });
  const workspaceId = randomUUID();
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;

  const outcomes: DispatchTestApp['outcomes'] = [];
  await bus.subscribe({
    groupId: uniqueName('test-outcomes'),
    topics: [TOPICS.deliveryOutcome.name],
    handler: async (message) => {
      outcomes.push({ key: message.key, envelope: JSON.parse(message.value.toString('utf8')) as Envelope<DeliveryOutcome> });
    },
  });

  const versions = new Map<string, number>();
  let stopped: Promise<void> | undefined;
  const publishEnvelope = (topic: string, key: string, messageId: string, type: string, payload: unknown) =>
    bus.publish(topic, [{ key, value: JSON.stringify(envelopeOf(type, 1, messageId, workspaceId, new Date(), payload)), headers: { 'message-id': messageId } }]);

  await publishEnvelope(TOPICS.credentialsChanged.name, workspaceId, randomUUID(), CREDENTIALS_CHANGED_TYPE, {
    kind: 'api_key',
    change: 'created',
    api_key_id: randomUUID(),
    workspace_id: workspaceId,
    workspace_slug: 'staging',
    key_hash: hashToken(apiKey).toString('hex'),
  });

  const call: DispatchTestApp['call'] = async (method, path, body) => {
    const response = await fetchJson(`${app.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // Every inbox answer a test sees must be what the OpenAPI fragment describes.
    const problems = openApiProblems(method, `${app.url}${path}`, response.status, response.body);
    if (problems.length > 0) throw new Error(`response does not match the OpenAPI description:\n${problems.join('\n')}`);
    return response;
  };
  // Ready when the API key authenticates.
  await expectEventually(async () => expect((await call('GET', 'v1/user/probe/inbox/')).status).toBe(200));

  return {
    app,
    bus,
    workspaceId,
    apiKey,
    outcomes,
    announceVendor: async (channel, vendor, options) => {
      const id = `${channel}/${vendor}`;
      const version = (versions.get(id) ?? 0) + 1;
      versions.set(id, version);
      const vendorId = randomUUID();
      const announcement: DefinitionChanged = {
        kind: 'vendor',
        change: 'upserted',
        workspace_id: workspaceId,
        workspace_slug: 'staging',
        id,
        version,
        document: {
          id: vendorId,
          channel,
          vendor,
          is_enabled: options.enabled ?? true,
          priority: options.priority ?? 1,
          base_url: options.baseUrl ?? null,
          settings: options.settings ?? {},
          credentials_sealed: box.seal(JSON.stringify(options.credentials), `vendor:${vendorId}`).toString('base64'),
          version,
        },
      };
      await publishEnvelope(TOPICS.definitionChanged.name, workspaceId, randomUUID(), DEFINITION_CHANGED_TYPE, announcement);
      // The read model applies it on its consumer; the announcement is visible in the table first.
      await expectEventually(async () => {
        const rows = await queryDatabase(databaseUrl, `SELECT version FROM dispatch.vendors WHERE workspace_id = $1 AND channel = $2 AND vendor = $3`, [
          workspaceId,
          channel,
          vendor,
        ]);
        expect(rows[0]?.version).toBe(version);
      });
      // The read model caches per workspace and channel; the consumer cleared it on apply.
      return vendorId;
    },
    announceWorkspaceKey: async (key, secret, ofWorkspace = workspaceId) => {
      const workspaceKeyId = randomUUID();
      const sealed = box.seal(secret, `workspace_key:${workspaceKeyId}`).toString('base64');
      const change = { kind: 'workspace_key', change: 'created', workspace_key_id: workspaceKeyId, workspace_id: ofWorkspace, workspace_slug: 'staging', key, secret_sealed: sealed };
      const messageId = randomUUID();
      await bus.publish(TOPICS.credentialsChanged.name, [
        { key: ofWorkspace, value: JSON.stringify(envelopeOf(CREDENTIALS_CHANGED_TYPE, 1, messageId, ofWorkspace, new Date(), change)), headers: { 'message-id': messageId } },
      ]);
    },
    announceTranslations: async (files) => {
      const version = (versions.get('translations') ?? 0) + 1;
      versions.set('translations', version);
      const document = { version_no: version, files: files.map((file) => ({ filename: `${file.locale}.json`, namespace: null, ...file })) };
      const announcement: DefinitionChanged = { kind: 'translation', change: 'committed', workspace_id: workspaceId, workspace_slug: 'staging', id: 'translations', version, document };
      await publishEnvelope(TOPICS.definitionChanged.name, workspaceId, randomUUID(), DEFINITION_CHANGED_TYPE, announcement);
      await expectEventually(async () => {
        const rows = await queryDatabase(databaseUrl, `SELECT version FROM dispatch.translations WHERE workspace_id = $1`, [workspaceId]);
        expect(rows[0]?.version).toBe(version);
      });
    },
    publishCommand: (command, onTopicOf = command.channel) =>
      publishEnvelope(deliveryTopic(onTopicOf).name, `${workspaceId}:${command.recipient.distinct_id ?? ''}`, `cmd-${command.delivery_id}`, DELIVERY_REQUESTED_TYPE, command),
    outcomeOf: (deliveryId) =>
      expectEventually(() => {
        // The final outcome: `retrying` reports of failed attempts come before it.
        const found = outcomes.filter((outcome) => outcome.envelope.payload.delivery_id === deliveryId && outcome.envelope.payload.status !== 'retrying');
        expect(found).toHaveLength(1);
        return found[0];
      }),
    call,
    sql: (text, params = []) => queryDatabase(databaseUrl, text, params),
    databaseUrl,
    stop: async () => {
      stopped ??= app.close();
      await stopped;
    },
    close: async () => {
      stopped ??= app.close();
      await stopped;
      await bus.close();
      await dispose();
    },
  };
}

/** A delivery command as the engine builds it. */
export function deliveryCommand(channel: Channel, content: Record<string, unknown>, identities: unknown[], overrides: Partial<DeliveryRequested> = {}): DeliveryRequested {
  return {
    delivery_id: randomUUID(),
    run_id: randomUUID(),
    message_id: randomUUID(),
    workspace_slug: 'staging',
    workflow: { slug: 'welcome', version: 1 },
    node_name: `send_${channel}`,
    channel,
    recipient: { kind: 'user', distinct_id: 'user-1' },
    destination: { identities },
    template: { slug: 'welcome', variant_id: 'v1', content },
    render_data: { name: 'Ada', $recipient: { distinct_id: 'user-1' } },
    attachments: [],
    requested_at: new Date().toISOString(),
    ...overrides,
  };
}

async function queryDatabase(url: string, text: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as Array<Record<string, unknown>>;
  } finally {
    await client.end();
  }
}
