/**
 * The durable in-process bus (journal on PGlite in a data folder, as `npm start` runs
 * it): publish throughput and acknowledgement latency, one message per call with many
 * calls in flight (requests each publishing their trigger) and in batches; then a
 * restart and a new group reading everything back from the journal.
 *
 *   node -r ./tools/register.js bench/bus-journal/bus-journal.bench.ts [--messages 20000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { InProcessBus, PostgresBusJournal } from '@herald/bus';
import { EmbeddedPostgres } from '@herald/database';

const messages = Number(process.argv[process.argv.indexOf('--messages') + 1]) || 20_000;
const PARTITIONS = 12;
const VALUE = JSON.stringify({ event: 'order.shipped', pad: 'x'.repeat(250) });

interface Row {
  readonly phase: string;
  readonly messages: number;
  readonly seconds: number;
  readonly ackP50Ms?: number;
  readonly ackP99Ms?: number;
}

function progress(line: string): void {
  process.stderr.write(`[bench:bus-journal] ${line}\n`);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Publishes `count` messages in calls of `batch`, keeping `inFlight` calls going; times each call. */
async function publishPhase(bus: InProcessBus, topic: string, count: number, batch: number, inFlight: number): Promise<Row> {
  const phase = `publish, ${batch} message(s) per call, ${inFlight} call(s) in flight`;
  const acks: number[] = [];
  let next = 0;
  const started = performance.now();
  const producer = async (): Promise<void> => {
    while (next < count) {
      const from = next;
      next += batch;
      const batchMessages = Array.from({ length: Math.min(batch, count - from) }, (_, i) => ({
        key: `ws:user-${(from + i) % 10_000}`,
        value: VALUE,
      }));
      const sent = performance.now();
      await bus.publish(topic, batchMessages);
      acks.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, producer));
  const seconds = (performance.now() - started) / 1000;
  acks.sort((a, b) => a - b);
  progress(`${phase}: ${Math.round(count / seconds)} msg/s`);
  return { phase, messages: count, seconds, ackP50Ms: percentile(acks, 50), ackP99Ms: percentile(acks, 99) };
}

async function consumeAllPhase(bus: InProcessBus, topic: string, expected: number): Promise<Row> {
  let consumed = 0;
  let done = (): void => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const started = performance.now();
  await bus.subscribe({
    groupId: 'bench-restart',
    topics: [topic],
    startFrom: 'earliest',
    handler: async () => {
      if (++consumed === expected) done();
    },
  });
  await finished;
  const seconds = (performance.now() - started) / 1000;
  return { phase: 'after a restart, a new group reads everything back', messages: expected, seconds };
}

async function main(): Promise<void> {
  setTimeout(() => {
    progress('exceeded 10 minutes, aborting');
    process.exit(3);
  }, 600_000).unref();
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-journal-'));
  const postgres = await EmbeddedPostgres.start({ dataDir });
  const openBus = (): InProcessBus => new InProcessBus({ journal: new PostgresBusJournal({ url: postgres.url }) });
  const topic = 'bench.journal';
  const rows: Row[] = [];
  try {
    const bus = openBus();
    await bus.ensureTopics([{ name: topic, partitions: PARTITIONS }]);
    // One call at a time shows the latency floor (a commit per call), so it gets fewer messages.
    rows.push(await publishPhase(bus, topic, messages / 10, 1, 1));
    rows.push(await publishPhase(bus, topic, messages, 1, 64));
    rows.push(await publishPhase(bus, topic, messages, 500, 4));
    await bus.close();

    const restarted = openBus();
    rows.push(await consumeAllPhase(restarted, topic, rows.reduce((sum, row) => sum + row.messages, 0)));
    await restarted.close();
  } finally {
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  process.stdout.write(`\nPGlite in a data folder, values of ${VALUE.length} bytes, ${PARTITIONS} partitions.\n\n`);
  process.stdout.write('| phase | messages | msg/s | ack p50 (ms) | ack p99 (ms) |\n|---|---:|---:|---:|---:|\n');
  const ms = (value?: number): string => (value === undefined ? '' : value.toFixed(1));
  for (const row of rows) {
    const rate = Math.round(row.messages / row.seconds);
    process.stdout.write(`| ${row.phase} | ${row.messages} | ${rate} | ${ms(row.ackP50Ms)} | ${ms(row.ackP99Ms)} |\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:bus-journal failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
