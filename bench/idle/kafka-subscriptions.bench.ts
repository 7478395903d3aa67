/**
 * CPU of idle Kafka subscriptions (issue 21: what each replica costs with nothing to
 * do): this process's CPU (process.cpuUsage) as a % of one core, first with the bus
 * connected and no subscription (the peer), then with N subscriptions, each its own
 * consumer group on its own empty 12-partition topic, as a dispatcher has 14.
 *
 *   HERALD_TEST_KAFKA_BROKERS=127.0.0.1:9092 node -r ./tools/register.js bench/idle/kafka-subscriptions.bench.ts \
 *     [--subscriptions 14] [--seconds 20] [--fetch-wait-ms 3000]
 *
 * Also reports how long stopping all the idle subscriptions took (they stop at once).
 *
 * Figures live in bench/RESULTS.md ("Relay and idle").
 */
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

import { DEFAULT_FETCH_WAIT_MS, KafkaBus, Subscription } from '@herald/bus';
import { uniqueName } from '@herald/testing';
import { deleteNamespace } from '../startup/distributed-startup';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const subscriptions = arg('subscriptions', 14);
const seconds = arg('seconds', 20);
const fetchWaitMs = arg('fetch-wait-ms', DEFAULT_FETCH_WAIT_MS);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** % of one core this process uses over `seconds`. */
async function cpuPercent(): Promise<number> {
  const before = process.cpuUsage();
  const started = Date.now();
  await sleep(seconds * 1000);
  const used = process.cpuUsage(before);
  return ((used.user + used.system) / 1000 / (Date.now() - started)) * 100;
}

async function main(): Promise<void> {
  const brokers = process.env.HERALD_TEST_KAFKA_BROKERS;
  if (!brokers) throw new Error('HERALD_TEST_KAFKA_BROKERS is required');
  const namespace = uniqueName('idlesubs');
  const bus = new KafkaBus({ brokers: brokers.split(','), clientId: 'herald-bench-idle-subscriptions', maxWaitTimeMs: fetchWaitMs });
  const started: Subscription[] = [];
  try {
    const topics = Array.from({ length: subscriptions }, (_, i) => `${namespace}.topic-${i}`);
    await bus.ensureTopics(topics.map((name) => ({ name, partitions: 12 })));
    await sleep(2_000);
    const peer = await cpuPercent();
    for (const topic of topics) started.push(await bus.subscribe({ groupId: `${topic}.group`, topics: [topic], handler: async () => undefined }));
    // Joins and the first fetches settle before the window.
    await sleep(5_000);
    const idle = await cpuPercent();
    const stopping = Date.now();
    await Promise.all(started.splice(0).map((s) => s.stop()));
    const stopMs = Date.now() - stopping;
    process.stdout.write(
      `${JSON.stringify({ subscriptions, seconds, fetchWaitMs, peerPercentOfCore: Number(peer.toFixed(2)), subscribedPercentOfCore: Number(idle.toFixed(2)), stopMs })}\n`,
    );
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    await bus.close();
    await deleteNamespace(brokers, namespace).catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
