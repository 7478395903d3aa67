import { databaseTargets, describeTarget, expectEventually, uniqueName } from '@herald/testing';
import { Client } from 'pg';
import { UnstorableMessageError } from '../failure-classification';
import { InProcessBus, InProcessBusOptions } from '../in-process/in-process-bus';
import { IncomingMessage, MessageBus, OutgoingMessage, Subscription } from '../message-bus.port';
import { PostgresBusJournal } from './postgres-bus-journal';
import { JournalTestDatabase, openJournalTestDatabase } from './testing/journal-test-database';
import { ProbeJournal } from './testing/probe-journal';

const PARTITIONS = 4;
const KEYS = Array.from({ length: 10 }, (_, i) => `ws:recipient-${i}`);

/** `count` messages numbered from `from`, spread over KEYS; the value is the number. */
function numbered(from: number, count: number): OutgoingMessage[] {
  return Array.from({ length: count }, (_, i) => ({ key: KEYS[(from + i) % KEYS.length], value: String(from + i) }));
}

function seqs(received: readonly IncomingMessage[]): number[] {
  return received.map((m) => Number(m.value.toString()));
}

/** Every key's messages arrived in publish order. */
function expectOrderPerKey(received: readonly IncomingMessage[]): void {
  for (const key of KEYS) {
    const ofKey = seqs(received.filter((m) => m.key === key));
    expect(ofKey).toEqual([...ofKey].sort((a, b) => a - b));
  }
}

function range(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

describe.each(databaseTargets())('the in-process bus with a journal on $kind', (target) => {
  let db: JournalTestDatabase;
  let sql: Client;
  /** Closed after each test; a test that crashes a bus takes it out first. */
  let buses: InProcessBus[] = [];

  beforeAll(async () => {
    db = await openJournalTestDatabase(target);
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await db?.dispose();
  });
  afterEach(async () => {
    for (const bus of buses.splice(0)) await bus.close();
  });

  function openBus(options: Omit<InProcessBusOptions, 'journal'> = {}): InProcessBus {
    const bus = new InProcessBus({ ...options, journal: new PostgresBusJournal({ url: db.url }) });
    buses.push(bus);
    return bus;
  }

  function openProbedBus(options: Omit<InProcessBusOptions, 'journal'> = {}): { bus: InProcessBus; journal: ProbeJournal } {
    const journal = new ProbeJournal(new PostgresBusJournal({ url: db.url }));
    const bus = new InProcessBus({ ...options, journal });
    buses.push(bus);
    return { bus, journal };
  }

  /** The process dies: no close, and nothing more reaches the database. */
  async function crash(bus: InProcessBus, journal: ProbeJournal): Promise<void> {
    buses = buses.filter((b) => b !== bus);
    await journal.crash();
  }

  async function collect(
    bus: MessageBus,
    topic: string,
    groupId: string,
    startFrom?: 'earliest' | 'latest',
  ): Promise<{ received: IncomingMessage[]; subscription: Subscription }> {
    const received: IncomingMessage[] = [];
    const handler = async (m: IncomingMessage): Promise<void> => void received.push(m);
    const subscription = await bus.subscribe({ groupId, topics: [topic], startFrom, handler });
    return { received, subscription };
  }

  async function newTopic(bus: MessageBus, partitions = PARTITIONS): Promise<string> {
    const topic = uniqueName('journal.t');
    await bus.ensureTopics([{ name: topic, partitions }]);
    return topic;
  }

  async function storedOffsets(topic: string): Promise<Array<{ partition: number; offset: number; value: string }>> {
    const { rows } = await sql.query<{ partition: number; offset: string; value: Buffer }>(
      `SELECT partition, "offset", value FROM bus.messages WHERE topic = $1 ORDER BY partition, "offset"`,
      [topic],
    );
    return rows.map((r) => ({ partition: r.partition, offset: Number(r.offset), value: r.value.toString() }));
  }

  /** Waits until prune rounds have run that all started after this call (the one in flight may not have). */
  async function prunesPass(journal: ProbeJournal): Promise<void> {
    const target = journal.prunesDone + 2;
    await expectEventually(() => expect(journal.prunesDone).toBeGreaterThanOrEqual(target));
  }

  async function committed(groupId: string, topic: string): Promise<number> {
    const { rows } = await sql.query<{ n: string | null }>(
      `SELECT sum(next_offset)::text AS n FROM bus.group_offsets WHERE group_id = $1 AND topic = $2`,
      [groupId, topic],
    );
    return Number(rows[0].n ?? 0);
  }

  it(`resolves publish only once the records are in ${describeTarget(target)}`, async () => {
    const { bus, journal } = openProbedBus();
    const topic = await newTopic(bus);

    const release = journal.holdAppends();
    let resolved = false;
    const publishing = bus.publish(topic, numbered(0, 20)).then(() => (resolved = true));
    await expectEventually(() => expect(journal.appendCalls).toBe(1));
    expect(resolved).toBe(false);
    expect(await storedOffsets(topic)).toEqual([]);

    release();
    await publishing;
    expect((await storedOffsets(topic)).map((r) => Number(r.value)).sort((a, b) => a - b)).toEqual(range(0, 20));
  });

  it('writes concurrent publishes together, with the offsets consumers see and in publish order', async () => {
    const { bus, journal } = openProbedBus();
    const topic = await newTopic(bus);
    const { received } = await collect(bus, topic, uniqueName('g'));

    await Promise.all(range(0, 100).map((seq) => bus.publish(topic, numbered(seq, 1))));

    expect(journal.appendCalls).toBeLessThan(100);
    await expectEventually(() => expect(received).toHaveLength(100));
    expectOrderPerKey(received);
    const stored = await storedOffsets(topic);
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const offsets = stored.filter((r) => r.partition === partition).map((r) => r.offset);
      expect(offsets).toEqual(range(0, offsets.length));
    }
    const asConsumed = received.map((m) => ({ partition: m.partition, offset: Number(m.offset), value: m.value.toString() }));
    expect(asConsumed.sort((a, b) => a.partition - b.partition || a.offset - b.offset)).toEqual(stored);
  });

  it('refuses alone a message with a NUL in its key or a header, so the publishes written with it go through', async () => {
    const bus = openBus();
    const topic = await newTopic(bus);
    const { received } = await collect(bus, topic, uniqueName('g'));

    // Published together, they would share one multi-row INSERT that Postgres refuses whole.
    const outcomes = await Promise.allSettled([
      bus.publish(topic, numbered(0, 3)),
      bus.publish(topic, [{ key: 'ws:\u0000', value: 'nul key' }]),
      bus.publish(topic, [{ key: 'ws:ok', value: 'nul header', headers: { reason: 'a\u0000b' } }]),
      bus.publish(topic, numbered(3, 3)),
    ]);

    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason)).toEqual([
      expect.any(UnstorableMessageError),
      expect.any(UnstorableMessageError),
    ]);
    await expectEventually(() => expect(seqs(received).sort((a, b) => a - b)).toEqual(range(0, 6)));
  });

  it('delivers after a restart what was published and never consumed, in order per key', async () => {
    const first = openBus();
    const topic = await newTopic(first);
    for (let from = 0; from < 300; from += 50) await first.publish(topic, numbered(from, 50));
    await first.close();

    const second = openBus();
    const { received } = await collect(second, topic, uniqueName('g'));
    await expectEventually(() => expect(received).toHaveLength(300));
    expect(seqs(received).sort((a, b) => a - b)).toEqual(range(0, 300));
    expectOrderPerKey(received);
  });

  it('resumes a group after its committed offset, and lets a new group read from the earliest record', async () => {
    const group = uniqueName('g');
    const first = openBus();
    const topic = await newTopic(first);
    const before = await collect(first, topic, group);
    await first.publish(topic, numbered(0, 100));
    await expectEventually(() => expect(before.received).toHaveLength(100));
    await before.subscription.stop();
    await first.publish(topic, numbered(100, 50));
    await first.close();

    const second = openBus();
    await second.publish(topic, numbered(150, 10));
    const { received: resumed } = await collect(second, topic, group);
    const { received: newcomer } = await collect(second, topic, uniqueName('new'), 'earliest');
    await expectEventually(() => {
      expect(resumed).toHaveLength(60);
      expect(newcomer).toHaveLength(160);
    });
    expect(seqs(resumed).sort((a, b) => a - b)).toEqual(range(100, 60));
    expectOrderPerKey(resumed);
    expect(seqs(newcomer).sort((a, b) => a - b)).toEqual(range(0, 160));
    expectOrderPerKey(newcomer);
  });

  it('after a crash, resumes from the offsets written before it and loses nothing published', async () => {
    const group = uniqueName('g');
    const { bus: first, journal } = openProbedBus({ offsetCommitIntervalMs: 20 });
    const topic = await newTopic(first);
    let stalled = false;
    await first.subscribe({
      groupId: group,
      topics: [topic],
      handler: () => (stalled ? new Promise<void>(() => undefined) : Promise.resolve()),
    });
    await first.publish(topic, numbered(0, 60));
    await expectEventually(async () => expect(await committed(group, topic)).toBe(60));
    stalled = true;
    await first.publish(topic, numbered(60, 40));
    await crash(first, journal);

    const second = openBus();
    const { received: after } = await collect(second, topic, group);
    await expectEventually(() => expect(after).toHaveLength(40));
    expect(seqs(after).sort((a, b) => a - b)).toEqual(range(60, 40));
    expectOrderPerKey(after);
  });

  it('after a crash before the offsets were written, delivers the consumed messages again (at least once)', async () => {
    const group = uniqueName('g');
    const { bus: first, journal } = openProbedBus({ offsetCommitIntervalMs: 60_000 });
    const topic = await newTopic(first);
    const { received: before } = await collect(first, topic, group);
    await first.publish(topic, numbered(0, 30));
    await expectEventually(() => expect(before).toHaveLength(30));
    await crash(first, journal);

    const second = openBus();
    const { received: after } = await collect(second, topic, group);
    await expectEventually(() => expect(after).toHaveLength(30));
    expectOrderPerKey(after);
  });

  it('prunes only what every group has consumed, and continues the offsets once a partition is empty', async () => {
    const fast = uniqueName('fast');
    const slow = uniqueName('slow');
    const { bus: first, journal } = openProbedBus({ retentionMs: 0, pruneIntervalMs: 30, offsetCommitIntervalMs: 10 });
    const topic = await newTopic(first, 1);
    await collect(first, topic, fast);
    let releaseSlow = (): void => undefined;
    const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
    await first.subscribe({
      groupId: slow,
      topics: [topic],
      handler: async (m) => {
        if (Number(m.offset) >= 5) await slowGate;
      },
    });

    try {
      await first.publish(topic, numbered(0, 10));
      await expectEventually(async () => expect((await storedOffsets(topic)).map((r) => r.offset)).toEqual(range(5, 5)));
      // More prune rounds leave what the slow group still needs.
      await prunesPass(journal);
      expect((await storedOffsets(topic)).map((r) => r.offset)).toEqual(range(5, 5));
    } finally {
      releaseSlow(); // or closing the bus would wait for the handler
    }
    await expectEventually(async () => expect(await storedOffsets(topic)).toEqual([]));
    await first.close();

    const second = openBus();
    const { received } = await collect(second, topic, fast);
    await second.publish(topic, numbered(10, 1));
    await expectEventually(() => expect(received).toHaveLength(1));
    expect(received[0].offset).toBe('10');
    expect(received[0].value.toString()).toBe('10');
  });

  it('keeps what a group has not consumed while its offset waits for the periodic write, also after a crash', async () => {
    const group = uniqueName('g');
    // The offset timer never fires here: only the prune rounds write the group's offsets.
    const { bus: first, journal } = openProbedBus({ retentionMs: 0, pruneIntervalMs: 20, offsetCommitIntervalMs: 60_000 });
    const topic = await newTopic(first, 1);
    let releaseGroup = (): void => undefined;
    const gate = new Promise<void>((resolve) => (releaseGroup = resolve));
    await first.subscribe({
      groupId: group,
      topics: [topic],
      handler: async (m) => {
        if (Number(m.offset) >= 5) await gate;
      },
    });

    try {
      await first.publish(topic, numbered(0, 10));
      await expectEventually(async () => expect((await storedOffsets(topic)).map((r) => r.offset)).toEqual(range(5, 5)));
      await prunesPass(journal);
      expect((await storedOffsets(topic)).map((r) => r.offset)).toEqual(range(5, 5));
      await crash(first, journal);
    } finally {
      releaseGroup(); // after the crash, nothing it consumes reaches the journal; before, closing the bus would wait for it
    }

    const second = openBus();
    const { received } = await collect(second, topic, group);
    await expectEventually(() => expect(seqs(received)).toEqual(range(5, 5)));
  });

  it('keeps consumed records for the retention period', async () => {
    const { bus, journal } = openProbedBus({ retentionMs: 60_000, pruneIntervalMs: 20, offsetCommitIntervalMs: 10 });
    const topic = await newTopic(bus, 1);
    const group = uniqueName('g');
    const { received } = await collect(bus, topic, group);
    await bus.publish(topic, numbered(0, 10));
    await expectEventually(async () => {
      expect(received).toHaveLength(10);
      expect(await committed(group, topic)).toBe(10);
    });
    await prunesPass(journal);
    expect(await storedOffsets(topic)).toHaveLength(10);
  });
});
