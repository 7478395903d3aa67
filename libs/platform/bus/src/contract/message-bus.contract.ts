import { expectEventually, uniqueName } from '@herald/testing';
import { MessageTooLargeError } from '../failure-classification';
import { DEFAULT_MAX_MESSAGE_BYTES, IncomingMessage, MessageBus, Subscription } from '../message-bus.port';
import { partitionFor } from '../partitioner';

export interface BusContractOptions {
  /** Creates a fresh bus; the suite closes it. */
  readonly createBus: () => Promise<MessageBus>;
  /** Group rebalances on a real broker take seconds. */
  readonly rebalanceTimeoutMs: number;
}

const FAST_RETRY = { initialDelayMs: 20, maxDelayMs: 200 };

/**
 * The behaviour every MessageBus adapter must show. Run by each adapter's spec, so
 * the embedded mode and the distributed mode cannot drift apart.
 */
export function messageBusContract({ createBus, rebalanceTimeoutMs }: BusContractOptions): void {
  let bus: MessageBus;
  const subscriptions: Subscription[] = [];
  const waitOpts = { timeoutMs: rebalanceTimeoutMs + 20_000 };

  beforeEach(async () => {
    bus = await createBus();
  });

  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
    await bus.close();
  });

  async function subscribe(
    groupId: string,
    topics: string[],
    handler: (m: IncomingMessage) => Promise<void>,
  ): Promise<Subscription> {
    const subscription = await bus.subscribe({ groupId, topics, handler, retry: FAST_RETRY });
    subscriptions.push(subscription);
    return subscription;
  }

  function payloads(received: IncomingMessage[]): string[] {
    return received.map((m) => m.value.toString('utf8'));
  }

  it('delivers key, value and headers to a subscriber, on the partition Kafka would choose', async () => {
    const topic = uniqueName('contract.basic');
    await bus.ensureTopics([{ name: topic, partitions: 3 }]);
    const received: IncomingMessage[] = [];
    await subscribe(uniqueName('g'), [topic], async (m) => {
      received.push(m);
    });

    await bus.publish(topic, [{ key: 'ws:user-1', value: '{"n":1}', headers: { 'x-message-id': 'm-1' } }]);

    await expectEventually(() => expect(received).toHaveLength(1), waitOpts);
    const [message] = received;
    expect(message.key).toBe('ws:user-1');
    expect(message.value.toString()).toBe('{"n":1}');
    expect(message.headers['x-message-id']).toBe('m-1');
    expect(message.partition).toBe(partitionFor(topic, 'ws:user-1', 3));
    expect(message.attempt).toBe(1);
    expect(message.origin).toEqual({ topic, groupId: received[0].origin.groupId });
  });

  it('refuses a message larger than the broker takes before sending any of its call, and goes on', async () => {
    const topic = uniqueName('contract.size');
    await bus.ensureTopics([{ name: topic, partitions: 3 }]);
    const received: IncomingMessage[] = [];
    await subscribe(uniqueName('g'), [topic], async (m) => {
      received.push(m);
    });

    const tooLarge = { key: 'ws:big', value: Buffer.alloc(DEFAULT_MAX_MESSAGE_BYTES) };
    await expect(
      bus.publish(topic, [{ key: 'ws:a', value: 'refused-1' }, tooLarge, { key: 'ws:b', value: 'refused-2' }]),
    ).rejects.toBeInstanceOf(MessageTooLargeError);
    // A call of many messages larger than one produce request goes out whole, in order.
    const many = Array.from({ length: 40 }, (_, i) => ({ key: `ws:k${i % 4}`, value: `${i}:${'x'.repeat(100_000)}` }));
    await bus.publish(topic, many);
    await bus.publish(topic, [{ key: 'ws:a', value: 'after' }]);

    await expectEventually(() => expect(received).toHaveLength(41), waitOpts);
    const values = payloads(received).map((v) => v.split(':')[0]);
    expect(values).not.toContain('refused-1');
    expect(values).not.toContain('refused-2');
    for (let k = 0; k < 4; k++) {
      const ofKey = received.filter((m) => m.key === `ws:k${k}`).map((m) => Number(m.value.toString().split(':')[0]));
      expect(ofKey).toEqual([...ofKey].sort((x, y) => x - y));
      expect(ofKey).toHaveLength(10);
    }
  });

  it('creates topics idempotently', async () => {
    const topic = uniqueName('contract.ensure');
    await bus.ensureTopics([{ name: topic, partitions: 2 }]);
    await expect(bus.ensureTopics([{ name: topic, partitions: 2 }])).resolves.toBeUndefined();
  });

  it('keeps order per key across 1,000 messages on 6 partitions', async () => {
    const topic = uniqueName('contract.order');
    await bus.ensureTopics([{ name: topic, partitions: 6 }]);
    const keys = Array.from({ length: 25 }, (_, i) => `ws:recipient-${i}`);
    const received: IncomingMessage[] = [];
    await subscribe(uniqueName('g'), [topic], async (m) => {
      received.push(m);
    });

    const messages = Array.from({ length: 1000 }, (_, seq) => ({
      key: keys[seq % keys.length],
      value: JSON.stringify({ seq }),
    }));
    // Several publish calls, as independent producers would send them.
    for (let i = 0; i < messages.length; i += 100) await bus.publish(topic, messages.slice(i, i + 100));

    await expectEventually(() => expect(received).toHaveLength(1000), waitOpts);
    const partitionsUsed = new Set(received.map((m) => m.partition));
    expect(partitionsUsed.size).toBeGreaterThan(1);
    for (const key of keys) {
      const ofKey = received.filter((m) => m.key === key);
      const seqs = ofKey.map((m) => (JSON.parse(m.value.toString()) as { seq: number }).seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(seqs).toHaveLength(40);
      expect(new Set(ofKey.map((m) => m.partition))).toEqual(new Set([partitionFor(topic, key, 6)]));
    }
  });

  it('delivers a message again after its handler throws, before anything later on that partition', async () => {
    const topic = uniqueName('contract.redeliver');
    await bus.ensureTopics([{ name: topic, partitions: 1 }]);
    const seen: Array<{ value: string; attempt: number }> = [];
    let failuresLeft = 2;
    await subscribe(uniqueName('g'), [topic], async (m) => {
      seen.push({ value: m.value.toString(), attempt: m.attempt });
      if (m.value.toString() === 'poisonous-once' && failuresLeft-- > 0) throw new Error('transient failure');
    });

    await bus.publish(topic, [
      { key: 'k', value: 'first' },
      { key: 'k', value: 'poisonous-once' },
      { key: 'k', value: 'after' },
    ]);

    await expectEventually(() => expect(seen.map((s) => s.value)).toContain('after'), waitOpts);
    expect(seen).toEqual([
      { value: 'first', attempt: 1 },
      { value: 'poisonous-once', attempt: 1 },
      { value: 'poisonous-once', attempt: 2 },
      { value: 'poisonous-once', attempt: 3 },
      { value: 'after', attempt: 1 },
    ]);
  });

  it('delivers every message to each consumer group', async () => {
    const topic = uniqueName('contract.groups');
    await bus.ensureTopics([{ name: topic, partitions: 2 }]);
    const a: IncomingMessage[] = [];
    const b: IncomingMessage[] = [];
    await subscribe(uniqueName('ga'), [topic], async (m) => void a.push(m));
    await subscribe(uniqueName('gb'), [topic], async (m) => void b.push(m));

    await bus.publish(topic, Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })));

    await expectEventually(() => {
      expect(a).toHaveLength(20);
      expect(b).toHaveLength(20);
    }, waitOpts);
    expect(new Set(payloads(a))).toEqual(new Set(payloads(b)));
  });

  it('splits partitions between two members of one group, and the survivor takes over when one stops', async () => {
    const topic = uniqueName('contract.members');
    const group = uniqueName('g');
    await bus.ensureTopics([{ name: topic, partitions: 6 }]);
    const byMember = { first: [] as IncomingMessage[], second: [] as IncomingMessage[] };
    const first = await subscribe(group, [topic], async (m) => void byMember.first.push(m));
    const second = await subscribe(group, [topic], async (m) => void byMember.second.push(m));

    await expectEventually(() => {
      const a = first.assignment();
      const b = second.assignment();
      expect(a.length).toBeGreaterThan(0);
      expect(b.length).toBeGreaterThan(0);
      expect(a.filter((tp) => b.includes(tp))).toEqual([]);
      expect([...a, ...b].sort()).toEqual(Array.from({ length: 6 }, (_, p) => `${topic}:${p}`).sort());
    }, waitOpts);

    const batchOne = Array.from({ length: 60 }, (_, i) => ({ key: `key-${i}`, value: `one-${i}` }));
    await bus.publish(topic, batchOne);
    await expectEventually(
      () => expect(new Set(payloads([...byMember.first, ...byMember.second])).size).toBe(60),
      waitOpts,
    );
    expect(byMember.first.length).toBeGreaterThan(0);
    expect(byMember.second.length).toBeGreaterThan(0);

    await first.stop();
    await expectEventually(() => expect(second.assignment()).toHaveLength(6), waitOpts);

    const batchTwo = Array.from({ length: 60 }, (_, i) => ({ key: `key-${i}`, value: `two-${i}` }));
    await bus.publish(topic, batchTwo);
    await expectEventually(() => {
      const survivor = new Set(payloads(byMember.second));
      for (const m of batchTwo) expect(survivor).toContain(m.value);
    }, waitOpts);
  });

  it('hands an uncommitted message to the next owner when its member stops mid-retry', async () => {
    const topic = uniqueName('contract.handover');
    const group = uniqueName('g');
    await bus.ensureTopics([{ name: topic, partitions: 1 }]);
    const firstSaw: string[] = [];
    const first = await subscribe(group, [topic], async (m) => {
      firstSaw.push(m.value.toString());
      throw new Error('this member cannot handle anything');
    });
    await bus.publish(topic, [{ key: 'k', value: 'must-not-be-lost' }]);
    await expectEventually(() => expect(firstSaw).toContain('must-not-be-lost'), waitOpts);
    await first.stop();

    const secondSaw: string[] = [];
    await subscribe(group, [topic], async (m) => void secondSaw.push(m.value.toString()));
    await expectEventually(() => expect(secondSaw).toEqual(['must-not-be-lost']), waitOpts);
  });

  async function subscribeBatches(groupId: string, topics: string[], batchHandler: (batch: readonly IncomingMessage[]) => Promise<void>, maxBatchMessages?: number): Promise<Subscription> {
    const handler = async (): Promise<void> => {
      throw new Error('batch mode: the one-message handler is not called');
    };
    const subscription = await bus.subscribe({ groupId, topics, handler, batchHandler, retry: FAST_RETRY, ...(maxBatchMessages ? { maxBatchMessages } : {}) });
    subscriptions.push(subscription);
    return subscription;
  }

  it('batch mode: hands each partition\'s queued messages as one call, in offset order, at most maxBatchMessages, each once', async () => {
    const topic = uniqueName('contract.batch');
    await bus.ensureTopics([{ name: topic, partitions: 3 }]);
    // Published before anyone consumes, so there is a backlog to hand over in batches.
    for (let i = 0; i < 300; i += 100) {
      await bus.publish(topic, Array.from({ length: 100 }, (_, j) => ({ key: `ws:k${(i + j) % 7}`, value: String(i + j) })));
    }
    const batches: IncomingMessage[][] = [];
    await subscribeBatches(uniqueName('g'), [topic], async (batch) => void batches.push([...batch]), 40);

    await expectEventually(() => expect(batches.flat()).toHaveLength(300), waitOpts);
    for (const batch of batches) {
      expect(batch.length).toBeGreaterThan(0);
      expect(batch.length).toBeLessThanOrEqual(40);
      expect(new Set(batch.map((m) => m.partition)).size).toBe(1);
      expect(batch.every((m) => m.attempt === 1)).toBe(true);
    }
    expect(batches.some((batch) => batch.length > 1)).toBe(true);
    for (let partition = 0; partition < 3; partition++) {
      const offsets = batches.flat().filter((m) => m.partition === partition).map((m) => Number(m.offset));
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
      expect(new Set(offsets).size).toBe(offsets.length);
    }
    expect(new Set(payloads(batches.flat())).size).toBe(300);
  });

  it('batch mode: a batch whose handler throws is handed again whole, with the next attempt, before anything later', async () => {
    const topic = uniqueName('contract.batch-retry');
    await bus.ensureTopics([{ name: topic, partitions: 1 }]);
    await bus.publish(topic, ['first', 'poisonous-once', 'second'].map((value) => ({ key: 'k', value })));
    const seen: Array<{ values: string[]; attempts: number[] }> = [];
    let failuresLeft = 2;
    await subscribeBatches(uniqueName('g'), [topic], async (batch) => {
      const values = payloads([...batch]);
      seen.push({ values, attempts: batch.map((m) => m.attempt) });
      if (values.includes('poisonous-once') && failuresLeft-- > 0) throw new Error('transient failure');
    });
    await expectEventually(() => expect(seen.flatMap((s) => s.values)).toContain('second'), waitOpts);
    await bus.publish(topic, [{ key: 'k', value: 'after' }]);
    await expectEventually(() => expect(seen.flatMap((s) => s.values)).toContain('after'), waitOpts);

    const failing = seen.filter((s) => s.values.includes('poisonous-once'));
    expect(failing).toHaveLength(3);
    expect(failing.map((s) => s.values)).toEqual([failing[0].values, failing[0].values, failing[0].values]);
    failing.forEach((s, i) => expect(s.attempts).toEqual(s.values.map(() => i + 1)));
    // What was handed after the failures: each message once more at most, in order, nothing skipped.
    const consumed = seen.filter((s, i) => !s.values.includes('poisonous-once') || i === seen.indexOf(failing[2])).flatMap((s) => s.values);
    expect(consumed).toEqual(['first', 'poisonous-once', 'second', 'after']);
  });
}
