import { Client } from 'pg';
import { Registry } from 'prom-client';
import {
  CREDENTIALS_CHANGED_TYPE,
  CREDENTIALS_CHANGED_VERSION,
  CredentialsChanged,
  DeadLetterPayload,
  HeraldError,
  ParseResult,
  TOPICS,
  parseCredentialsChanged,
} from '@herald/contracts';
import { InProcessBus, KafkaBus, MessageBus, MessageHandler, NamespacedBus, Subscription } from '@herald/bus';
import { TestDatabase, openTestDatabase } from '@herald/database';
import { busTargets, databaseTargets, expectEventually, uniqueName } from '@herald/testing';
import { HeraldLogger } from '../logging/logger';
import { InstrumentedBus } from '../metrics/metrics';
import { DeadLetters, EnvelopeConsumer, ParsedMessage, PoisonPolicy, boundedAttempts, boundedBatchAttempts, deadLetteringBatchHandler, deadLetteringHandler } from './dead-letter';

interface Greeting {
  readonly name: string;
}

function parseGreeting(payload: unknown): ParseResult<Greeting> {
  const name = (payload as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name.length > 0
    ? { ok: true, value: { name } }
    : { ok: false, errors: [{ path: 'payload.name', message: 'must be a non-empty string' }] };
}

function envelope(payload: unknown, type = 'greeting', schemaVersion = 1): string {
  return JSON.stringify({
    type,
    schema_version: schemaVersion,
    message_id: uniqueName('m'),
    workspace_id: 'ws-1',
    produced_at: new Date().toISOString(),
    payload,
  });
}

const silentLogger = new HeraldLogger('test', 'error', { write: () => undefined });
const FAST_RETRY = { initialDelayMs: 10, maxDelayMs: 50 };

describe.each(busTargets())('dead-lettering consumer on $kind', (target) => {
  let bus: MessageBus;
  let metrics: Registry;
  let deadLetters: DeadLetters;
  const subscriptions: Subscription[] = [];
  /** Every dead letter of this test's source topics. */
  let letters: DeadLetterPayload[];

  beforeEach(async () => {
    const inner =
      target.kind === 'kafka'
        ? new KafkaBus({ brokers: target.brokers, clientId: 'herald-dlt-test' })
        : new InProcessBus();
    metrics = new Registry();
    // As the platform builds it: metrics around a namespaced bus.
    bus = new InstrumentedBus(new NamespacedBus(inner, 'dlt-ns'), metrics);
    deadLetters = new DeadLetters(bus, silentLogger, metrics);
    await bus.checkHealth();
    await bus.ensureTopics([{ name: TOPICS.deadLetter.name, partitions: 3 }]);
    letters = [];
  });

  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
    await bus.close();
  });

  /** Subscribes like the ConsumerRegistry does: the envelope consumer inside the bounded attempts. */
  async function consume(topic: string, consumer: Omit<EnvelopeConsumer<Greeting>, 'type' | 'parsePayload'>, policy: PoisonPolicy = { maxAttempts: 3 }): Promise<void> {
    const inner: MessageHandler = deadLetteringHandler(deadLetters, { schemaVersions: [1], ...consumer, type: 'greeting', parsePayload: parseGreeting });
    subscriptions.push(
      await bus.subscribe({
        groupId: consumer.groupId,
        topics: [topic],
        retry: FAST_RETRY,
        handler: boundedAttempts(deadLetters, consumer.groupId, inner, policy),
      }),
    );
  }

  async function readDeadLetters(): Promise<void> {
    subscriptions.push(
      await bus.subscribe({
        groupId: uniqueName('dlt-reader'),
        topics: [TOPICS.deadLetter.name],
        startFrom: 'earliest',
        handler: async (m) => {
          letters.push(JSON.parse(m.value.toString()) as DeadLetterPayload);
        },
      }),
    );
  }

  async function sourceTopic(prefix: string): Promise<string> {
    const topic = uniqueName(prefix);
    await bus.ensureTopics([{ name: topic, partitions: 1 }]);
    return topic;
  }

  /**
   * Subscribes a batch consumer of greetings as the registry builds it (dead-lettering,
   * bounded, split on failure) whose every batch holding 'stuck' fails whole, as a bug
   * that only one input triggers would. Records each batch it is handed and what it handled.
   */
  async function subscribeFailingOnStuck(topic: string, group: string, maxAttempts: number) {
    const batches: Array<{ names: string[]; partitions: number }> = [];
    const handled: string[] = [];
    const { handler, batchHandler } = deadLetteringBatchHandler(deadLetters, {
      groupId: group,
      type: 'greeting',
      schemaVersions: [1],
      parsePayload: parseGreeting,
      handleBatch: async (items: readonly ParsedMessage<Greeting>[]) => {
        batches.push({ names: items.map((i) => i.payload.name), partitions: new Set(items.map((i) => i.message.partition)).size });
        if (items.some((i) => i.payload.name === 'stuck')) throw new TypeError("Cannot read properties of undefined (reading 'id')");
        handled.push(...items.map((i) => i.payload.name));
      },
    });
    const single = boundedAttempts(deadLetters, group, handler, { maxAttempts });
    subscriptions.push(await bus.subscribe({ groupId: group, topics: [topic], retry: FAST_RETRY, handler: single, batchHandler: boundedBatchAttempts(batchHandler, single) }));
    return { batches, handled };
  }

  const lettersOf = (topic: string): DeadLetterPayload[] => letters.filter((l) => l.source_topic === `dlt-ns.${topic}`);

  it('moves poison messages to the dead-letter topic with their reason, and goes on with the rest', async () => {
    const topic = await sourceTopic('dlt.source');
    const group = uniqueName('greeter');
    const greeted: string[] = [];
    await consume(topic, {
      groupId: group,
      handle: async (payload) => {
        if (payload.name === 'mallory') throw HeraldError.validation([{ path: 'payload.name', message: 'is banned' }]);
        greeted.push(payload.name);
      },
    });
    await readDeadLetters();

    await bus.publish(topic, [
      { key: 'k', value: envelope({ name: 'alice' }) },
      { key: 'k', value: '{not json' },
      { key: 'k', value: envelope({ name: 42 }) },
      { key: 'k', value: envelope({ name: 'x' }, 'farewell') },
      { key: 'k', value: envelope({ name: 'mallory' }) },
      { key: 'k', value: envelope({ name: 'bob' }) },
    ]);

    await expectEventually(() => {
      expect(greeted).toEqual(['alice', 'bob']);
      expect(lettersOf(topic)).toHaveLength(4);
    }, { timeoutMs: 30_000 });
    expect(lettersOf(topic).map((d) => [d.reason_code, d.reason, d.errors.map((e) => e.path)])).toEqual([
      ['invalid_envelope', 'invalid envelope', ['']],
      ['invalid_payload', 'invalid payload', ['payload.name']],
      ['invalid_envelope', 'invalid envelope', ['type']],
      ['rejected', 'invalid request', ['payload.name']],
    ]);
    // The names as the broker knows them, namespace included.
    expect(lettersOf(topic)[0]).toMatchObject({ source_topic: `dlt-ns.${topic}`, consumer_group: `dlt-ns.${group}`, key: 'k', original: '{not json', attempts: 1 });
  });

  it('batch mode: splits a failing batch so the poison message is dead-lettered and the rest proceed, invalid ones set aside once', async () => {
    const topic = await sourceTopic('dlt.batch');
    const group = uniqueName('g');
    // Published first, so the batch holds all of them.
    await bus.publish(topic, [
      { key: 'k', value: envelope({ name: 'erin' }) },
      { key: 'k', value: '{not json' },
      { key: 'k', value: envelope({ name: 'stuck' }) },
      { key: 'k', value: envelope({ name: 'frank' }) },
    ]);
    const { batches, handled } = await subscribeFailingOnStuck(topic, group, 3);
    await readDeadLetters();

    await expectEventually(() => {
      expect(lettersOf(topic).map((l) => l.reason_code).sort()).toEqual(['attempts_exhausted', 'invalid_envelope']);
      expect(new Set(handled)).toEqual(new Set(['erin', 'frank']));
    }, { timeoutMs: 30_000 });
    expect(batches.some((b) => b.names.length > 1)).toBe(true);
    expect(lettersOf(topic).find((l) => l.reason_code === 'attempts_exhausted')).toMatchObject({ attempts: 3, consumer_group: `dlt-ns.${group}` });
    // After the batch failed, each message went on alone once: nothing handled twice, nothing set aside twice.
    expect(handled.filter((n) => n === 'erin')).toHaveLength(1);
    expect(handled.filter((n) => n === 'frank')).toHaveLength(1);
    expect(batches.filter((b) => b.names.includes('stuck'))).toHaveLength(4);
    // The metrics count each message's outcome, not the batch's.
    await expectEventually(async () => expect(await metrics.metrics()).toContain(`herald_bus_messages_consumed_total{topic="${topic}",group="${group}",outcome="dead_lettered"} 2`));
    expect(await metrics.metrics()).toContain(`herald_bus_messages_consumed_total{topic="${topic}",group="${group}",outcome="ok"} 2`);
  });

  it('batch mode: the partitions handed over together reach the consumer as one batch; a poison one fails only its own partition', async () => {
    const topic = uniqueName('dlt.merged');
    await bus.ensureTopics([{ name: topic, partitions: 6 }]);
    const group = uniqueName('g');
    // Keys that land on several partitions, published before the member joins: its first fetch holds them all.
    const names = Array.from({ length: 24 }, (_, i) => `user-${i}`);
    await bus.publish(topic, [...names.map((name) => ({ key: name, value: envelope({ name }) })), { key: 'user-0', value: envelope({ name: 'stuck' }) }]);
    const { batches, handled } = await subscribeFailingOnStuck(topic, group, 2);
    await readDeadLetters();

    await expectEventually(() => {
      expect(lettersOf(topic).map((l) => l.reason_code)).toEqual(['attempts_exhausted']);
      expect(new Set(handled)).toEqual(new Set(names));
    }, { timeoutMs: 30_000 });
    // Merged: one call held several partitions' messages.
    expect(batches.some((b) => b.partitions > 1)).toBe(true);
    // The merged call failed; then each partition's batch went alone, and only the poison one's failed and was split.
    const poisoned = batches.filter((b) => b.names.includes('stuck'));
    expect(poisoned.filter((b) => b.partitions > 1).length).toBeGreaterThan(0);
    expect(poisoned.filter((b) => b.partitions === 1 && b.names.length > 1).length).toBeGreaterThan(0);
    // Nothing of the other partitions was handled twice.
    for (const name of names.filter((n) => n !== 'user-0')) expect(handled.filter((n) => n === name)).toHaveLength(1);
  });

  it('dead-letters a message of a schema_version its consumer does not read, never retried, and goes on with the next', async () => {
    const topic = await sourceTopic('dlt.version');
    const group = uniqueName('g');
    const attemptsOf = new Map<string, number>();
    const greeted: string[] = [];
    await consume(topic, {
      groupId: group,
      handle: async (payload) => {
        attemptsOf.set(payload.name, (attemptsOf.get(payload.name) ?? 0) + 1);
        greeted.push(payload.name);
      },
    });
    // A consumer that also reads version 2 (as one upgraded first would) takes it.
    const upgraded: string[] = [];
    await consume(topic, { groupId: uniqueName('g2'), schemaVersions: [1, 2], handle: async (payload) => void upgraded.push(payload.name) });
    await readDeadLetters();

    // Valid in every other respect: only its version is new.
    await bus.publish(topic, [
      { key: 'k', value: envelope({ name: 'zoe' }, 'greeting', 2) },
      { key: 'k', value: envelope({ name: 'yan' }) },
    ]);

    await expectEventually(() => {
      expect(greeted).toEqual(['yan']);
      expect(upgraded).toEqual(['zoe', 'yan']);
      expect(lettersOf(topic)).toHaveLength(1);
    }, { timeoutMs: 30_000 });
    expect(attemptsOf.has('zoe')).toBe(false);
    expect(lettersOf(topic)[0]).toMatchObject({
      reason_code: 'unknown_schema_version',
      reason: 'greeting version 2 is not known here (known: 1)',
      errors: [{ path: 'schema_version', message: 'greeting version 2 is not known here (known: 1)' }],
      consumer_group: `dlt-ns.${group}`,
      attempts: 1,
    });
    expect(JSON.parse(lettersOf(topic)[0].original)).toMatchObject({ schema_version: 2, payload: { name: 'zoe' } });
    expect(await metrics.metrics()).toContain(`herald_bus_dead_letters_total{topic="${topic}",group="${group}",reason="unknown_schema_version"} 1`);
  });

  it("batch mode: a consumer of a Herald message type reads the versions @herald/contracts lists for it, and sets aside another", async () => {
    // A type with no entry there cannot be consumed without declaring its versions: found at subscription.
    expect(() => deadLetteringHandler(deadLetters, { groupId: 'g', type: 'farewell', parsePayload: parseGreeting, handle: async () => undefined })).toThrow(
      'message type farewell has no entry in KNOWN_SCHEMA_VERSIONS',
    );
    const topic = await sourceTopic('dlt.version.batch');
    const group = uniqueName('g');
    const change = (id: string): CredentialsChanged => ({ kind: 'api_key', change: 'created', api_key_id: id, workspace_id: 'ws-1', workspace_slug: 'ws', key_hash: 'ab'.repeat(32) });
    // Published first, so the batch holds all of them.
    await bus.publish(topic, [
      { key: 'ws-1', value: envelope(change('key-1'), CREDENTIALS_CHANGED_TYPE, CREDENTIALS_CHANGED_VERSION) },
      { key: 'ws-1', value: envelope(change('key-2'), CREDENTIALS_CHANGED_TYPE, CREDENTIALS_CHANGED_VERSION + 1) },
      { key: 'ws-1', value: envelope(change('key-3'), CREDENTIALS_CHANGED_TYPE, CREDENTIALS_CHANGED_VERSION) },
    ]);
    const applied: string[] = [];
    const { handler, batchHandler } = deadLetteringBatchHandler(deadLetters, {
      groupId: group,
      type: CREDENTIALS_CHANGED_TYPE,
      parsePayload: parseCredentialsChanged,
      handleBatch: async (items: readonly ParsedMessage<CredentialsChanged>[]) => {
        for (const item of items) if (item.payload.kind === 'api_key') applied.push(item.payload.api_key_id);
      },
    });
    const single = boundedAttempts(deadLetters, group, handler, { maxAttempts: 3 });
    subscriptions.push(await bus.subscribe({ groupId: group, topics: [topic], retry: FAST_RETRY, handler: single, batchHandler: boundedBatchAttempts(batchHandler, single) }));
    await readDeadLetters();

    await expectEventually(() => {
      expect(applied).toEqual(['key-1', 'key-3']);
      expect(lettersOf(topic)).toHaveLength(1);
    }, { timeoutMs: 30_000 });
    expect(lettersOf(topic)[0]).toMatchObject({
      reason_code: 'unknown_schema_version',
      reason: `credentials.changed version ${CREDENTIALS_CHANGED_VERSION + 1} is not known here (known: ${CREDENTIALS_CHANGED_VERSION})`,
      errors: [{ path: 'schema_version' }],
    });
    expect(JSON.parse(lettersOf(topic)[0].original)).toMatchObject({ payload: { api_key_id: 'key-2' } });
  });

  it('retries an outage without a bound and without losing the message', async () => {
    const topic = await sourceTopic('dlt.transient');
    let attempts = 0;
    const handled: string[] = [];
    await consume(topic, {
      groupId: uniqueName('g'),
      handle: async (payload) => {
        // Far past maxAttempts: an unreachable database is not the message's fault.
        if (++attempts < 8) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        handled.push(payload.name);
      },
    });

    await bus.publish(topic, [{ key: 'k', value: envelope({ name: 'carol' }) }]);

    await expectEventually(() => expect(handled).toEqual(['carol']), { timeoutMs: 30_000 });
    expect(attempts).toBe(8);
  });

  it('dead-letters a message that keeps failing past the bound, and the partition goes on', async () => {
    const topic = await sourceTopic('dlt.bounded');
    const group = uniqueName('g');
    const attemptsOf = new Map<string, number>();
    const handled: string[] = [];
    await consume(topic, {
      groupId: group,
      handle: async (payload) => {
        attemptsOf.set(payload.name, (attemptsOf.get(payload.name) ?? 0) + 1);
        if (payload.name === 'stuck') throw new TypeError("Cannot read properties of undefined (reading 'id')");
        handled.push(payload.name);
      },
    });
    await readDeadLetters();

    await bus.publish(topic, [
      { key: 'k', value: envelope({ name: 'stuck' }) },
      { key: 'k', value: envelope({ name: 'dave' }) },
    ]);

    await expectEventually(() => {
      expect(handled).toEqual(['dave']);
      expect(lettersOf(topic)).toHaveLength(1);
    }, { timeoutMs: 30_000 });
    expect(attemptsOf.get('stuck')).toBe(3);
    expect(lettersOf(topic)[0]).toMatchObject({ reason_code: 'attempts_exhausted', attempts: 3, consumer_group: `dlt-ns.${group}` });
    expect(lettersOf(topic)[0].reason).toContain("failed 3 times; last: TypeError: Cannot read properties of undefined (reading 'id')");

    const text = await metrics.metrics();
    expect(text).toContain(`herald_bus_dead_letters_total{topic="${topic}",group="${group}",reason="attempts_exhausted"} 1`);
    expect(text).toContain(`herald_bus_messages_consumed_total{topic="${topic}",group="${group}",outcome="dead_lettered"} 1`);
    expect(text).toContain(`herald_bus_messages_consumed_total{topic="${topic}",group="${group}",outcome="ok"} 1`);
  });

  it('does not dead-letter for its attempts while a dependency is down', async () => {
    const topic = await sourceTopic('dlt.unhealthy');
    let healthy = false;
    let failedWhileDown = 0;
    const handled: string[] = [];
    await consume(
      topic,
      {
        groupId: uniqueName('g'),
        handle: async (payload) => {
          // An unrecognised error while the readiness checks fail: most likely the outage.
          if (!healthy) {
            failedWhileDown++;
            throw new Error('something odd');
          }
          handled.push(payload.name);
        },
      },
      { maxAttempts: 2, dependenciesHealthy: async () => healthy },
    );
    await readDeadLetters();

    await bus.publish(topic, [{ key: 'k', value: envelope({ name: 'erin' }) }]);
    // Well past the bound while a dependency is down; then it comes back.
    await expectEventually(() => expect(failedWhileDown).toBeGreaterThanOrEqual(5), { timeoutMs: 30_000 });
    healthy = true;

    await expectEventually(() => expect(handled).toEqual(['erin']), { timeoutMs: 30_000 });
    expect(lettersOf(topic)).toEqual([]);
  });

  describe('with a database', () => {
    let database: TestDatabase;
    let client: Client;

    beforeAll(async () => {
      database = await openTestDatabase(databaseTargets().at(-1) ?? { kind: 'embedded' });
      client = new Client({ connectionString: database.url });
      await client.connect();
    });

    afterAll(async () => {
      await client.end();
      await database.dispose([]);
    });

    it('dead-letters at once what Postgres can never store (a NUL byte), and the partition goes on', async () => {
      const topic = await sourceTopic('dlt.nul');
      const group = uniqueName('g');
      let attempts = 0;
      const stored: string[] = [];
      await consume(topic, {
        groupId: group,
        handle: async (payload) => {
          attempts++;
          const { rows } = await client.query<{ name: string }>('SELECT $1::text AS name', [payload.name]);
          stored.push(rows[0].name);
        },
      });
      await readDeadLetters();

      await bus.publish(topic, [
        { key: 'ws:\u0000', value: envelope({ name: 'nul\u0000byte' }) },
        { key: 'ws:frank', value: envelope({ name: 'frank' }) },
      ]);

      await expectEventually(() => {
        expect(stored).toEqual(['frank']);
        expect(lettersOf(topic)).toHaveLength(1);
      }, { timeoutMs: 30_000 });
      expect(attempts).toBe(2);
      expect(lettersOf(topic)[0]).toMatchObject({ reason_code: 'unprocessable', key: 'ws:\u0000', attempts: 1 });
      expect(lettersOf(topic)[0].reason).toContain('SQLSTATE 22021');
      expect(await metrics.metrics()).toContain(`herald_bus_dead_letters_total{topic="${topic}",group="${group}",reason="unprocessable"} 1`);
    });
  });
});
