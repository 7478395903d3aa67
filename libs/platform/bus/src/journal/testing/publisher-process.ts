// Started as a process of its own by publish-survives-kill.int.spec.ts: producers
// publish through a journaled in-process bus and report every acknowledged publish
// on stdout until the test kills the process.
import { EmbeddedPostgres } from '@herald/database';
import { InProcessBus } from '../../in-process/in-process-bus';
import { PostgresBusJournal } from '../postgres-bus-journal';
import { PARTITIONS, PRODUCERS, keyOf } from './publisher-workload';

async function main(): Promise<void> {
  const { BUS_TEST_DATA_DIR: dataDir, BUS_TEST_DATABASE_URL: url, BUS_TEST_TOPIC: topic } = process.env;
  if (!topic || (!dataDir && !url)) throw new Error('BUS_TEST_TOPIC and BUS_TEST_DATA_DIR or BUS_TEST_DATABASE_URL are required');
  const databaseUrl = url ?? (await EmbeddedPostgres.start({ dataDir })).url;
  const bus = new InProcessBus({ journal: new PostgresBusJournal({ url: databaseUrl }) });
  await bus.ensureTopics([{ name: topic, partitions: PARTITIONS }]);
  await Promise.all(Array.from({ length: PRODUCERS }, (_, producer) => produce(bus, topic, producer)));
}

/** One producer: its own keys, one publish at a time, so its order per key is defined. */
async function produce(bus: InProcessBus, topic: string, producer: number): Promise<never> {
  for (let seq = 0; ; seq++) {
    await bus.publish(topic, [{ key: keyOf(producer, seq), value: JSON.stringify({ producer, seq }) }]);
    process.stdout.write(`acked ${producer} ${seq}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`publisher failed: ${String(error)}\n`);
  process.exit(1);
});
