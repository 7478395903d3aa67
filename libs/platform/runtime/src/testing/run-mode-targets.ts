import { KafkaBus, InProcessBus, MessageBus, NamespacedBus } from '@herald/bus';
import { EmbeddedPostgres } from '@herald/database';
import { BusTarget, DatabaseTarget, busTargets, createTemporaryDatabase, databaseTargets, describeTarget, uniqueName } from '@herald/testing';

/** One way Herald runs, as a service's integration tests exercise it. */
export interface RunModeTarget {
  readonly name: string;
  readonly database: DatabaseTarget;
  readonly bus: BusTarget;
}

/**
 * The two ways Herald runs: embedded (PGlite, in-process bus) and distributed (the
 * configured Postgres and Kafka). Each configured piece is used; a configured but
 * unreachable one fails the suite.
 */
export function runModeTargets(): RunModeTarget[] {
  const [embeddedDb, realDb] = databaseTargets();
  const [inProcess, kafka] = busTargets();
  const targets: RunModeTarget[] = [{ name: 'embedded: PGlite and the in-process bus', database: embeddedDb, bus: inProcess }];
  if (realDb || kafka) {
    const database = realDb ?? embeddedDb;
    const bus = kafka ?? inProcess;
    targets.push({ name: `distributed: ${describeTarget(database)} and ${describeTarget(bus)}`, database, bus });
  }
  return targets;
}

/** A fresh database of the target: an embedded PGlite, or a temporary database on the configured Postgres. */
export async function openTargetDatabase(target: DatabaseTarget): Promise<{ url: string; dispose: () => Promise<void> }> {
  if (target.kind === 'embedded') {
    const embedded = await EmbeddedPostgres.start();
    return { url: embedded.url, dispose: () => embedded.stop() };
  }
  const database = await createTemporaryDatabase(target.url);
  return { url: database.url, dispose: () => database.drop() };
}

/** A bus of the target; on Kafka under a namespace of its own, so test apps never share topics or groups. */
export function openTargetBus(target: BusTarget, clientPrefix: string): MessageBus {
  if (target.kind === 'in-process') return new InProcessBus();
  return new NamespacedBus(new KafkaBus({ brokers: target.brokers, clientId: uniqueName(clientPrefix) }), uniqueName('t'));
}
