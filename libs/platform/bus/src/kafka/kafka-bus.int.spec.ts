import { Kafka, logLevel } from 'kafkajs';
import { busTargets, expectEventually, freePort, uniqueName } from '@herald/testing';
import { classifyFailure } from '../failure-classification';
import { IncomingMessage } from '../message-bus.port';
import { partitionFor } from '../partitioner';
import { sleep } from '../sleep';
import { KafkaBus } from './kafka-bus';

describe('KafkaBus health', () => {
  it('fails its health check promptly when no broker answers', async () => {
    const bus = new KafkaBus({ brokers: [`127.0.0.1:${await freePort()}`], clientId: 'herald-health-test' });
    await expect(bus.checkHealth(1_000)).rejects.toThrow();
    await bus.close().catch(() => undefined);
  });
});

const kafka = busTargets().find((t) => t.kind === 'kafka');

(kafka ? describe : describe.skip)('KafkaBus after the broker refused part of a produce request', () => {
  const brokers = kafka?.kind === 'kafka' ? kafka.brokers : [];

  it('keeps publishing to the partitions the broker did append (a new producer, not a rewound sequence)', async () => {
    // A topic whose limit is below the bus's, so the broker (not the bus) refuses, and
    // the refused message is small enough to share a produce request with others.
    const topic = uniqueName('kafka.refusal');
    const admin = new Kafka({ brokers: [...brokers], clientId: 'herald-refusal-admin', logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic, numPartitions: 3, configEntries: [{ name: 'max.message.bytes', value: '100000' }] }],
    });
    await admin.disconnect();
    const bus = new KafkaBus({ brokers, clientId: 'herald-refusal-test' });
    try {
      await bus.ensureTopics([{ name: topic, partitions: 3 }]);
      const small = 'ws:small';
      const big = ['ws:big-1', 'ws:big-2', 'ws:big-3', 'ws:big-4'].find((k) => partitionFor(topic, k, 3) !== partitionFor(topic, small, 3)) as string;
      const received: IncomingMessage[] = [];
      const subscription = await bus.subscribe({ groupId: uniqueName('g'), topics: [topic], handler: async (m) => void received.push(m) });
      await bus.publish(topic, [{ key: small, value: 'warm' }]);

      const refused = bus.publish(topic, [
        { key: small, value: 'a1' },
        { key: small, value: 'a2' },
        { key: big, value: Buffer.alloc(200_000) },
      ]);
      await expect(refused).rejects.toMatchObject({ type: 'MESSAGE_TOO_LARGE' });
      expect(classifyFailure(await refused.catch((e: unknown) => e)).kind).toBe('permanent');
      // The broker appended a1 and a2 all the same. With kafkajs's rewound sequence,
      // the next single publish there fails (out of order sequence) and the pair after
      // it is acknowledged but dropped as a duplicate of a1, a2.
      await bus.publish(topic, [{ key: small, value: 'b1' }]);
      await bus.publish(topic, [{ key: small, value: 'c1' }, { key: small, value: 'c2' }]);

      await expectEventually(() => expect(received.map((m) => m.value.toString())).toEqual(['warm', 'a1', 'a2', 'b1', 'c1', 'c2']), {
        timeoutMs: 30_000,
      });
      await subscription.stop();
    } finally {
      await bus.close();
    }
  });

  it('reports an unreachable broker as transient', async () => {
    const bus = new KafkaBus({ brokers: [`127.0.0.1:${await freePort()}`], clientId: 'herald-down-test' });
    const error = await bus.publish('any', [{ key: 'k', value: 'v' }]).catch((e: unknown) => e);
    expect(classifyFailure(error).kind).toBe('transient');
    await bus.close().catch(() => undefined);
  }, 120_000);
});

(kafka ? describe : describe.skip)('KafkaBus consumers with nothing to read (see idle-fetch.ts)', () => {
  const brokers = kafka?.kind === 'kafka' ? kafka.brokers : [];
  // An idle fetch that waits a minute: without idle-fetch.ts a stop, and a join into the
  // group, would wait for it to end.
  const IDLE_WAIT_MS = 60_000;

  it('stops without waiting for the idle fetch in flight', async () => {
    const topic = uniqueName('kafka.idle-stop');
    const bus = new KafkaBus({ brokers, clientId: 'herald-idle-stop-test', maxWaitTimeMs: IDLE_WAIT_MS });
    try {
      await bus.ensureTopics([{ name: topic, partitions: 3 }]);
      const received: string[] = [];
      const subscription = await bus.subscribe({ groupId: uniqueName('g'), topics: [topic], handler: async (m) => void received.push(m.value.toString()) });
      // A message wakes the waiting fetch at once, and the next one waits idle again.
      await bus.publish(topic, [{ key: 'k', value: 'first' }]);
      await expectEventually(() => expect(received).toEqual(['first']), { timeoutMs: 20_000 });
      await sleep(1_500);
      const stopping = Date.now();
      await subscription.stop();
      expect(Date.now() - stopping).toBeLessThan(IDLE_WAIT_MS / 2);
    } finally {
      await bus.close();
    }
  }, 120_000);

  it('lets a member join an idle group while the others wait in a fetch, and both consume after it', async () => {
    const topic = uniqueName('kafka.idle-join');
    const groupId = uniqueName('g');
    const first = new KafkaBus({ brokers, clientId: 'herald-idle-join-first', maxWaitTimeMs: IDLE_WAIT_MS });
    const second = new KafkaBus({ brokers, clientId: 'herald-idle-join-second', maxWaitTimeMs: IDLE_WAIT_MS });
    try {
      await first.ensureTopics([{ name: topic, partitions: 4 }]);
      const received: Array<{ member: string; value: string }> = [];
      const member = (name: string) => async (m: IncomingMessage) => void received.push({ member: name, value: m.value.toString() });
      const a = await first.subscribe({ groupId, topics: [topic], handler: member('a') });
      expect(a.assignment()).toHaveLength(4);
      await sleep(1_500);

      // The join completes once the first member has rejoined, which it learns from a
      // heartbeat sent while its fetch waits (within a second), not after the minute.
      const joining = Date.now();
      const b = await second.subscribe({ groupId, topics: [topic], handler: member('b') });
      expect(Date.now() - joining).toBeLessThan(IDLE_WAIT_MS / 2);
      await expectEventually(() => expect([a.assignment().length, b.assignment().length]).toEqual([2, 2]), { timeoutMs: 20_000 });

      const keys = Array.from({ length: 16 }, (_, i) => `key-${i}`);
      await first.publish(topic, keys.map((key) => ({ key, value: key })));
      await expectEventually(() => expect(received.map((r) => r.value).sort()).toEqual([...keys].sort()), { timeoutMs: 40_000 });
      expect(new Set(received.map((r) => r.member))).toEqual(new Set(['a', 'b']));
      await Promise.all([a.stop(), b.stop()]);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  }, 180_000);
});

(kafka ? describe : describe.skip)('KafkaBus offset commits (see deferred-commit.ts)', () => {
  const brokers = kafka?.kind === 'kafka' ? kafka.brokers : [];

  async function committedOffsets(groupId: string, topic: string): Promise<number[]> {
    const admin = new Kafka({ brokers: [...brokers], clientId: 'herald-commit-admin', logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return offsets.partitions.sort((a, b) => a.partition - b.partition).map((p) => Number(p.offset));
    } finally {
      await admin.disconnect();
    }
  }

  it('commits what a consumer handled once it goes idle, and what its last batch handled when it stops', async () => {
    const topic = uniqueName('kafka.commits');
    const groupId = uniqueName('g');
    const bus = new KafkaBus({ brokers, clientId: 'herald-commit-test' });
    try {
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const received: string[] = [];
      let release: (() => void) | undefined;
      const held = new Set<string>(['slow']);
      const subscription = await bus.subscribe({
        groupId,
        topics: [topic],
        handler: async (m) => {
          const value = m.value.toString();
          if (held.has(value)) await new Promise<void>((resolve) => (release = resolve));
          received.push(value);
        },
      });
      // Idle: the batch's commit waits for the interval, the fetch that finds nothing commits it.
      await bus.publish(topic, [{ key: 'k', value: 'a' }, { key: 'k', value: 'b' }]);
      await expectEventually(() => expect(received).toEqual(['a', 'b']), { timeoutMs: 20_000 });
      await expectEventually(async () => expect(await committedOffsets(groupId, topic)).toEqual([2]), { timeoutMs: 10_000 });

      // Stopped while a batch is in hand: the stop waits for it and commits it before leaving.
      await bus.publish(topic, [{ key: 'k', value: 'slow' }]);
      await expectEventually(() => expect(release).toBeDefined(), { timeoutMs: 20_000 });
      await sleep(200);
      const stopping = subscription.stop();
      await sleep(200);
      release?.();
      await stopping;
      expect(received).toEqual(['a', 'b', 'slow']);
      expect(await committedOffsets(groupId, topic)).toEqual([3]);

      // A new member of the group starts after them: nothing handled twice.
      const again: string[] = [];
      const next = await bus.subscribe({ groupId, topics: [topic], handler: async (m) => void again.push(m.value.toString()) });
      await bus.publish(topic, [{ key: 'k', value: 'c' }]);
      await expectEventually(() => expect(again).toEqual(['c']), { timeoutMs: 20_000 });
      await next.stop();
    } finally {
      await bus.close();
    }
  }, 120_000);
});
