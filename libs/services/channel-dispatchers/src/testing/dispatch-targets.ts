import { BusTarget, DatabaseTarget, busTargets, databaseTargets, describeTarget } from '@herald/testing';

export interface DispatchTarget {
  readonly name: string;
  readonly database: DatabaseTarget;
  readonly bus: BusTarget;
}

/**
 * The two ways Herald runs: embedded (PGlite, in-process bus) and distributed (the
 * configured Postgres and Kafka). Each configured piece is used; a configured but
 * unreachable one fails the suite.
 */
export function dispatchTargets(): DispatchTarget[] {
  const [embeddedDb, realDb] = databaseTargets();
  const [inProcess, kafka] = busTargets();
  const targets: DispatchTarget[] = [{ name: 'embedded: PGlite and the in-process bus', database: embeddedDb, bus: inProcess }];
  if (realDb || kafka) {
    const database = realDb ?? embeddedDb;
    const bus = kafka ?? inProcess;
    targets.push({ name: `distributed: ${describeTarget(database)} and ${describeTarget(bus)}`, database, bus });
  }
  return targets;
}
