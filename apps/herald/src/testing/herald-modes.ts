import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTemporaryDatabase, testInfrastructure, uniqueName } from '@herald/testing';

/** A way to run the whole of Herald in a test: its extra environment, and what to clean up. */
export interface HeraldMode {
  readonly name: string;
  prepare(): Promise<{ env: Record<string, string>; dispose: () => Promise<void> }>;
}

/**
 * The embedded default (PGlite, in-process bus), and the same launcher on the configured
 * Kafka (under a namespace of its own) and Postgres (a temporary database) when the test
 * infrastructure names them.
 */
export function heraldModes(prefix: string): HeraldMode[] {
  const infra = testInfrastructure();
  const dataDir = (): string => mkdtempSync(join(tmpdir(), `herald-${prefix}-`));
  const modes: HeraldMode[] = [
    {
      name: 'embedded: PGlite and the in-process bus',
      prepare: async () => {
        const dir = dataDir();
        return { env: { HERALD_DATA_DIR: dir }, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
      },
    },
  ];
  if (infra.kafkaBrokers || infra.databaseUrl) {
    modes.push({
      name: `on ${infra.kafkaBrokers ? 'Kafka' : 'the in-process bus'} and ${infra.databaseUrl ? 'Postgres' : 'PGlite'}`,
      prepare: async () => {
        const dir = dataDir();
        const database = infra.databaseUrl ? await createTemporaryDatabase(infra.databaseUrl) : undefined;
        const env: Record<string, string> = { HERALD_DATA_DIR: dir };
        if (infra.kafkaBrokers) Object.assign(env, { HERALD_KAFKA_BROKERS: infra.kafkaBrokers.join(','), HERALD_KAFKA_NAMESPACE: uniqueName(prefix) });
        if (database) env.HERALD_DATABASE_URL = database.url;
        return {
          env,
          dispose: async () => {
            await database?.drop();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      },
    });
  }
  return modes;
}
