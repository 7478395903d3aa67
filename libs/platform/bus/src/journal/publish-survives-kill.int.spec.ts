import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  RunningProcess,
  databaseTargets,
  describeTarget,
  expectEventually,
  heraldEnv,
  startNodeEntrypoint,
  uniqueName,
} from '@herald/testing';
import { InProcessBus } from '../in-process/in-process-bus';
import { PostgresBusJournal } from './postgres-bus-journal';
import { JournalTestDatabase, openJournalTestDatabase } from './testing/journal-test-database';
import { PARTITIONS, PRODUCERS } from './testing/publisher-workload';

const PUBLISHER = 'libs/platform/bus/src/journal/testing/publisher-process.ts';

interface Published {
  readonly key: string;
  readonly producer: number;
  readonly seq: number;
}

/** The highest acknowledged sequence number of each producer, from the publisher's output. */
function lastAcked(output: string): number[] {
  const last = Array.from({ length: PRODUCERS }, () => -1);
  for (const [, producer, seq] of output.matchAll(/^acked (\d+) (\d+)$/gm)) {
    last[Number(producer)] = Math.max(last[Number(producer)], Number(seq));
  }
  return last;
}

describe.each(databaseTargets())('a publish acknowledged before kill -9 ($kind)', (target) => {
  let dataDir: string;
  let db: JournalTestDatabase | undefined;
  let publisher: RunningProcess | undefined;
  let bus: InProcessBus | undefined;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'herald-bus-kill-'));
  });
  afterAll(async () => {
    await publisher?.stop('SIGKILL');
    await bus?.close();
    await db?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`is delivered after the restart, in order per key (${describeTarget(target)})`, async () => {
    const topic = uniqueName('journal.kill');
    // PGlite in a folder the publisher opens (and this test after it), or a temporary database on the server.
    db = target.kind === 'postgres' ? await openJournalTestDatabase(target) : undefined;
    const storage: Record<string, string> = db ? { BUS_TEST_DATABASE_URL: db.url } : { BUS_TEST_DATA_DIR: dataDir };
    const running = startNodeEntrypoint('publisher', PUBLISHER, heraldEnv({ BUS_TEST_TOPIC: topic, ...storage }));
    publisher = running;
    await expectEventually(() => expect(Math.min(...lastAcked(running.output()))).toBeGreaterThanOrEqual(100), { timeoutMs: 60_000 });
    expect(await running.stop('SIGKILL')).toBe('SIGKILL');
    const acked = lastAcked(running.output());

    db ??= await openJournalTestDatabase(target, dataDir);
    bus = new InProcessBus({ journal: new PostgresBusJournal({ url: db.url }) });
    await bus.ensureTopics([{ name: topic, partitions: PARTITIONS }]);
    const received: Published[] = [];
    await bus.subscribe({
      groupId: uniqueName('g'),
      topics: [topic],
      handler: async (m) => void received.push({ key: m.key, ...(JSON.parse(m.value.toString()) as Omit<Published, 'key'>) }),
    });
    const seqsOf = (producer: number): number[] =>
      [...new Set(received.filter((p) => p.producer === producer).map((p) => p.seq))].sort((a, b) => a - b);

    await expectEventually(() => {
      for (let producer = 0; producer < PRODUCERS; producer++) expect(seqsOf(producer).length).toBeGreaterThan(acked[producer]);
    });
    for (let producer = 0; producer < PRODUCERS; producer++) {
      // Every acknowledged publish, and at most the one that was in flight besides.
      const seqs = seqsOf(producer);
      expect(seqs.slice(0, acked[producer] + 1)).toEqual(Array.from({ length: acked[producer] + 1 }, (_, i) => i));
      expect(seqs.length).toBeLessThanOrEqual(acked[producer] + 2);
    }
    for (const key of new Set(received.map((p) => p.key))) {
      const ofKey = received.filter((p) => p.key === key).map((p) => p.seq);
      expect(ofKey).toEqual([...ofKey].sort((a, b) => a - b));
    }
  });
});
