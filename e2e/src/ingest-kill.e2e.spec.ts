import { randomBytes, randomUUID } from 'node:crypto';
import {
  CREDENTIALS_CHANGED_TYPE,
  CredentialsChanged,
  DEFINITION_CHANGED_TYPE,
  DefinitionChanged,
  Envelope,
  TOPICS,
  TriggerChunkAccepted,
  envelopeOf,
  expandTriggerChunk,
  parseEnvelope,
} from '@herald/contracts';
import { KafkaBus, MessageBus, NamespacedBus } from '@herald/bus';
import { SecretBox, ensureHeraldTopics, hashToken } from '@herald/runtime';
import {
  RunningProcess,
  createTemporaryDatabase,
  expectEventually,
  fetchJson,
  freePort,
  heraldEnv,
  startNodeEntrypoint,
  testInfrastructure,
  uniqueName,
  waitUntilReady,
} from '@herald/testing';

const infra = testInfrastructure();
const distributed = infra.kafkaBrokers && infra.databaseUrl ? describe : describe.skip;

const KILLS = 4;
const CONCURRENCY = 24;

type Outcome =
  | { readonly kind: 'accepted'; readonly messageId: string }
  | { readonly kind: 'refused'; readonly status: number }
  | { readonly kind: 'dropped'; readonly error: string };

/**
 * ingest-api killed with SIGKILL while requests are in flight, again and again, on the
 * real broker and Postgres. A 2xx means the trigger is in Kafka; an HTTP error means it
 * is not; a dropped connection is the one outcome a client cannot know, and a retry
 * with the same $idempotency_key settles it without a second trigger.
 */
distributed('ingest-api killed while requests are in flight', () => {
  const namespace = uniqueName('kill');
  const secretsKey = randomBytes(32);
  const workspaceId = randomUUID();
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  let bus: MessageBus;
  let databaseUrl: string;
  let dropDatabase: () => Promise<void>;
  let port: number;
  let ingest: RunningProcess | undefined;

  const start = async (): Promise<void> => {
    ingest = startNodeEntrypoint(
      'ingest-api',
      'apps/ingest-api/src/main.ts',
      heraldEnv({
        HERALD_KAFKA_BROKERS: (infra.kafkaBrokers as readonly string[]).join(','),
        HERALD_KAFKA_NAMESPACE: namespace,
        HERALD_DATABASE_URL: databaseUrl,
        HERALD_SECRETS_KEY: secretsKey.toString('base64'),
        HERALD_PORT: String(port),
        HERALD_LOG_LEVEL: 'warn',
      }),
    );
    await waitUntilReady(ingest, `http://127.0.0.1:${port}/`);
  };

  const trigger = async (recipient: string): Promise<Outcome> => {
    try {
      const response = await fetchJson(`http://127.0.0.1:${port}/trigger/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workflow: 'kill-test', recipients: [recipient], $idempotency_key: `key-${recipient}` }),
        signal: AbortSignal.timeout(15_000),
      });
      if (response.status === 202) return { kind: 'accepted', messageId: (response.body as { message_id: string }).message_id };
      return { kind: 'refused', status: response.status };
    } catch (error) {
      return { kind: 'dropped', error: (error as Error).message };
    }
  };

  beforeAll(async () => {
    const database = await createTemporaryDatabase(infra.databaseUrl as string);
    databaseUrl = database.url;
    dropDatabase = () => database.drop();
    port = await freePort();
    bus = new NamespacedBus(new KafkaBus({ brokers: infra.kafkaBrokers as readonly string[], clientId: namespace }), namespace);
    await ensureHeraldTopics(bus, 6);
    // What management-api would announce: an API key and a live workflow.
    const credentials: CredentialsChanged = {
      kind: 'api_key',
      change: 'created',
      api_key_id: randomUUID(),
      workspace_id: workspaceId,
      workspace_slug: 'staging',
      key_hash: hashToken(apiKey).toString('hex'),
    };
    const workflow: DefinitionChanged = {
      kind: 'workflow',
      change: 'committed',
      workspace_id: workspaceId,
      workspace_slug: 'staging',
      id: 'kill-test',
      version: 1,
      document: { slug: 'kill-test', is_enabled: true, definition: { trigger_type: 'api' } },
    };
    await bus.publish(TOPICS.credentialsChanged.name, [
      { key: workspaceId, value: JSON.stringify(envelopeOf(CREDENTIALS_CHANGED_TYPE, 1, randomUUID(), workspaceId, new Date(), credentials)) },
    ]);
    await bus.publish(TOPICS.definitionChanged.name, [
      { key: workspaceId, value: JSON.stringify(envelopeOf(DEFINITION_CHANGED_TYPE, 1, randomUUID(), workspaceId, new Date(), workflow)) },
    ]);
    void new SecretBox(secretsKey); // the same key every service of an installation shares
    await start();
    await expectEventually(async () => expect((await trigger('warm-up')).kind).toBe('accepted'), { timeoutMs: 30_000 });
  });

  afterAll(async () => {
    await ingest?.stop('SIGKILL');
    await bus?.close();
    await dropDatabase?.();
  });

  it(`keeps every 2xx and nothing else over ${KILLS} kills, and a retry settles every dropped request once`, async () => {
    const outcomes = new Map<string, Outcome>();
    let next = 0;
    for (let round = 0; round < KILLS; round += 1) {
      let firing = true;
      const workers = Array.from({ length: CONCURRENCY }, async () => {
        while (firing) {
          const recipient = `r-${round}-${(next += 1)}`;
          const outcome = await trigger(recipient);
          outcomes.set(recipient, outcome);
          if (outcome.kind === 'dropped') break; // the process is gone
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 800 + round * 150));
      await ingest?.stop('SIGKILL');
      firing = false;
      await Promise.all(workers);
      process.stdout.write(`ingest kill test: round ${round + 1}/${KILLS} killed after ${outcomes.size} requests; restarting\n`);
      await start();
    }

    const all = [...outcomes.entries()];
    const accepted = all.filter(([, o]) => o.kind === 'accepted');
    const refused = all.filter(([, o]) => o.kind === 'refused');
    const dropped = all.filter(([, o]) => o.kind === 'dropped');
    expect(accepted.length).toBeGreaterThan(100);
    expect(dropped.length).toBeGreaterThan(0);

    // Retrying a dropped request with its key: either the first attempt's id, or a first acceptance now.
    const retried = new Map<string, string>();
    await Promise.all(
      dropped.map(async ([recipient]) => {
        const outcome = await trigger(recipient);
        expect([recipient, outcome.kind]).toEqual([recipient, 'accepted']);
        retried.set(recipient, (outcome as { messageId: string }).messageId);
      }),
    );

    const inKafka = new Map<string, Set<string>>();
    const reader = await bus.subscribe({
      groupId: uniqueName('kill-reader'),
      topics: [TOPICS.triggerChunkAccepted.name],
      handler: async (message) => {
        const envelope = parseEnvelope(message.value);
        if (!envelope.ok) return;
        for (const { payload } of expandTriggerChunk(envelope.value as Envelope<TriggerChunkAccepted>)) {
          const recipient = payload.recipient.kind === 'user' ? (payload.recipient.distinct_id as string) : '';
          inKafka.set(recipient, (inKafka.get(recipient) ?? new Set()).add(payload.message_id));
        }
      },
    });
    try {
      await expectEventually(() => {
        for (const [recipient, outcome] of accepted) expect([recipient, inKafka.get(recipient)]).toEqual([recipient, new Set([(outcome as { messageId: string }).messageId])]);
        for (const [recipient, messageId] of retried) expect([recipient, inKafka.get(recipient)]).toEqual([recipient, new Set([messageId])]);
      }, { timeoutMs: 60_000 });
    } finally {
      await reader.stop();
    }
    for (const [recipient] of refused) expect([recipient, inKafka.get(recipient)]).toEqual([recipient, undefined]);
    process.stdout.write(`ingest kill test: ${accepted.length} accepted, ${refused.length} refused, ${dropped.length} dropped and retried, ${KILLS} kills\n`);
  }, 300_000);
});
