import { Kafka, logLevel } from 'kafkajs';
import { busTargets, expectEventually, freePort, uniqueName } from '@herald/testing';
import { classifyFailure } from '../failure-classification';
import { IncomingMessage } from '../message-bus.port';
import { partitionFor } from '../partitioner';
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
