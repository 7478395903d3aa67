import { randomBytes } from 'node:crypto';

/**
 * Which real infrastructure the integration suite runs against, besides the
 * embedded defaults that always run. Configured infrastructure that cannot be
 * reached fails the tests that use it; nothing is skipped silently.
 *
 * HERALD_TEST_KAFKA_BROKERS   e.g. 127.0.0.1:9092
 * HERALD_TEST_DATABASE_URL    e.g. postgres://postgres@127.0.0.1:5432/herald_ci
 */
export interface TestInfrastructure {
  readonly kafkaBrokers?: readonly string[];
  readonly databaseUrl?: string;
}

export function testInfrastructure(env: NodeJS.ProcessEnv = process.env): TestInfrastructure {
  const brokers = env.HERALD_TEST_KAFKA_BROKERS?.split(',').map((b) => b.trim()).filter(Boolean);
  const databaseUrl = env.HERALD_TEST_DATABASE_URL?.trim() || undefined;
  return { kafkaBrokers: brokers && brokers.length > 0 ? brokers : undefined, databaseUrl };
}

export type BusTarget = { readonly kind: 'in-process' } | { readonly kind: 'kafka'; readonly brokers: readonly string[] };
export type DatabaseTarget = { readonly kind: 'embedded' } | { readonly kind: 'postgres'; readonly url: string };

export function busTargets(infra: TestInfrastructure = testInfrastructure()): BusTarget[] {
  const targets: BusTarget[] = [{ kind: 'in-process' }];
  if (infra.kafkaBrokers) targets.push({ kind: 'kafka', brokers: infra.kafkaBrokers });
  return targets;
}

export function databaseTargets(infra: TestInfrastructure = testInfrastructure()): DatabaseTarget[] {
  const targets: DatabaseTarget[] = [{ kind: 'embedded' }];
  if (infra.databaseUrl) targets.push({ kind: 'postgres', url: infra.databaseUrl });
  return targets;
}

export function describeTarget(target: BusTarget | DatabaseTarget): string {
  switch (target.kind) {
    case 'in-process':
      return 'in-process bus';
    case 'kafka':
      return `Kafka at ${target.brokers.join(',')}`;
    case 'embedded':
      return 'embedded PGlite';
    case 'postgres':
      return `Postgres at ${redactUrl(target.url)}`;
  }
}

function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

/** A name no other test run uses, for topics, groups and schemas. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}
