import { randomBytes, randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { DeliveryRequested, TOPICS, deliveryTopic, parseEnvelope } from '@herald/contracts';
import { KafkaBus, MessageBus, NamespacedBus } from '@herald/bus';
import { ensureHeraldTopics } from '@herald/runtime';
import {
  RunningProcess,
  acceptedTrigger,
  acceptedTriggerChunk,
  createTemporaryDatabase,
  expectEventually,
  freePort,
  heraldEnv,
  startNodeEntrypoint,
  testInfrastructure,
  uniqueName,
  waitUntilReady,
} from '@herald/testing';
import { ACCOUNT_CATEGORIES, definitionAnnouncer, mailTemplate } from './announced-definitions';
import { killSeed, seededRandom } from './kill-helpers';

const infra = testInfrastructure();
const distributed = infra.kafkaBrokers && infra.databaseUrl ? describe : describe.skip;
const mail = mailTemplate('batch-kill-mail');

/** Published while the engine is down, so that it finds a backlog and takes it in large batches. */
const RUNS = 2_000;
const KILLS = 3;
/**
 * Recipients per trigger chunk. The chunks share one partition (as ingest's chunks of
 * recipients that share one do), so the engine gets them as one batch of 1,000 runs and
 * starts them in two transactions of 500: the 13th chunk straddles the two.
 */
const CHUNK_RECIPIENTS = 40;
const PARTITIONS = 6;

/**
 * workflow-engine killed with SIGKILL in the middle of batches: a backlog of triggers
 * (trigger → send_email) is taken by the batch consumers, a partition's messages at a
 * time, and each batch is decided and appended in one transaction. The engine dies
 * while batches are being written and published, and again after restarting. In the
 * end every run is recorded once (started, one delivery, completed), and the delivery
 * topic holds one delivery_id per run (copies from a relay that died between
 * publishing and deleting are byte-identical, and a dispatcher deduping by delivery_id
 * sends each once): nothing lost, nothing sent twice.
 */
distributed('workflow-engine killed in the middle of batches', () => {
  const namespace = uniqueName('engbkill');
  const workspace = randomUUID();
  const secretsKey = randomBytes(32).toString('base64');
  const seed = killSeed();
  const random = seededRandom(seed);
  const runIds = new Set<string>();
  let engine: RunningProcess | undefined;
  let port: number;
  let bus: MessageBus;
  let sqlClient: Client;
  let databaseUrl: string;
  let dropDatabase: (() => Promise<void>) | undefined;

  const log = (line: string): void => {
    process.stdout.write(`engine batch kill test: ${line}\n`);
  };
  const sql = async <T>(text: string, params: unknown[] = []): Promise<T[]> => (await sqlClient.query(text, params)).rows as T[];

  const startEngine = async (): Promise<void> => {
    engine = startNodeEntrypoint(
      'workflow-engine-batch-kill',
      'apps/workflow-engine/src/main.ts',
      heraldEnv({
        HERALD_KAFKA_BROKERS: (infra.kafkaBrokers as readonly string[]).join(','),
        HERALD_KAFKA_NAMESPACE: namespace,
        HERALD_KAFKA_PARTITIONS: String(PARTITIONS),
        HERALD_DATABASE_URL: databaseUrl,
        HERALD_SECRETS_KEY: secretsKey,
        HERALD_PORT: String(port),
        HERALD_LOG_LEVEL: 'warn',
      }),
    );
    await waitUntilReady(engine, `http://127.0.0.1:${port}/`);
  };
  const killEngine = async (): Promise<void> => {
    const running = engine;
    engine = undefined;
    await running?.stop('SIGKILL');
  };

  const announce = definitionAnnouncer(() => bus, workspace);

  /** Streams of the runs that arrive in chunks. */
  const chunkedStreams: string[] = [];
  const counts = async (): Promise<{ started: number; chunked: number; completed: number; outbox: number }> => {
    const [row] = await sql<{ started: number; chunked: number; completed: number; outbox: number }>(
      `SELECT (SELECT count(*)::int FROM engine.stream_events WHERE type = 'run.started.v1') AS started,
              (SELECT count(*)::int FROM engine.stream_events WHERE type = 'run.started.v1' AND stream_id = ANY($1::text[])) AS chunked,
              (SELECT count(*)::int FROM engine.stream_events WHERE type = 'run.completed.v1') AS completed,
              (SELECT count(*)::int FROM engine.outbox) AS outbox`,
      [chunkedStreams],
    );
    return row;
  };

  beforeAll(async () => {
    const database = await createTemporaryDatabase(infra.databaseUrl as string, 'herald_engbkill');
    databaseUrl = database.url;
    dropDatabase = () => database.drop();
    sqlClient = new Client({ connectionString: databaseUrl });
    await sqlClient.connect();
    port = await freePort();
    bus = new NamespacedBus(new KafkaBus({ brokers: infra.kafkaBrokers as readonly string[], clientId: namespace }), namespace);
    await ensureHeraldTopics(bus, PARTITIONS);
    await announce('category', 'categories', ACCOUNT_CATEGORIES);
    await announce('template', mail.slug, mail);
    await announce('workflow', 'batch-kill-flow', {
      slug: 'batch-kill-flow',
      version_no: 1,
      is_enabled: true,
      hash: 'h',
      definition: { name: 'Batch kill flow', category: 'account', trigger_type: 'api', tree: { nodes: [{ name: 'Mail', node_type: 'send_email', template: mail.slug }] } },
    });
    await startEngine();
    await expectEventually(
      async () => expect(await sql(`SELECT count(*)::int AS n FROM engine.definitions WHERE workspace_id = $1`, [workspace])).toEqual([{ n: 3 }]),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    log(`namespace ${namespace}, seed ${seed} (HERALD_KILL_SEED)`);
  }, 180_000);

  afterAll(async () => {
    await killEngine();
    await bus?.close();
    await sqlClient?.end().catch(() => undefined);
    await dropDatabase?.();
  }, 60_000);

  it(`records every run once and requests every delivery under one id over ${KILLS} kills mid-batch`, async () => {
    await killEngine();
    const recipient = (i: number) => {
      const distinctId = `u-${i}`;
      return { kind: 'user' as const, distinct_id: distinctId, is_transient: false, inline: true, channels: { email: [`${distinctId}@example.com`] }, properties: { name: distinctId } };
    };
    // Half one trigger per recipient (child runs, broadcast members), half in ingest's chunks of recipients.
    const single = RUNS / 2;
    const messages = Array.from({ length: single }, (_, i) => {
      const { runId, message } = acceptedTrigger(workspace, 'batch-kill-flow', recipient(i), {});
      runIds.add(runId);
      return message;
    });
    const chunks = Array.from({ length: (RUNS - single) / CHUNK_RECIPIENTS }, (_, c) => {
      const recipients = Array.from({ length: CHUNK_RECIPIENTS }, (__, r) => recipient(single + c * CHUNK_RECIPIENTS + r));
      const { runIds: ids, message } = acceptedTriggerChunk(workspace, 'batch-kill-flow', recipients, {});
      ids.forEach((id) => runIds.add(id));
      chunkedStreams.push(...ids.map((id) => `run:${workspace}:${id}`));
      return message;
    });
    const chunkKey = chunks[0].key;
    for (let i = 0; i < messages.length; i += 500) await bus.publish(TOPICS.triggerAccepted.name, messages.slice(i, i + 500));
    await bus.publish(
      TOPICS.triggerChunkAccepted.name,
      chunks.map((chunk) => ({ ...chunk, key: chunkKey })),
    );
    log(`published ${RUNS} triggers with the engine down (${single} alone, ${RUNS - single} in ${chunks.length} chunks)`);

    for (let kill = 1; kill <= KILLS; kill += 1) {
      const before = await counts();
      await startEngine();
      // Killed once it is writing: the next runs are being decided, appended or relayed.
      // The first kill waits for chunked runs: it lands once some of the chunks' runs are started and not all.
      const chunkedTarget = kill === 1 && before.chunked < chunkedStreams.length;
      const target = chunkedTarget ? before.chunked + 1 : Math.min(RUNS - 1, before.started + 1 + Math.floor(random() * 150));
      await expectEventually(async () => expect((await counts())[chunkedTarget ? 'chunked' : 'started']).toBeGreaterThanOrEqual(target), { timeoutMs: 120_000, intervalMs: 20 });
      await killEngine();
      const after = await counts();
      log(`kill ${kill}/${KILLS}: runs started ${before.started} → ${after.started} (of the chunks' ${before.chunked} → ${after.chunked}), completed ${after.completed}, outbox ${after.outbox}`);
    }
    await startEngine();
    await expectEventually(
      async () => {
        const state = await counts();
        expect(state.completed).toBe(RUNS);
        expect(state.outbox).toBe(0);
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    await engine?.stop('SIGTERM');
    engine = undefined;

    // Every run's log: started, one delivery, completed, once each.
    const streams = await sql<{ stream_id: string; types: string[] }>(`SELECT stream_id, array_agg(type ORDER BY position) AS types FROM engine.stream_events GROUP BY stream_id`);
    expect(streams).toHaveLength(RUNS);
    for (const { stream_id: streamId, types } of streams) {
      expect([streamId, types.filter((t) => t === 'run.started.v1').length, types.filter((t) => t === 'delivery.requested.v1').length, types[types.length - 1]]).toEqual([
        streamId,
        1,
        1,
        'run.completed.v1',
      ]);
    }
    expect(await sql(`SELECT count(*)::int AS runs, count(DISTINCT status)::int AS statuses, min(status) AS status FROM engine.runs`)).toEqual([{ runs: RUNS, statuses: 1, status: 'completed' }]);
    expect(await sql(`SELECT count(*)::int AS n, count(DISTINCT run_id)::int AS runs FROM engine.messages`)).toEqual([{ n: RUNS, runs: RUNS }]);

    // The delivery topic read to its end: one delivery_id per run, copies byte-identical.
    const kafka = new Kafka({ clientId: `${namespace}-admin`, brokers: [...(infra.kafkaBrokers as readonly string[])], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const ends = await admin.fetchTopicOffsets(`${namespace}.${deliveryTopic('email').name}`).finally(() => admin.disconnect());
    const seen = new Map<number, bigint>();
    const commands = new Map<string, { value: string; runId: string }>();
    const conflicting: string[] = [];
    let copies = 0;
    const reader = await bus.subscribe({
      groupId: uniqueName('engine-batch-kill-reader'),
      topics: [deliveryTopic('email').name],
      handler: async (message) => {
        seen.set(message.partition, BigInt(message.offset));
        const value = message.value.toString('utf8');
        const envelope = parseEnvelope(message.value);
        if (!envelope.ok) throw new Error(`not an envelope at ${message.partition}/${message.offset}`);
        const delivery = envelope.value.payload as DeliveryRequested;
        const earlier = commands.get(delivery.delivery_id);
        if (!earlier) commands.set(delivery.delivery_id, { value, runId: delivery.run_id });
        else {
          copies += 1;
          if (earlier.value !== value) conflicting.push(delivery.delivery_id);
        }
      },
    });
    try {
      await expectEventually(
        () => {
          for (const end of ends) {
            if (BigInt(end.high) > BigInt(end.low)) expect([end.partition, seen.get(end.partition)]).toEqual([end.partition, BigInt(end.high) - 1n]);
          }
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
    } finally {
      await reader.stop();
    }
    expect(conflicting).toEqual([]);
    expect(commands.size).toBe(RUNS);
    const runsWithCommands = [...commands.values()].map((c) => c.runId);
    expect(new Set(runsWithCommands).size).toBe(RUNS);
    expect(new Set(runsWithCommands)).toEqual(runIds);
    log(`${RUNS} runs, ${commands.size} delivery ids, ${copies} byte-identical copies from the relay`);
  }, 600_000);
});
