import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import {
  AUDIENCE_CHANGED_TYPE,
  AudienceChanged,
  DeadLetterPayload,
  EVENT_ACCEPTED_TYPE,
  EventAccepted,
  TOPICS,
  deterministicUuid,
  envelopeOf,
  userKey,
} from '@herald/contracts';
import { KafkaBus, MessageBus, NamespacedBus, Subscription, partitionFor } from '@herald/bus';
import { ensureHeraldTopics } from '@herald/runtime';
import {
  RunningProcess,
  acceptedTrigger,
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
import { ACCOUNT_CATEGORIES, approvedVariant, definitionAnnouncer } from './announced-definitions';

const infra = testInfrastructure();
const distributed = infra.kafkaBrokers && infra.databaseUrl ? describe : describe.skip;

const PARTITIONS = 2;
/** What "keep starting within seconds" means here: a poison message costs its partition one failed attempt, not a retry loop. */
const WITHIN_SECONDS = { timeoutMs: 20_000, intervalMs: 200 };

const template = {
  slug: 'poison-mail',
  enabled_channels: ['email'],
  variants: [approvedVariant('default', 'email', { subject: 'Hi', html: '<p>Hi</p>', text: 'Hi' })],
};

function workflow(slug: string, trigger: { trigger_type: 'api' } | { trigger_type: 'event'; trigger_events: string[] }): unknown {
  return {
    slug,
    version_no: 1,
    is_enabled: true,
    hash: slug,
    definition: { name: slug, category: 'account', ...trigger, tree: { nodes: [{ name: 'Mail', node_type: 'send_email', template: template.slug }] } },
  };
}

/**
 * Poison messages on internal topics, in the distributed mode (workflow-engine and
 * preference-service as processes, on the real broker and Postgres, under a Kafka
 * namespace): what Postgres can never store goes to the dead-letter topic with the
 * reason, and the runs of other users on the same partition keep starting; an audience
 * change too large for Kafka is parked in preference-service's outbox, and the changes
 * written after it still reach the engine.
 */
distributed('poison messages in the distributed mode', () => {
  const namespace = uniqueName('poison');
  const workspace = randomUUID();
  const running: Array<{ process: RunningProcess; url: string }> = [];
  const deadLetters: DeadLetterPayload[] = [];
  let engineUrl: string;
  let preferencesUrl: string;
  let bus: MessageBus;
  let deadLetterReader: Subscription | undefined;
  let sqlClient: Client;
  let dropDatabase: (() => Promise<void>) | undefined;

  const sql = async <T>(text: string, params: unknown[] = []): Promise<T[]> => (await sqlClient.query(text, params)).rows as T[];

  const announce = definitionAnnouncer(() => bus, workspace);

  /** Users whose messages land on the same partition of `topic` as `key`. */
  const neighboursOf = (topic: string, key: string, count: number, keyOf: (distinctId: string) => string): string[] => {
    const partition = partitionFor(`${namespace}.${topic}`, key, PARTITIONS);
    const found: string[] = [];
    for (let i = 0; found.length < count; i++) {
      const distinctId = `neighbour-${i}-${randomBytes(3).toString('hex')}`;
      if (partitionFor(`${namespace}.${topic}`, keyOf(distinctId), PARTITIONS) === partition) found.push(distinctId);
    }
    return found;
  };

  const runsStarted = async (runIds: readonly string[]): Promise<number> => {
    const [row] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM engine.stream_events WHERE type = 'run.started.v1' AND stream_id = ANY($1)`, [
      runIds.map((runId) => `run:${workspace}:${runId}`),
    ]);
    return row.n;
  };

  const lettersFrom = (topic: string): DeadLetterPayload[] => deadLetters.filter((d) => d.source_topic === `${namespace}.${topic}`);

  const report = (line: string): void => void process.stdout.write(`poison messages e2e: ${line}\n`);

  const metricsOf = async (url: string): Promise<string> => String((await fetchJson(`${url}metrics`)).body);

  beforeAll(async () => {
    const database = await createTemporaryDatabase(infra.databaseUrl as string, 'herald_poison');
    dropDatabase = () => database.drop();
    sqlClient = new Client({ connectionString: database.url });
    await sqlClient.connect();
    bus = new NamespacedBus(new KafkaBus({ brokers: infra.kafkaBrokers as readonly string[], clientId: namespace }), namespace);
    await ensureHeraldTopics(bus, PARTITIONS);
    deadLetterReader = await bus.subscribe({
      groupId: uniqueName('dead-letter-reader'),
      topics: [TOPICS.deadLetter.name],
      handler: async (message) => void deadLetters.push(JSON.parse(message.value.toString('utf8')) as DeadLetterPayload),
    });

    const secretsKey = randomBytes(32).toString('base64');
    for (const service of ['workflow-engine', 'preference-service']) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/`;
      const env = heraldEnv({
        HERALD_KAFKA_BROKERS: (infra.kafkaBrokers as readonly string[]).join(','),
        HERALD_KAFKA_NAMESPACE: namespace,
        HERALD_KAFKA_PARTITIONS: String(PARTITIONS),
        HERALD_DATABASE_URL: database.url,
        HERALD_SECRETS_KEY: secretsKey,
        HERALD_PORT: String(port),
        HERALD_LOG_LEVEL: 'warn',
      });
      running.push({ process: startNodeEntrypoint(service, `apps/${service}/src/main.ts`, env), url });
      if (service === 'workflow-engine') engineUrl = url;
      else preferencesUrl = url;
    }
    await Promise.all(running.map(({ process, url }) => waitUntilReady(process, url)));

    await announce('category', 'categories', ACCOUNT_CATEGORIES);
    await announce('template', template.slug, template);
    await announce('workflow', 'poison-flow', workflow('poison-flow', { trigger_type: 'api' }));
    await announce('workflow', 'poison-event-flow', workflow('poison-event-flow', { trigger_type: 'event', trigger_events: ['Poison Probe'] }));
    await expectEventually(
      async () => expect(await sql(`SELECT count(*)::int AS n FROM engine.definitions WHERE workspace_id = $1`, [workspace])).toEqual([{ n: 4 }]),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  }, 180_000);

  afterAll(async () => {
    await deadLetterReader?.stop();
    await Promise.all(running.map(({ process }) => process.stop('SIGKILL')));
    await bus?.close();
    await sqlClient?.end().catch(() => undefined);
    await dropDatabase?.();
  }, 60_000);

  it('dead-letters accepted triggers Postgres cannot store, and the runs of other users on their partition keep starting', async () => {
    const trigger = (distinctId: string, data: Record<string, unknown> = {}) =>
      acceptedTrigger(workspace, 'poison-flow', { kind: 'user', distinct_id: distinctId, is_transient: false, inline: false, channels: {}, properties: {} }, data);
    const nul = trigger('\u0000');
    const neighbours = neighboursOf(TOPICS.triggerAccepted.name, nul.message.key, 4, (id) => userKey(workspace, id));
    const poison = [
      nul,
      trigger(`${neighbours[0]}\u0000tail`),
      // A lone surrogate: JSON carries it as an escape that jsonb refuses.
      trigger(neighbours[1], { note: '\ud800' }),
    ];
    const healthy = neighbours.slice(2).map((id) => trigger(id));

    const published = Date.now();
    await bus.publish(TOPICS.triggerAccepted.name, [...poison, ...healthy].map((t) => t.message));

    await expectEventually(async () => expect(await runsStarted(healthy.map((t) => t.runId))).toBe(healthy.length), WITHIN_SECONDS);
    report(`runs behind ${poison.length} poison triggers on their partition started ${Date.now() - published} ms after the publish`);
    await expectEventually(() => expect(lettersFrom(TOPICS.triggerAccepted.name)).toHaveLength(poison.length), WITHIN_SECONDS);
    const letters = lettersFrom(TOPICS.triggerAccepted.name);
    expect(letters.map((l) => l.reason_code)).toEqual(['unprocessable', 'unprocessable', 'unprocessable']);
    expect(letters.every((l) => l.consumer_group === `${namespace}.herald.engine.triggers` && l.attempts === 1)).toBe(true);
    expect(letters.map((l) => l.key).sort()).toEqual(poison.map((t) => t.message.key).sort());
    expect(letters.map((l) => l.reason.match(/SQLSTATE (\w+)/)?.[1]).sort()).toEqual(['22021', '22021', '22P02']);
    expect(await runsStarted(poison.map((t) => t.runId))).toBe(0);

    const metrics = await metricsOf(engineUrl);
    expect(metrics).toMatch(/herald_bus_dead_letters_total\{topic="notify\.trigger\.accepted\.v1",group="herald\.engine\.triggers",reason="unprocessable"[^}]*\} 3/);
    expect(metrics).toMatch(/herald_bus_messages_consumed_total\{topic="notify\.trigger\.accepted\.v1",group="herald\.engine\.triggers",outcome="dead_lettered"[^}]*\} 3/);
    expect((await fetchJson(`${engineUrl}health/ready`)).status).toBe(200);
  });

  it('dead-letters accepted events whose distinct_id Postgres cannot store, and events of other users on their partition still start runs', async () => {
    const event = (distinctId: string): { key: string; value: string; runId: string } => {
      const messageId = randomUUID();
      const payload: EventAccepted = {
        message_id: messageId,
        workspace_slug: 'staging',
        distinct_id: distinctId,
        event: 'Poison Probe',
        properties: {},
        attachments: [],
        accepted_via: 'api',
        accepted_at: new Date().toISOString(),
      };
      return {
        key: userKey(workspace, distinctId),
        value: JSON.stringify(envelopeOf(EVENT_ACCEPTED_TYPE, 1, messageId, workspace, new Date(), payload)),
        runId: deterministicUuid(messageId, 'poison-event-flow'),
      };
    };
    const nul = event('\u0000');
    const neighbours = neighboursOf(TOPICS.eventAccepted.name, nul.key, 3, (id) => userKey(workspace, id));
    const poison = [nul, event(`${neighbours[0]}\u0000`)];
    const healthy = neighbours.slice(1).map((id) => event(id));

    const published = Date.now();
    await bus.publish(TOPICS.eventAccepted.name, [...poison, ...healthy].map(({ key, value }) => ({ key, value })));

    await expectEventually(async () => expect(await runsStarted(healthy.map((e) => e.runId))).toBe(healthy.length), WITHIN_SECONDS);
    report(`runs of events behind ${poison.length} poison events on their partition started ${Date.now() - published} ms after the publish`);
    await expectEventually(() => expect(lettersFrom(TOPICS.eventAccepted.name)).toHaveLength(poison.length), WITHIN_SECONDS);
    const letters = lettersFrom(TOPICS.eventAccepted.name);
    expect(letters.map((l) => [l.reason_code, l.consumer_group])).toEqual(poison.map(() => ['unprocessable', `${namespace}.herald.engine.events`]));
    expect(letters.every((l) => /SQLSTATE 22/.test(l.reason))).toBe(true);
  });

  it('parks an audience change too large for Kafka, and the changes written after it still reach the engine', async () => {
    const profileChange = (distinctId: string, properties: Record<string, unknown>): { message_id: string; key: string; value: string } => {
      const messageId = randomUUID();
      const change: AudienceChanged = {
        kind: 'profile',
        change: 'upserted',
        workspace_slug: 'staging',
        subject: { type: 'user', distinct_id: distinctId },
        profile: { properties, channels: {} },
      };
      return {
        message_id: messageId,
        key: userKey(workspace, distinctId),
        value: JSON.stringify(envelopeOf(AUDIENCE_CHANGED_TYPE, 1, messageId, workspace, new Date(), change)),
      };
    };
    // As preference-service writes a change with its row: the 3.6 MB profile of the probe, then others.
    const huge = profileChange('huge-user', { blob: randomBytes(1_800_000).toString('hex') });
    const later = ['later-1', 'later-2', 'later-3'].map((id) => profileChange(id, { plan: 'pro' }));
    const insert = `INSERT INTO audience.outbox (message_id, topic, key, value) VALUES ($1, $2, $3, $4)`;
    await sqlClient.query('BEGIN');
    for (const row of [huge, ...later]) await sqlClient.query(insert, [row.message_id, TOPICS.audienceChanged.name, row.key, row.value]);
    await sqlClient.query('COMMIT');
    const written = Date.now();

    await expectEventually(async () => {
      const profiles = await sql<{ subject_key: string }>(`SELECT subject_key FROM engine.audience_profiles WHERE workspace_id = $1 ORDER BY subject_key`, [workspace]);
      expect(profiles.map((p) => p.subject_key)).toEqual(['user:later-1', 'user:later-2', 'user:later-3']);
    }, WITHIN_SECONDS);
    report(`audience changes written after a 3.6 MB one reached the engine ${Date.now() - written} ms after their commit`);
    const parked = await sql<{ message_id: string; reason: string }>(`SELECT message_id, reason FROM audience.outbox_parked`);
    expect(parked).toEqual([{ message_id: huge.message_id, reason: expect.stringMatching(/^message too large: /) }]);
    expect(await sql(`SELECT count(*)::int AS n FROM audience.outbox`)).toEqual([{ n: 0 }]);

    // Not a reason to take the replica out of rotation; shown in the metrics (and logged at error level).
    expect((await fetchJson(`${preferencesUrl}health/ready`)).status).toBe(200);
    const metrics = await metricsOf(preferencesUrl);
    expect(metrics).toMatch(/herald_outbox_parked_rows\{schema="audience"[^}]*\} 1/);
    expect(metrics).toMatch(/herald_outbox_rows_parked_total\{schema="audience"[^}]*\} 1/);
  });
});
