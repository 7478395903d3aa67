import { InProcessBus, KafkaBus, MessageBus, OutgoingMessage } from '@herald/bus';
import { BusTarget, busTargets, databaseTargets, describeTarget, expectEventually, uniqueName } from '@herald/testing';
import { EventStoreLogger } from '../event-store-logger';
import { EventStore } from '../event-store';
import { OutboxMessage } from '../event-store.types';
import { collectMessages, Collector } from '../testing/collect-messages';
import { EventStoreTestDatabase } from '../testing/event-store-test-database';
import { OutboxRelay } from './outbox-relay';

const FAST = { idleDelayMs: 10, retry: { initialDelayMs: 10, maxDelayMs: 50 } };
const quietLog: EventStoreLogger = () => undefined;

/** A bus whose publish fails the first `failures` times, then behaves. */
class FlakyBus implements MessageBus {
  publishCalls = 0;

  constructor(
    private readonly inner: MessageBus,
    private failures: number,
  ) {}

  ensureTopics: MessageBus['ensureTopics'] = (topics) => this.inner.ensureTopics(topics);
  subscribe: MessageBus['subscribe'] = (options) => this.inner.subscribe(options);
  checkHealth: MessageBus['checkHealth'] = () => this.inner.checkHealth();
  close: MessageBus['close'] = () => this.inner.close();

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    this.publishCalls += 1;
    if (this.failures > 0) {
      this.failures -= 1;
      // As kafkajs reports a broker it cannot reach: an outage, never the rows' fault.
      throw Object.assign(new Error('broker unavailable'), { name: 'KafkaJSConnectionError' });
    }
    await this.inner.publish(topic, messages);
  }
}

/** A bus that fails, with an error it cannot classify, every publish carrying a message of `key`. */
class CursedKeyBus implements MessageBus {
  constructor(
    private readonly inner: MessageBus,
    private readonly key: string,
  ) {}

  ensureTopics: MessageBus['ensureTopics'] = (topics) => this.inner.ensureTopics(topics);
  subscribe: MessageBus['subscribe'] = (options) => this.inner.subscribe(options);
  checkHealth: MessageBus['checkHealth'] = () => this.inner.checkHealth();
  close: MessageBus['close'] = () => this.inner.close();

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.some((m) => m.key === this.key)) throw new Error('the broker said something odd about this record');
    await this.inner.publish(topic, messages);
  }
}

/** A broker that answers nothing sensible: every publish fails with an unclassified error, and so does its health check. */
class BrokenBrokerBus implements MessageBus {
  publishCalls = 0;
  broken = true;

  constructor(private readonly inner: MessageBus) {}

  ensureTopics: MessageBus['ensureTopics'] = (topics) => this.inner.ensureTopics(topics);
  subscribe: MessageBus['subscribe'] = (options) => this.inner.subscribe(options);
  close: MessageBus['close'] = () => this.inner.close();

  async checkHealth(): Promise<void> {
    if (this.broken) throw new Error('no answer');
    await this.inner.checkHealth();
  }

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    this.publishCalls += 1;
    if (this.broken) throw new Error('no answer');
    await this.inner.publish(topic, messages);
  }
}

interface ParkedRowRecord {
  readonly message_id: string;
  readonly key: string;
  readonly reason: string;
  readonly publish_failures: number;
}

async function openBus(target: BusTarget): Promise<MessageBus> {
  switch (target.kind) {
    case 'in-process':
      return new InProcessBus();
    case 'kafka': {
      const bus = new KafkaBus({ brokers: target.brokers, clientId: 'herald-event-store-test' });
      await bus.checkHealth();
      return bus;
    }
  }
}

function outbox(topic: string, key: string, seqs: readonly number[]): OutboxMessage[] {
  return seqs.map((seq) => ({
    messageId: uniqueName(`msg-${key}-${seq}`),
    topic,
    key,
    value: JSON.stringify({ key, seq }),
    headers: { 'x-seq': String(seq) },
  }));
}

function seqsOf(collector: Collector, key: string): number[] {
  return collector.received
    .filter((m) => m.key === key)
    .map((m) => (JSON.parse(m.value.toString('utf8')) as { seq: number }).seq);
}

describe.each(databaseTargets())('OutboxRelay on $kind', (dbTarget) => {
  let db: EventStoreTestDatabase;
  let store: EventStore;

  beforeAll(async () => {
    db = await EventStoreTestDatabase.open(dbTarget);
    store = new EventStore(db.dataSource, db.schema);
  });
  afterAll(async () => {
    await db?.dispose();
  });
  afterEach(async () => {
    await db.clearOutboxAndTimers();
  });

  describe.each(busTargets())('publishing to $kind', (busTarget) => {
    // Generous on both buses (the default is 15 s): only a failing test waits this long, and a loaded machine must not fail a passing one.
    const waitOpts = { timeoutMs: 60_000 };
    let bus: MessageBus;
    let topic: string;
    let otherTopic: string;
    const relays: OutboxRelay[] = [];
    const collectors: Collector[] = [];

    beforeEach(async () => {
      bus = await openBus(busTarget);
      topic = uniqueName('es.outbox');
      otherTopic = uniqueName('es.outbox.other');
      await bus.ensureTopics([
        { name: topic, partitions: 3 },
        { name: otherTopic, partitions: 1 },
      ]);
    });
    afterEach(async () => {
      await Promise.all(relays.splice(0).map((r) => r.stop()));
      await Promise.all(collectors.splice(0).map((c) => c.subscription.stop()));
      await bus.close();
    });

    async function collect(...topics: string[]): Promise<Collector> {
      const collector = await collectMessages(bus, topics);
      collectors.push(collector);
      return collector;
    }

    it(`publishes each outbox message once, in order per key, then deletes it (${describeTarget(dbTarget)} → ${describeTarget(busTarget)})`, async () => {
      const collector = await collect(topic, otherTopic);
      const keys = ['ws:alice', 'ws:bob', 'ws:carol'];
      const runs = uniqueName('run');
      // Several runs, each appending in turns, as an engine would.
      for (let turn = 0; turn < 4; turn++) {
        for (const key of keys) {
          await store.append({
            streamId: `${runs}:${key}`,
            expectedPosition: turn,
            events: [{ type: 'decided', data: { turn } }],
            outbox: [...outbox(topic, key, [turn * 3, turn * 3 + 1, turn * 3 + 2]), ...outbox(otherTopic, key, [turn])],
          });
        }
      }
      // A batch smaller than the backlog makes the relay go round several times.
      const relay = new OutboxRelay(db.dataSource, db.schema, bus, quietLog, { ...FAST, batchSize: 7 });
      relays.push(relay);

      relay.start();

      await expectEventually(() => expect(collector.received).toHaveLength(keys.length * 16), waitOpts);
      await expectEventually(async () => expect(await db.count('outbox')).toBe(0));
      for (const key of keys) {
        expect(seqsOf(collector, key)).toHaveLength(16);
        const onTopic = collector.received.filter((m) => m.key === key && m.topic === topic);
        expect(onTopic.map((m) => Number(m.headers['x-seq']))).toEqual(Array.from({ length: 12 }, (_, i) => i));
        const onOther = collector.received.filter((m) => m.key === key && m.topic === otherTopic);
        expect(onOther.map((m) => Number(m.headers['x-seq']))).toEqual([0, 1, 2, 3]);
      }
      const ids = collector.received.map((m) => m.headers['message-id']);
      expect(ids.every((id) => typeof id === 'string' && id.startsWith('msg-'))).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('keeps the messages of a failed publish for the next round', async () => {
      const collector = await collect(topic);
      const flaky = new FlakyBus(bus, 1);
      const log = jest.fn<void, Parameters<EventStoreLogger>>();
      const relay = new OutboxRelay(db.dataSource, db.schema, flaky, log, FAST);
      relays.push(relay);
      await store.append({
        streamId: uniqueName('run'),
        expectedPosition: 0,
        events: [{ type: 'decided', data: {} }],
        outbox: outbox(topic, 'ws:dave', [1, 2, 3]),
      });

      await expect(relay.pollOnce()).rejects.toThrow('broker unavailable');
      expect(await db.count('outbox')).toBe(3);

      // The running relay retries after a backoff and gets through.
      const flakyAgain = new FlakyBus(bus, 2);
      const retrying = new OutboxRelay(db.dataSource, db.schema, flakyAgain, log, FAST);
      relays.push(retrying);
      retrying.start();

      await expectEventually(() => expect(seqsOf(collector, 'ws:dave')).toEqual([1, 2, 3]), waitOpts);
      await expectEventually(async () => expect(await db.count('outbox')).toBe(0));
      expect(flakyAgain.publishCalls).toBe(3);
      expect(log).toHaveBeenCalledWith(
        'warn',
        'outbox relay round failed; its messages stay in the outbox',
        expect.objectContaining({ attempt: 2, error: 'broker unavailable' }),
      );
    });

    async function parkedRows(): Promise<ParkedRowRecord[]> {
      return db.dataSource.query(`SELECT message_id, key, reason, publish_failures FROM "${db.schema}".outbox_parked ORDER BY outbox_id`);
    }

    it('parks a row larger than the broker takes, and the rows behind it go on, later rows of its key too', async () => {
      const collector = await collect(topic, otherTopic);
      const parked: string[] = [];
      const log = jest.fn<void, Parameters<EventStoreLogger>>();
      const relay = new OutboxRelay(db.dataSource, db.schema, bus, log, { ...FAST, onParked: (row) => parked.push(row.key) });
      relays.push(relay);
      const tooLarge: OutboxMessage = {
        messageId: uniqueName('msg-huge'),
        topic,
        key: 'ws:frank',
        // Above Kafka's message.max.bytes (1,048,588 by default, and on the test broker).
        value: JSON.stringify({ key: 'ws:frank', seq: 2, profile: 'x'.repeat(3_600_000) }),
      };
      await store.append({
        streamId: uniqueName('run'),
        expectedPosition: 0,
        events: [{ type: 'decided', data: {} }],
        outbox: [...outbox(topic, 'ws:frank', [1]), tooLarge, ...outbox(topic, 'ws:frank', [3]), ...outbox(otherTopic, 'ws:gina', [1, 2])],
      });

      relay.start();

      await expectEventually(() => {
        expect(seqsOf(collector, 'ws:frank')).toEqual([1, 3]);
        expect(seqsOf(collector, 'ws:gina')).toEqual([1, 2]);
      }, waitOpts);
      await expectEventually(async () => expect(await db.count('outbox')).toBe(0));
      await expectEventually(() => expect(parked).toEqual(['ws:frank']));
      const [row] = await parkedRows();
      expect(row).toMatchObject({ message_id: tooLarge.messageId, key: 'ws:frank', publish_failures: 1 });
      expect(row.reason).toMatch(/^message too large: /);
      expect(parked).toEqual(['ws:frank']);
      expect(await relay.countParked()).toBe(1);
      expect(log).toHaveBeenCalledWith('error', expect.stringContaining('outbox row parked'), expect.objectContaining({ message_id: tooLarge.messageId }));
    });

    it('parks a row failing the same way past the bound while the broker answers, then goes on', async () => {
      const collector = await collect(topic);
      const relay = new OutboxRelay(db.dataSource, db.schema, new CursedKeyBus(bus, 'ws:cursed'), quietLog, { ...FAST, maxPublishAttempts: 3 });
      relays.push(relay);
      await store.append({
        streamId: uniqueName('run'),
        expectedPosition: 0,
        events: [{ type: 'decided', data: {} }],
        outbox: [...outbox(topic, 'ws:henry', [1]), ...outbox(topic, 'ws:cursed', [1]), ...outbox(topic, 'ws:henry', [2]), ...outbox(topic, 'ws:ida', [1])],
      });

      relay.start();

      await expectEventually(() => {
        expect(seqsOf(collector, 'ws:henry')).toEqual([1, 2]);
        expect(seqsOf(collector, 'ws:ida')).toEqual([1]);
      }, waitOpts);
      // Published before the round that parked the row commits.
      await expectEventually(async () => expect(await parkedRows()).toHaveLength(1));
      const [row] = await parkedRows();
      expect(row).toMatchObject({ key: 'ws:cursed', publish_failures: 3 });
      expect(row.reason).toContain('the broker said something odd about this record');
      expect(seqsOf(collector, 'ws:cursed')).toEqual([]);
    });

    it('parks nothing while the broker is down, however long, and publishes everything once it is back', async () => {
      const collector = await collect(topic);
      const broken = new BrokenBrokerBus(bus);
      const relay = new OutboxRelay(db.dataSource, db.schema, broken, quietLog, { ...FAST, maxPublishAttempts: 2 });
      relays.push(relay);
      await store.append({
        streamId: uniqueName('run'),
        expectedPosition: 0,
        events: [{ type: 'decided', data: {} }],
        outbox: outbox(topic, 'ws:jack', [1, 2, 3]),
      });

      relay.start();
      // Many times the bound, every publish failing.
      await expectEventually(() => expect(broken.publishCalls).toBeGreaterThanOrEqual(10), waitOpts);
      expect(await db.count('outbox_parked')).toBe(0);
      broken.broken = false;

      await expectEventually(() => expect(seqsOf(collector, 'ws:jack')).toEqual([1, 2, 3]), waitOpts);
      expect(await db.count('outbox_parked')).toBe(0);
    });
  });

  // Each relay has its own data source, as a replica would. On PGlite the rounds take
  // turns on the one session, and both relays still publish a share.
  it('shares one outbox between two relays: both publish, each key in order, nothing twice', async () => {
    const bus = new InProcessBus();
    const topic = uniqueName('es.outbox.shared');
    await bus.ensureTopics([{ name: topic, partitions: 4 }]);
    const collector = await collectMessages(bus, [topic]);
    const publishedBy = [0, 0];
    // Small batches and few slots per round, so the work takes many rounds of both.
    const options = (relay: number) => ({ ...FAST, batchSize: 10, slotsPerRound: 4, onPublished: (rows: number) => (publishedBy[relay] += rows) });
    const relays = [
      new OutboxRelay(await db.connect(), db.schema, bus, quietLog, options(0)),
      new OutboxRelay(await db.connect(), db.schema, bus, quietLog, options(1)),
    ];
    const keys = Array.from({ length: 24 }, (_, i) => `ws:shared-${i}`);
    const seqsPerKey = 6;
    try {
      for (const key of keys) {
        await store.append({
          streamId: uniqueName('run'),
          expectedPosition: 0,
          events: [{ type: 'decided', data: {} }],
          outbox: outbox(topic, key, Array.from({ length: seqsPerKey / 2 }, (_, i) => i)),
        });
      }
      relays.forEach((r) => r.start());
      // More rows arrive while they run: the relays are woken and keep sharing.
      for (const key of keys) {
        await store.append({
          streamId: uniqueName('run'),
          expectedPosition: 0,
          events: [{ type: 'decided', data: {} }],
          outbox: outbox(topic, key, Array.from({ length: seqsPerKey / 2 }, (_, i) => seqsPerKey / 2 + i)),
        });
      }

      await expectEventually(() => expect(collector.received).toHaveLength(keys.length * seqsPerKey), { timeoutMs: 60_000 });
      await expectEventually(async () => expect(await db.count('outbox')).toBe(0));
      for (const key of keys) expect(seqsOf(collector, key)).toEqual(Array.from({ length: seqsPerKey }, (_, i) => i));
      const ids = collector.received.map((m) => m.headers['message-id']);
      expect(new Set(ids).size).toBe(ids.length);
      // A round reports what it published after its commit: the last report may trail the empty outbox.
      await expectEventually(() => expect(publishedBy[0] + publishedBy[1]).toBe(keys.length * seqsPerKey));
      expect(publishedBy[0]).toBeGreaterThan(0);
      expect(publishedBy[1]).toBeGreaterThan(0);
    } finally {
      await Promise.all(relays.map((r) => r.stop()));
      await collector.subscription.stop();
      await bus.close();
    }
  });

  it('sleeps while idle and is woken by the commit that writes to the outbox', async () => {
    const bus = new InProcessBus();
    const topic = uniqueName('es.outbox.wake');
    await bus.ensureTopics([{ name: topic, partitions: 1 }]);
    const collector = await collectMessages(bus, [topic]);
    // Without a wake-up, the row would wait a minute for the next poll.
    const relay = new OutboxRelay(db.dataSource, db.schema, bus, quietLog, { idleDelayMs: 60_000, safetyPollMs: 60_000 });
    try {
      relay.start();
      await relay.pollOnce();
      await store.append({ streamId: uniqueName('run'), expectedPosition: 0, events: [{ type: 'decided', data: {} }], outbox: outbox(topic, 'ws:wake', [1]) });
      await expectEventually(() => expect(seqsOf(collector, 'ws:wake')).toEqual([1]), { timeoutMs: 20_000 });
    } finally {
      await relay.stop();
      await collector.subscription.stop();
      await bus.close();
    }
  });

  // Another process's session: on PGlite every connection shares one session, and one process.
  if (dbTarget.kind === 'postgres') {
    it("is woken at once by its own process's rows, and by another process's only after othersWakeDelayMs", async () => {
      const bus = new InProcessBus();
      const topic = uniqueName('es.outbox.origin');
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const collector = await collectMessages(bus, [topic]);
      const elsewhere = (await db.connect()).createQueryRunner();
      await elsewhere.query(`SET herald.origin = 'another-process'`);
      const writeElsewhere = (key: string): Promise<unknown> =>
        elsewhere.query(`INSERT INTO "${db.schema}".outbox (message_id, topic, key, value, headers) VALUES ($1, $2, $3, $4, '{}')`, [
          uniqueName('msg'),
          topic,
          key,
          JSON.stringify({ key, seq: 1 }),
        ]);
      // No poll for a minute: only a wake-up moves a row.
      const idle = { idleDelayMs: 60_000, safetyPollMs: 60_000 };
      const patient = new OutboxRelay(db.dataSource, db.schema, bus, quietLog, { ...idle, othersWakeDelayMs: 60_000 });
      const prompt = new OutboxRelay(db.dataSource, db.schema, bus, quietLog, { ...idle, othersWakeDelayMs: 200 });
      try {
        patient.start();
        await patient.pollOnce();
        await writeElsewhere('ws:theirs');
        await store.append({ streamId: uniqueName('run'), expectedPosition: 0, events: [{ type: 'decided', data: {} }], outbox: outbox(topic, 'ws:mine', [1]) });
        await expectEventually(() => expect(seqsOf(collector, 'ws:mine')).toEqual([1]), { timeoutMs: 20_000 });
        // Woken by its own row, its round took every row there was: the other's row written before went too.
        expect(seqsOf(collector, 'ws:theirs')).toEqual([1]);
        await writeElsewhere('ws:theirs-later');
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(seqsOf(collector, 'ws:theirs-later')).toEqual([]);
        // Started before the other stops, so the shared LISTEN connection stays up.
        prompt.start();
        await patient.stop();
        await expectEventually(() => expect(seqsOf(collector, 'ws:theirs-later')).toEqual([1]), { timeoutMs: 20_000 });
        await writeElsewhere('ws:theirs-last');
        await expectEventually(() => expect(seqsOf(collector, 'ws:theirs-last')).toEqual([1]), { timeoutMs: 20_000 });
      } finally {
        await patient.stop();
        await prompt.stop();
        await elsewhere.release();
        await collector.subscription.stop();
        await bus.close();
      }
    });
  }
});
