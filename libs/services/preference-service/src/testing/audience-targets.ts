import { BusTarget, DatabaseTarget, busTargets, databaseTargets, describeTarget } from '@herald/testing';

export interface AudienceTarget {
  readonly name: string;
  readonly database: DatabaseTarget;
  readonly bus: BusTarget;
}

/** Embedded (PGlite, in-process bus) always; the configured Postgres and Kafka when set. */
export function audienceTargets(): AudienceTarget[] {
  const [embeddedDb, realDb] = databaseTargets();
  const [inProcess, kafka] = busTargets();
  const targets: AudienceTarget[] = [{ name: 'embedded: PGlite and the in-process bus', database: embeddedDb, bus: inProcess }];
  if (realDb || kafka) {
    const database = realDb ?? embeddedDb;
    const bus = kafka ?? inProcess;
    targets.push({ name: `distributed: ${describeTarget(database)} and ${describeTarget(bus)}`, database, bus });
  }
  return targets;
}
