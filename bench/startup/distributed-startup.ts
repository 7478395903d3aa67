/**
 * Time from process start to `/health/ready` answering 200 for each of the five
 * services run on their own (the distributed mode, as Kubernetes runs them), on the
 * real Kafka broker and Postgres server: a first start (fresh database and namespace:
 * migrations, topics, empty groups), a restart (everything at version, groups with
 * committed offsets), and a second replica started while the first runs (every one
 * of its groups rebalances with a live member). Each process runs alone, one after
 * the other, so the figures do not share the two cores with another start.
 *
 * The log lines say where the time goes: the phases are the `time` of the first line,
 * of the last `database schema ready`, of the last `consumer started` and of `service started`.
 */
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { REPO_ROOT, RunningProcess, freePort, heraldEnv, startNodeEntrypoint, uniqueName } from '@herald/testing';
import { CLOCK_TICKS, processTicks } from '../shared/bench-kit';

export const SERVICES = ['ingest-api', 'workflow-engine', 'preference-service', 'management-api', 'channel-dispatchers'] as const;
export type Service = (typeof SERVICES)[number];

export interface StartupSample {
  readonly service: Service;
  readonly label: 'first start' | 'restart' | 'second replica';
  /** Spawn to the first 200 of /health/ready. */
  readonly readyMs: number;
  /**
   * CPU the process used until then (user + system, from /proc): on a shared machine the
   * wall time mostly measures the other processes; this is what the start itself costs.
   */
  readonly cpuMs?: number;
  /** From the first log line to the given milestone, where the log has it. */
  readonly phases: { readonly schemaReadyMs?: number; readonly consumersStartedMs?: number; readonly serviceStartedMs?: number };
}

export interface DistributedStartupOptions {
  readonly brokers: string;
  readonly databaseUrl: string;
  readonly runs: number;
  readonly onSample?: (sample: StartupSample) => void;
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Deletes the run's topics and consumer groups from the shared broker. */
export async function deleteNamespace(brokers: string, namespace: string): Promise<void> {
  const admin = new Kafka({ clientId: 'herald-bench-startup', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((id) => id.startsWith(`${namespace}.`));
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${namespace}.`));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
}

function phasesOf(process: RunningProcess): StartupSample['phases'] {
  const lines = process.logLines();
  const at = (line: Record<string, unknown> | undefined): number | undefined => (line ? Date.parse(String(line.time)) : undefined);
  const first = at(lines[0]);
  if (first === undefined) return {};
  const last = (msg: string): number | undefined => at(lines.filter((l) => l.msg === msg).at(-1));
  const since = (t: number | undefined): number | undefined => (t === undefined ? undefined : t - first);
  return {
    schemaReadyMs: since(last('database schema ready')),
    consumersStartedMs: since(last('consumer started')),
    serviceStartedMs: since(last('service started')),
  };
}

interface Started {
  readonly process: RunningProcess;
  readonly readyMs: number;
  readonly cpuMs?: number;
}

/** User + system CPU of a live process, from /proc (Linux); undefined elsewhere. */
export function cpuMsOf(pid: number | undefined): number | undefined {
  const ticks = pid === undefined ? undefined : processTicks(pid);
  return ticks === undefined ? undefined : (ticks * 1000) / CLOCK_TICKS;
}

async function startUntilReady(service: Service, env: NodeJS.ProcessEnv, port: number): Promise<Started> {
  const started = performance.now();
  const process = startNodeEntrypoint(service, `apps/${service}/src/main.ts`, env);
  const url = `http://127.0.0.1:${port}/health/ready`;
  for (;;) {
    if (process.child.exitCode !== null) throw new Error(`${service} exited before it was ready:\n${process.output().slice(-3000)}`);
    if (performance.now() - started > 120_000) {
      await process.stop('SIGKILL');
      throw new Error(`${service} not ready within 120 s:\n${process.output().slice(-3000)}`);
    }
    if (await ready(url)) return { process, readyMs: performance.now() - started, cpuMs: cpuMsOf(process.child.pid) };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** One run: every service's first start, restart and second replica, one process at a time. */
export async function measureDistributedStartup(options: DistributedStartupOptions): Promise<StartupSample[]> {
  const samples: StartupSample[] = [];
  for (let run = 1; run <= options.runs; run++) {
    const database = uniqueName('herald_startup');
    await admin(options.databaseUrl, `CREATE DATABASE ${database}`);
    const databaseUrl = new URL(options.databaseUrl);
    databaseUrl.pathname = `/${database}`;
    const namespace = uniqueName('start');
    const base = {
      HERALD_KAFKA_BROKERS: options.brokers,
      HERALD_KAFKA_NAMESPACE: namespace,
      HERALD_DATABASE_URL: databaseUrl.toString(),
      HERALD_SECRETS_KEY: randomBytes(32).toString('base64'),
      HERALD_LOG_LEVEL: 'info',
    };
    try {
      for (const service of SERVICES) {
        const envFor = (port: number): NodeJS.ProcessEnv => heraldEnv({ ...base, HERALD_PORT: String(port), HERALD_MANAGEMENT_PORT: String(port) });
        const record = (label: StartupSample['label'], started: Started): void => {
          const sample: StartupSample = { service, label, readyMs: started.readyMs, cpuMs: started.cpuMs, phases: phasesOf(started.process) };
          samples.push(sample);
          options.onSample?.(sample);
        };
        const firstPort = await freePort();
        const first = await startUntilReady(service, envFor(firstPort), firstPort);
        record('first start', first);
        await first.process.stop('SIGTERM');
        const againPort = await freePort();
        const again = await startUntilReady(service, envFor(againPort), againPort);
        record('restart', again);
        const secondPort = await freePort();
        const second = await startUntilReady(service, envFor(secondPort), secondPort);
        record('second replica', second);
        await Promise.all([second.process.stop('SIGTERM'), again.process.stop('SIGTERM')]);
      }
    } finally {
      await admin(options.databaseUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await deleteNamespace(options.brokers, namespace);
    }
  }
  return samples;
}

/**
 * The peer: the same node binary loading the TypeScript register hook and nothing else,
 * the floor under every service's start (wall and CPU, measured the same way).
 */
export async function measureNodeFloor(): Promise<{ readyMs: number; cpuMs?: number }> {
  const { spawn } = await import('node:child_process');
  const started = performance.now();
  const child = spawn(process.execPath, ['-r', './tools/register.js', '-e', 'process.stdout.write("up"); setTimeout(() => undefined, 5000)'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const result = { readyMs: performance.now() - started, cpuMs: cpuMsOf(child.pid) };
  child.kill('SIGKILL');
  return result;
}
