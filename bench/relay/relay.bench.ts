/**
 * The outbox relay shared by replicas (issue 21): one relay, then two on the same
 * schema (each with its own connection pool and Kafka client, as two replicas would
 * have), alternated, draining the same backlog to Kafka. Prints rows/s of each case,
 * the CPU the bench process spent per 1,000 rows, and the ratio of two to one. Both
 * relays run in this one process, so they also share its one core for kafkajs's
 * encoding: what two processes would add is at most what this shows plus that core.
 *
 *   node -r ./tools/register.js bench/relay/relay.bench.ts [--rows 50000] [--keys 5000] [--rounds 2]
 *
 * Environment: HERALD_BENCH_KAFKA_BROKERS (default 127.0.0.1:9092),
 * HERALD_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a
 * temporary database is created on it and dropped at the end).
 */
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaBus } from '@herald/bus';
import { createServiceDataSource, migrateSchema } from '@herald/database';
import { OutboxRelay, eventStoreMigrations, writeOutbox } from '@herald/event-store';
import { createTemporaryDatabase, uniqueName } from '@herald/testing';
import { DataSource } from 'typeorm';
import { numberOption } from '../shared/bench-kit';


const rows = numberOption('--rows', 50_000);
const keys = numberOption('--keys', 5_000);
const rounds = numberOption('--rounds', 2);
const brokers = (process.env['HERALD_BENCH_KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(',');
const serverUrl = process.env['HERALD_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SCHEMA = 'engine';
const VALUE = JSON.stringify({ command: 'deliver', pad: 'x'.repeat(250) });

function progress(line: string): void {
  process.stderr.write(`[bench:relay] ${line}\n`);
}

interface Case {
  readonly relays: number;
  readonly seconds: number;
  readonly rowsPerSecond: number;
  readonly cpuMsPer1000: number;
  readonly publishedBy: readonly number[];
}

async function fill(source: DataSource, topic: string): Promise<void> {
  for (let start = 0; start < rows; start += 1_000) {
    const messages = Array.from({ length: Math.min(1_000, rows - start) }, (_, i) => ({
      messageId: uniqueName(`m${start + i}`),
      topic,
      key: `ws:k${(start + i) % keys}`,
      value: VALUE,
    }));
    await source.transaction((tx) => writeOutbox(tx, `"${SCHEMA}".outbox`, messages));
  }
}

async function drain(sources: readonly DataSource[], buses: readonly KafkaBus[]): Promise<Case> {
  const publishedBy = sources.map(() => 0);
  const relays = sources.map(
    (source, i) => new OutboxRelay(source, SCHEMA, buses[i], () => undefined, { onPublished: (n) => (publishedBy[i] += n) }),
  );
  const cpu = process.cpuUsage();
  const started = performance.now();
  relays.forEach((r) => r.start());
  while (publishedBy.reduce((a, b) => a + b, 0) < rows) await new Promise((resolve) => setTimeout(resolve, 20));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await Promise.all(relays.map((r) => r.stop()));
  const [left] = await sources[0].query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${SCHEMA}".outbox`);
  if (left.n !== 0) throw new Error(`${left.n} rows left in the outbox`);
  const published = publishedBy.reduce((a, b) => a + b, 0);
  if (published !== rows) throw new Error(`published ${published} rows for ${rows}: some twice`);
  return { relays: sources.length, seconds, rowsPerSecond: rows / seconds, cpuMsPer1000: (used.user + used.system) / 1000 / (rows / 1000), publishedBy };
}

async function main(): Promise<void> {
  const database = await createTemporaryDatabase(serverUrl, 'herald_bench_relay');
  const sources: DataSource[] = [];
  const buses: KafkaBus[] = [];
  const topic = uniqueName('bench.relay');
  try {
    for (let i = 0; i < 2; i++) {
      const source = createServiceDataSource({ url: database.url, schema: SCHEMA, migrations: eventStoreMigrations(SCHEMA), applicationName: `herald-bench-relay-${i}`, poolSize: 4 });
      await source.initialize();
      if (i === 0) await migrateSchema(source, SCHEMA);
      sources.push(source);
      const bus = new KafkaBus({ brokers, clientId: `herald-bench-relay-${i}` });
      await bus.checkHealth();
      buses.push(bus);
    }
    await buses[0].ensureTopics([{ name: topic, partitions: 12 }]);
    // A warm-up drain, so both Kafka producers are connected before anything is timed.
    const cases: Case[] = [];
    for (let round = 0; round <= rounds; round++) {
      for (const count of [1, 2]) {
        await fill(sources[0], topic);
        progress(`round ${round}: ${rows} rows in the outbox, draining with ${count} relay(s)`);
        const result = await drain(sources.slice(0, count), buses.slice(0, count));
        progress(`  ${result.rowsPerSecond.toFixed(0)} rows/s, published by ${result.publishedBy.join(' + ')}`);
        if (round > 0) cases.push(result);
      }
    }
    const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
    console.log(`\n| Relays | Rows | Rounds | Rows/s (each round) | CPU ms per 1,000 rows (bench process) | Shares |`);
    console.log(`| ---: | ---: | ---: | --- | --- | --- |`);
    for (const count of [1, 2]) {
      const mine = cases.filter((c) => c.relays === count);
      console.log(
        `| ${count} | ${rows.toLocaleString('en')} | ${mine.length} | ${mine.map((c) => c.rowsPerSecond.toFixed(0)).join(', ')} | ${mine.map((c) => c.cpuMsPer1000.toFixed(0)).join(', ')} | ${mine.map((c) => c.publishedBy.join('+')).join('; ')} |`,
      );
    }
    const one = median(cases.filter((c) => c.relays === 1).map((c) => c.rowsPerSecond));
    const two = median(cases.filter((c) => c.relays === 2).map((c) => c.rowsPerSecond));
    console.log(`\nTwo relays / one: ${(two / one).toFixed(2)}× (medians ${two.toFixed(0)} / ${one.toFixed(0)} rows/s). Load average at the end: ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}.`);
  } finally {
    await Promise.all(buses.map((b) => b.close()));
    await Promise.all(sources.map((s) => s.destroy()));
    await database.drop();
    const admin = new Kafka({ clientId: 'herald-bench-relay-cleanup', brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
