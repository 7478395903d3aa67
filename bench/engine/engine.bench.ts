// Benchmark of the workflow engine (issue 5): runs per second from trigger.accepted to
// the delivery command, events appended per second on the event store, and the
// lateness of durable timers with 100,000 pending; and (issue 8) triggers per second
// into open batches, and the closing time of many open digests.
//
//   node -r ./tools/register.js bench/engine/engine.bench.ts                 # every phase
//   node -r ./tools/register.js bench/engine/engine.bench.ts --phases runs   # one phase
//   node -r ./tools/register.js bench/engine/engine.bench.ts --help          # every option
//
// Needs Kafka (HERALD_BENCH_KAFKA_BROKERS, default 127.0.0.1:9092) and Postgres
// (HERALD_BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres) for
// the distributed figures; `--modes embedded` needs neither. Each phase works in a
// temporary database (dropped at the end) and a Kafka namespace of its own (topics
// and groups deleted at the end). Progress goes to stderr; the Markdown table (and,
// with --json, one JSON line) to stdout. Figures live in bench/RESULTS.md, never in tests.

process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  DEFINITION_CHANGED_TYPE,
  DefinitionChanged,
  TIMER_FIRED_TYPE,
  TOPICS,
  TimerFiredMessage,
  UserRecipient,
  deliveryTopic,
  deterministicUuid,
  envelopeOf,
} from '@herald/contracts';
import { InProcessBus, KafkaBus, MessageBus, NamespacedBus, OutgoingMessage, Subscription, partitionFor } from '@herald/bus';
import { EmbeddedPostgres, createServiceDataSource, migrateSchema } from '@herald/database';
import { EventStore, StreamProcessor, TimerPoller, eventStoreMigrations } from '@herald/event-store';
import { TestHttpApp, ensureHeraldTopics, startTestHttpApp } from '@herald/runtime';
import { acceptedTrigger, acceptedTriggerChunk } from '@herald/testing';
import { workflowEngine } from '@herald/workflow-engine';
import { BenchError, percentile, progressWriter, runBenchMain } from '../shared/bench-kit';

// ---------------------------------------------------------------------------------
// Options

type Phase = 'runs' | 'appends' | 'timers' | 'batch' | 'digest';
type Mode = 'distributed' | 'embedded';
type Scenario = 'spread' | 'burst';

interface Options {
  readonly phases: readonly Phase[];
  readonly modes: readonly Mode[];
  readonly runs: number;
  readonly embeddedRuns: number;
  readonly warmupRuns: number;
  readonly workflows: readonly WorkflowName[];
  readonly partitions: number;
  readonly engineConcurrency: number;
  /** Runs phase: recipients per trigger; above 1 the triggers go as ingest's chunks, grouped by partition. */
  readonly triggerRecipients: number;
  readonly queryStats: boolean;
  readonly peer: boolean;
  readonly peerConcurrency: number;
  readonly appends: number;
  readonly concurrency: number;
  readonly timers: number;
  readonly scenarios: readonly Scenario[];
  readonly spreadSeconds: number;
  readonly burstSeconds: number;
  readonly leadSeconds: number;
  readonly timerBatch?: number;
  readonly timerIdleMs?: number;
  readonly batchTriggers: number;
  readonly batchRecipients: readonly number[];
  readonly batchWindowS: number;
  readonly digests: number;
  readonly digestLeadS?: number;
  readonly phaseTimeoutS: number;
  readonly maxSeconds: number;
  readonly json: boolean;
  readonly brokers: readonly string[];
  readonly databaseUrl: string;
}

type WorkflowName = 'send' | 'delay-send';

const USAGE = `Usage: node -r ./tools/register.js bench/engine/engine.bench.ts [options]

  --phases LIST         runs,appends,timers,batch,digest (default all five); batch and
                        digest (issue 8) run in distributed mode only
  --modes LIST          distributed,embedded (default both). distributed: Postgres + Kafka;
                        embedded: PGlite + the in-process bus
  --runs N              triggers per workflow, distributed (default 20000)
  --embedded-runs N     triggers per workflow, embedded (default 5000)
  --warmup-runs N       triggers per workflow before measuring, not counted (default 500)
  --workflows LIST      send,delay-send (default both): a single send_email node, and
                        delay 0 s then send_email
  --partitions N        partitions of every Herald topic (default 6)
  --engine-concurrency N  partitions the engine's Kafka consumers work on at once
                        (KafkaBus partitionsConsumedConcurrently; default 4, as deployed)
  --trigger-recipients N  runs phase: recipients per trigger (default 1: one
                        trigger.accepted message per run); above 1 the runs arrive as
                        ingest publishes such triggers, in trigger.chunk_accepted chunks
                        of the recipients that share a partition
  --query-stats         count and time every SQL statement of the process (pg driver) per
                        runs case, batch case and digest close, and print the costliest
                        ones to stderr
  --no-peer             runs phase (distributed): skip the graphile-worker peer
  --peer-concurrency N  graphile-worker's concurrent jobs in the peer (default 10)
  --appends N           appends per append workload (default 20000 Postgres, a quarter on PGlite)
  --concurrency N       appends in flight (default 16)
  --timers N            pending timers (default 100000)
  --scenarios LIST      spread,burst (default both)
  --spread-seconds N    due times spread evenly over this window (default 60)
  --burst-seconds N     due times spread evenly over this window (default 2)
  --lead-seconds N      first due time this long after the insert starts (default 20)
  --timer-batch N       TimerPoller batchSize (default: the poller's own)
  --timer-idle-ms N     TimerPoller idleDelayMs (default: the poller's own)
  --batch-triggers N    triggers per batch case (default 20000)
  --batch-recipients LIST  one batch case per entry: the recipients the triggers are spread
                        over, 1 batch key each, so N / recipients triggers per batch
                        (default 1000,100)
  --batch-window N      the batch node's fixed window in seconds; it must outlast the
                        measurement (default 600)
  --digests N           open digests, 1 recipient and 1 trigger each (default 20000)
  --digest-lead N       seconds from the start of the digest phase to the scheduled close
                        (a static minutely schedule's dtstart); default n / 150 + 30, so
                        that every digest is open before it closes
  --phase-timeout N     seconds any one wait may take (default 300)
  --max-seconds N       hard limit for the whole run (default 3600)
  --json                also print the results as one JSON line
  --help

Environment: HERALD_BENCH_KAFKA_BROKERS (default 127.0.0.1:9092),
HERALD_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a
temporary database is created on it and dropped at the end).`;

class UsageError extends Error {}

function parseOptions(argv: readonly string[]): Options {
  const flags = new Set(['--json', '--help', '--query-stats', '--no-peer']);
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${arg}`);
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    if (flags.has(name)) values.set(name, 'true');
    else if (eq >= 0) values.set(name, arg.slice(eq + 1));
    else {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      values.set(name, value);
    }
  }
  if (values.has('--help')) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const known = new Set([
    ...flags,
    ...['--phases', '--modes', '--runs', '--embedded-runs', '--warmup-runs', '--workflows', '--partitions', '--engine-concurrency', '--trigger-recipients', '--peer-concurrency', '--appends'],
    ...['--concurrency', '--timers', '--scenarios', '--spread-seconds', '--burst-seconds', '--lead-seconds'],
    ...['--timer-batch', '--timer-idle-ms', '--phase-timeout', '--max-seconds'],
    ...['--batch-triggers', '--batch-recipients', '--batch-window', '--digests', '--digest-lead'],
  ]);
  for (const name of values.keys()) if (!known.has(name)) throw new UsageError(`unknown option ${name}`);
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const text = values.get(name);
    if (text === undefined) return fallback;
    const value = Number(text.replace(/_/g, ''));
    if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`${name} must be an integer in [${min}, ${max}], got ${text}`);
    return value;
  };
  const list = <T extends string>(name: string, allowed: readonly T[]): T[] => {
    const text = values.get(name);
    if (text === undefined) return [...allowed];
    const items = text.split(',').map((s) => s.trim()).filter(Boolean);
    for (const item of items) if (!allowed.includes(item as T)) throw new UsageError(`${name}: ${item} is not one of ${allowed.join(', ')}`);
    if (items.length === 0) throw new UsageError(`${name} names nothing`);
    return items as T[];
  };
  const brokers = (process.env.HERALD_BENCH_KAFKA_BROKERS ?? '127.0.0.1:9092').split(',').map((b) => b.trim()).filter(Boolean);
  return {
    phases: list<Phase>('--phases', ['runs', 'appends', 'timers', 'batch', 'digest']),
    modes: list<Mode>('--modes', ['distributed', 'embedded']),
    runs: integer('--runs', 20_000, 1, 1_000_000),
    embeddedRuns: integer('--embedded-runs', 5_000, 1, 1_000_000),
    warmupRuns: integer('--warmup-runs', 500, 0, 100_000),
    workflows: list<WorkflowName>('--workflows', ['send', 'delay-send']),
    partitions: integer('--partitions', 6, 1, 1_000),
    engineConcurrency: integer('--engine-concurrency', 4, 1, 1_000),
    triggerRecipients: integer('--trigger-recipients', 1, 1, 100),
    queryStats: values.has('--query-stats'),
    peer: !values.has('--no-peer'),
    peerConcurrency: integer('--peer-concurrency', 10, 1, 1_000),
    appends: integer('--appends', 20_000, 1, 1_000_000),
    concurrency: integer('--concurrency', 16, 1, 256),
    timers: integer('--timers', 100_000, 1, 2_000_000),
    scenarios: list<Scenario>('--scenarios', ['spread', 'burst']),
    spreadSeconds: integer('--spread-seconds', 60, 1, 3_600),
    burstSeconds: integer('--burst-seconds', 2, 0, 3_600),
    leadSeconds: integer('--lead-seconds', 20, 1, 600),
    timerBatch: values.has('--timer-batch') ? integer('--timer-batch', 500, 1, 100_000) : undefined,
    timerIdleMs: values.has('--timer-idle-ms') ? integer('--timer-idle-ms', 50, 0, 10_000) : undefined,
    batchTriggers: integer('--batch-triggers', 20_000, 1, 1_000_000),
    batchRecipients: (values.get('--batch-recipients') ?? '1000,100').split(',').map((text) => {
      const value = Number(text.trim().replace(/_/g, ''));
      if (!Number.isInteger(value) || value < 1 || value > 1_000_000) throw new UsageError(`--batch-recipients: ${text} is not an integer in [1, 1000000]`);
      return value;
    }),
    batchWindowS: integer('--batch-window', 600, 1, 86_400),
    digests: integer('--digests', 20_000, 1, 1_000_000),
    digestLeadS: values.has('--digest-lead') ? integer('--digest-lead', 60, 5, 86_400) : undefined,
    phaseTimeoutS: integer('--phase-timeout', 300, 1, 3_600),
    maxSeconds: integer('--max-seconds', 3_600, 10, 24 * 3_600),
    json: values.has('--json'),
    brokers,
    databaseUrl: process.env.HERALD_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  };
}

// ---------------------------------------------------------------------------------
// Output and time limits

const progress = progressWriter('engine');

const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '');
const fixed = (n: number | undefined, digits: number): string => (n === undefined || !Number.isFinite(n) ? '' : n.toFixed(digits));

function ticker(render: (elapsedS: number) => string | Promise<string>): () => void {
  const started = performance.now();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    Promise.resolve(render((performance.now() - started) / 1000))
      .then(progress, (error: unknown) => progress(`(progress failed: ${String(error)})`))
      .finally(() => (busy = false));
  }, 1_000);
  return () => clearInterval(timer);
}

/** Like ticker, for a line that needs a query. */
function asyncTicker(render: (elapsedS: number) => Promise<string>): () => void {
  return ticker(render as unknown as (elapsedS: number) => string);
}

function cpuMeter(): () => number {
  const start = process.cpuUsage();
  const wallStart = performance.now();
  return () => {
    const used = process.cpuUsage(start);
    return ((used.user + used.system) / 1000 / Math.max(1e-3, performance.now() - wallStart)) * 100;
  };
}

/**
 * CPU time of other processes on the machine by command name (postgres, java for the
 * broker), from /proc; in % of one core over the measured window. Counts every
 * process of that name, including ones serving other work on the machine.
 */
function machineCpuMeter(): () => Record<string, number> {
  const ticksPerS = 100;
  const read = (): Map<string, number> => {
    const totals = new Map<string, number>();
    let entries: string[] = [];
    try {
      entries = readdirSync('/proc');
    } catch {
      return totals;
    }
    for (const entry of entries) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const close = stat.lastIndexOf(')');
        const comm = stat.slice(stat.indexOf('(') + 1, close);
        const fields = stat.slice(close + 2).split(' ');
        const ticks = Number(fields[11]) + Number(fields[12]);
        const name = comm.startsWith('postgres') ? 'postgres' : comm === 'java' ? 'java' : 'other';
        totals.set(name, (totals.get(name) ?? 0) + ticks);
      } catch {
        // the process ended meanwhile
      }
    }
    const [cpuLine] = readFileSync('/proc/stat', 'utf8').split('\n');
    const parts = cpuLine.split(/\s+/).slice(1).map(Number);
    totals.set('machine-busy', parts.reduce((a, b) => a + b, 0) - parts[3] - (parts[4] ?? 0));
    return totals;
  };
  const before = read();
  const wallStart = performance.now();
  return () => {
    const after = read();
    const seconds = Math.max(1e-3, (performance.now() - wallStart) / 1000);
    const out: Record<string, number> = {};
    for (const [name, ticks] of after) out[name] = ((ticks - (before.get(name) ?? 0)) / ticksPerS / seconds) * 100;
    return out;
  };
}

/** A process's CPU so far (user + system), in clock ticks; undefined once it has ended. */
function processTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/**
 * CPU of the Postgres backends serving one database (the bench's own), in % of one core
 * over the measured window: on a machine other work shares, the postgres figure of
 * machineCpuMeter counts their backends too. Backends that start during the window count
 * whole; one that ends during it is lost (the engine's pool keeps its connections).
 */
async function databaseCpuMeter(backends: () => Promise<number[]>): Promise<() => Promise<number>> {
  const before = new Map((await backends()).map((pid) => [pid, processTicks(pid) ?? 0]));
  const wallStart = performance.now();
  return async () => {
    let ticks = 0;
    for (const pid of await backends()) ticks += (processTicks(pid) ?? 0) - (before.get(pid) ?? 0);
    return (ticks / 100 / Math.max(1e-3, (performance.now() - wallStart) / 1000)) * 100;
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BenchError(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Topic creation on the shared dev broker now and then answers "does not host this topic-partition" while metadata settles. */
async function retrying<T>(what: string, action: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await action();
    } catch (error) {
      if (attempt >= attempts) throw error;
      progress(`${what} failed (${String(error)}); retrying`);
      await sleep(1_000 * attempt);
    }
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new BenchError(`${what}: not done within ${ms / 1000} s`);
    await sleep(5);
  }
}


// ---------------------------------------------------------------------------------
// Results

interface Row {
  readonly phase: string;
  readonly mode: string;
  readonly case: string;
  readonly count: number;
  readonly seconds: number;
  readonly perS: number;
  readonly unit: string;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  readonly maxMs?: number;
  readonly notes: string;
  readonly extra?: Record<string, unknown>;
}

function markdownTable(rows: readonly Row[]): string {
  const header = ['Phase', 'Mode', 'Case', 'Count', 'Time (s)', 'Rate', 'p50 (ms)', 'p99 (ms)', 'max (ms)', 'Notes'];
  return [
    `| ${header.join(' | ')} |`,
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows.map(
      (r) =>
        `| ${[r.phase, r.mode, r.case, int(r.count), fixed(r.seconds, 2), `${int(r.perS)} ${r.unit}`, fixed(r.p50Ms, 1), fixed(r.p99Ms, 1), fixed(r.maxMs, 1), r.notes].join(' | ')} |`,
    ),
  ].join('\n');
}

function cpuNotes(self: number, machine: Record<string, number>): string {
  return `CPU: bench process ${int(self)}%, postgres ${int(machine.postgres ?? 0)}%, kafka (java) ${int(machine.java ?? 0)}%, machine busy ${int(machine['machine-busy'] ?? 0)}% of ${os.cpus().length * 100}%`;
}

// ---------------------------------------------------------------------------------
// Services: temporary databases and Kafka namespaces, all cleaned up

interface Cleanup {
  readonly what: string;
  readonly run: () => Promise<void>;
}

const cleanups: Cleanup[] = [];

async function runCleanups(): Promise<void> {
  while (cleanups.length > 0) {
    const cleanup = cleanups.pop() as Cleanup;
    try {
      await withTimeout(cleanup.run(), 60_000, `cleanup: ${cleanup.what}`);
    } catch (error) {
      progress(`cleanup failed (${cleanup.what}): ${String(error)}`);
    }
  }
}

const runId = `${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(3).toString('hex')}`;

/** A database for one phase: a temporary one on Postgres, or a fresh in-memory PGlite. */
async function openDatabase(mode: Mode, options: Options, label: string): Promise<string> {
  if (mode === 'embedded') {
    const embedded = await EmbeddedPostgres.start();
    cleanups.push({ what: `PGlite (${label})`, run: () => embedded.stop() });
    return embedded.url;
  }
  const name = `herald_bench_engine_${label}_${runId.replace(/-/g, '_')}`;
  const admin = new Client({ connectionString: options.databaseUrl, connectionTimeoutMillis: 5_000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new BenchError(`Postgres at ${options.databaseUrl} does not answer (${String(error)}); pass --modes embedded to skip it`);
  }
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    // The server's settings that move these figures most (autovacuum keeps the statistics
    // and the queue tables' dead rows in check), in the log beside them.
    const settings = await admin.query<{ name: string; setting: string; unit: string | null }>(
      `SELECT name, setting, unit FROM pg_settings WHERE name IN ('autovacuum', 'shared_buffers', 'jit', 'synchronous_commit', 'server_version') ORDER BY name`,
    );
    progress(`Postgres: ${settings.rows.map((r) => `${r.name} ${r.setting}${r.unit === '8kB' ? ` × 8 kB` : ''}`).join(', ')} (server defaults; Herald's sessions turn jit off)`);
  } finally {
    await admin.end();
  }
  cleanups.push({
    what: `database ${name}`,
    run: async () => {
      const client = new Client({ connectionString: options.databaseUrl, connectionTimeoutMillis: 5_000 });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        progress(`dropped database ${name}`);
      } finally {
        await client.end();
      }
    },
  });
  const url = new URL(options.databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A Kafka namespace whose topics and groups are deleted at the end. */
function kafkaNamespace(options: Options, label: string): string {
  const namespace = `bench-engine-${label}-${runId}`;
  cleanups.push({ what: `kafka namespace ${namespace}`, run: () => deleteNamespace(options.brokers, namespace) });
  return namespace;
}

function kafkaBus(options: Options, namespace: string, client: string, partitionsConsumedConcurrently?: number): MessageBus {
  const bus = new NamespacedBus(
    new KafkaBus({
      brokers: options.brokers,
      clientId: `${namespace}-${client}`,
      ...(partitionsConsumedConcurrently ? { partitionsConsumedConcurrently } : {}),
      logger: {
        log: (level, message, fields) => {
          if (level === 'warn' || level === 'error') progress(`kafka ${level} (${client}): ${message} ${fields?.error ? String(fields.error) : ''}`);
        },
      },
    }),
    namespace,
  );
  cleanups.push({ what: `bus ${client}`, run: () => bus.close() });
  return bus;
}

async function deleteNamespace(brokers: readonly string[], namespace: string): Promise<void> {
  const admin = new Kafka({ clientId: 'herald-bench-cleanup', brokers: [...brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const prefix = `${namespace}.`;
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix) || g.startsWith(namespace));
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    let topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    // A run that failed while creating its topics: the broker may list them only a moment later.
    if (topics.length === 0) {
      await sleep(2_000);
      topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    }
    if (topics.length > 0) await admin.deleteTopics({ topics });
    progress(`kafka: deleted ${topics.length} topics and ${groups.length} groups of ${namespace}`);
  } finally {
    await admin.disconnect();
  }
}

async function eventStoreSource(url: string, schema: string, poolSize: number): Promise<DataSource> {
  const source = createServiceDataSource({ url, schema, migrations: eventStoreMigrations(schema), applicationName: 'herald-bench-engine', poolSize });
  await source.initialize();
  cleanups.push({ what: `data source ${schema}`, run: () => source.destroy() });
  await migrateSchema(source, schema);
  return source;
}

// ---------------------------------------------------------------------------------
// SQL statement counts and times (--query-stats), from the pg driver of this process

const queryStats = new Map<string, { count: number; ms: number }>();
let queryStatsOn = false;

function installQueryStats(): void {
  const proto = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]): unknown {
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text;
    const result = original.apply(this, args);
    if (!queryStatsOn || text === undefined || !(result instanceof Promise)) return result;
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 110);
    const started = performance.now();
    const record = (): void => {
      const entry = queryStats.get(key) ?? { count: 0, ms: 0 };
      entry.count += 1;
      entry.ms += performance.now() - started;
      queryStats.set(key, entry);
    };
    result.then(record, record);
    return result;
  };
}

function reportQueryStats(label: string, runs: number): void {
  const entries = [...queryStats].sort((a, b) => b[1].ms - a[1].ms);
  const total = entries.reduce((sum, [, e]) => sum + e.count, 0);
  const totalMs = entries.reduce((sum, [, e]) => sum + e.ms, 0);
  progress(`${label}: ${int(total)} statements (${fixed(total / runs, 1)} per run), ${fixed(totalMs / total, 2)} ms each on average (round trip incl. queueing)`);
  for (const [text, e] of entries.slice(0, 25)) {
    progress(`  ${fixed(e.count / runs, 2).padStart(6)}/run ${fixed(e.ms / e.count, 2).padStart(7)} ms  ${text}`);
  }
}

// ---------------------------------------------------------------------------------
// Phase 1: runs per second, trigger.accepted to delivery command

const WORKSPACE = randomUUID();
const TEMPLATE = {
  slug: 'bench-mail',
  enabled_channels: ['email'],
  variants: [
    {
      id: 'default',
      channel: 'email',
      tenant_id: null,
      locale: 'en',
      seq_no: 1,
      conditions: [],
      content: { subject: 'Hello {{name}}', html: '<p>Hi {{name}}</p>', text: 'Hi {{name}}' },
      needs_vendor_approval: false,
      approval_status: 'auto_approved',
    },
  ],
};
const CATEGORIES = {
  root_categories: [{ root_category: 'transactional', sections: [{ name: 'Account', categories: [{ category: 'account', name: 'Account', default_preference: 'opt_in' }] }] }],
};
const WORKFLOW_NODES: Record<WorkflowName, unknown[]> = {
  send: [{ name: 'Mail', node_type: 'send_email', template: TEMPLATE.slug }],
  'delay-send': [
    { name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration: '0d0h0m0s' },
    { name: 'Mail', node_type: 'send_email', template: TEMPLATE.slug },
  ],
};
const slugOf = (workflow: WorkflowName): string => `bench-${workflow}`;

function triggerMessages(workflow: WorkflowName, count: number, tag: string): OutgoingMessage[] {
  const acceptedAt = new Date();
  return Array.from({ length: count }, (_, i) => acceptedTrigger(WORKSPACE, slugOf(workflow), benchRecipient(tag, i), { order: i }, { acceptedAt, workspaceSlug: 'bench' }).message);
}

function benchRecipient(tag: string, i: number): UserRecipient {
  const distinctId = `u-${tag}-${i}`;
  return { kind: 'user' as const, distinct_id: distinctId, is_transient: false, inline: true, channels: { email: [`${distinctId}@example.com`] }, properties: { name: distinctId } };
}

/**
 * `count` runs as triggers of `perTrigger` recipients reach the engine from ingest: each
 * trigger's recipients grouped by the partition of their key, one chunk per group.
 */
function chunkMessages(workflow: WorkflowName, count: number, tag: string, perTrigger: number, partitions: number): OutgoingMessage[] {
  const acceptedAt = new Date();
  const messages: OutgoingMessage[] = [];
  for (let first = 0; first < count; first += perTrigger) {
    const groups = new Map<number, UserRecipient[]>();
    for (let i = first; i < Math.min(count, first + perTrigger); i += 1) {
      const recipient = benchRecipient(tag, i);
      const partition = partitionFor('', `${WORKSPACE}:${recipient.distinct_id}`, partitions);
      groups.set(partition, [...(groups.get(partition) ?? []), recipient]);
    }
    for (const recipients of groups.values()) {
      messages.push(acceptedTriggerChunk(WORKSPACE, slugOf(workflow), recipients, { order: first }, { acceptedAt, workspaceSlug: 'bench' }).message);
    }
  }
  return messages;
}

async function publishAll(bus: MessageBus, topic: string, messages: readonly OutgoingMessage[], batch = 500, inFlight = 4): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < messages.length) {
      const from = next;
      next += batch;
      await bus.publish(topic, messages.slice(from, from + batch));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

/**
 * The peer: graphile-worker 0.18, a Postgres job queue for Node, on the same Postgres
 * server (a database of its own), in this process, with N jobs that each insert one
 * row. As for Herald's runs, the runner is up before the clock starts, the jobs are
 * added in chunks of 500 (4 calls in flight), and the time runs from the first add to
 * the N-th completed job (`job:complete`, after graphile-worker marked it done).
 */
async function graphileWorkerPeer(options: Options, label: string, jobs: number): Promise<{ seconds: number; perS: number; selfCpu: number; machineCpu: Record<string, number> }> {
  const url = await openDatabase('distributed', options, `${label.replace(/[^a-z0-9]/g, '_')}_peer`);
  const sql = new Client({ connectionString: url });
  await sql.connect();
  cleanups.push({ what: 'peer sql client', run: () => sql.end() });
  await sql.query(`CREATE TABLE bench_rows (id bigserial PRIMARY KEY, n integer NOT NULL, inserted_at timestamptz NOT NULL DEFAULT now())`);
  const { run, makeWorkerUtils, Logger } = await import('graphile-worker');
  const quiet = new Logger(() => (level, message) => {
    if (level === 'error') progress(`graphile-worker: ${message}`);
  });
  let completed = 0;
  let lastAt = 0;
  const runner = await run({
    connectionString: url,
    concurrency: options.peerConcurrency,
    maxPoolSize: options.peerConcurrency + 2,
    noHandleSignals: true,
    pollInterval: 1_000,
    logger: quiet,
    taskList: {
      insert_row: async (payload, helpers) => {
        await helpers.query('INSERT INTO bench_rows (n) VALUES ($1)', [(payload as { n: number }).n]);
      },
    },
  });
  runner.events.on('job:complete', () => {
    completed++;
    lastAt = performance.now();
  });
  const utils = await makeWorkerUtils({ connectionString: url, logger: quiet });
  try {
    return await measurePeer(options, label, jobs, sql, utils, () => completed, () => lastAt);
  } finally {
    // Stopped before Herald is measured: its polling would share the machine (and the statement counts).
    await utils.release();
    await runner.stop();
  }
}

async function measurePeer(
  options: Options,
  label: string,
  jobs: number,
  sql: Client,
  utils: { addJobs: (specs: Array<{ identifier: string; payload: unknown }>) => Promise<unknown> },
  completedJobs: () => number,
  lastCompletedAt: () => number,
): Promise<{ seconds: number; perS: number; selfCpu: number; machineCpu: Record<string, number> }> {
  const addAll = async (count: number, offset: number): Promise<void> => {
    const chunks = Array.from({ length: Math.ceil(count / 500) }, (_, c) => Array.from({ length: Math.min(500, count - c * 500) }, (_, i) => ({ identifier: 'insert_row', payload: { n: offset + c * 500 + i } })));
    let next = 0;
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (next < chunks.length) await utils.addJobs(chunks[next++]);
    }));
  };
  const warmup = Math.min(options.warmupRuns, jobs);
  if (warmup > 0) {
    await addAll(warmup, 0);
    await waitFor(() => completedJobs() >= warmup, options.phaseTimeoutS * 1000, `${label}: graphile-worker warm-up`);
  }
  const base = completedJobs();
  const cpu = cpuMeter();
  const machine = machineCpuMeter();
  const started = performance.now();
  await addAll(jobs, warmup);
  await waitFor(() => completedJobs() >= base + jobs, options.phaseTimeoutS * 1000, `${label}: graphile-worker ${int(jobs)} jobs`);
  const seconds = (lastCompletedAt() - started) / 1000;
  const selfCpu = cpu();
  const machineCpu = machine();
  const rowsInserted = Number((await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM bench_rows`)).rows[0].n);
  if (rowsInserted !== warmup + jobs) throw new BenchError(`${label}: graphile-worker inserted ${rowsInserted} rows for ${warmup + jobs} jobs`);
  progress(`${label}: graphile-worker peer ${int(jobs / seconds)} jobs/s (${fixed(seconds, 2)} s)`);
  return { seconds, perS: jobs / seconds, selfCpu, machineCpu };
}

async function runsPhase(mode: Mode, options: Options, rows: Row[]): Promise<void> {
  const label = `runs-${mode}`;
  const n = mode === 'distributed' ? options.runs : options.embeddedRuns;
  progress(`${label}: setting up (${mode === 'distributed' ? 'temporary Postgres database, Kafka namespace' : 'PGlite, in-process bus'})`);
  const url = await openDatabase(mode, options, 'runs');
  let engineBus: MessageBus;
  let clientBus: MessageBus;
  if (mode === 'distributed') {
    const namespace = kafkaNamespace(options, 'runs');
    clientBus = kafkaBus(options, namespace, 'client');
    engineBus = kafkaBus(options, namespace, 'engine', options.engineConcurrency);
    await withTimeout(clientBus.checkHealth(), 30_000, 'kafka health check').catch((error: unknown) => {
      throw new BenchError(`Kafka at ${options.brokers.join(',')} does not answer (${String(error)}); start it with scripts/kafka/start-kafka.sh or pass --modes embedded`);
    });
  } else {
    engineBus = new InProcessBus();
    clientBus = engineBus;
    cleanups.push({ what: 'in-process bus', run: () => engineBus.close() });
  }
  await retrying('create the Herald topics', () => ensureHeraldTopics(clientBus, options.partitions));

  const appStarted = performance.now();
  const app: TestHttpApp = await withTimeout(startTestHttpApp(workflowEngine, url, { bus: engineBus }), options.phaseTimeoutS * 1000, 'engine start');
  cleanups.push({ what: 'engine app', run: () => app.close() });
  progress(`${label}: engine app ready in ${int(performance.now() - appStarted)} ms`);

  const sql = new Client({ connectionString: url });
  await sql.connect();
  cleanups.push({ what: 'sql client', run: () => sql.end() });
  const count = async (text: string, params: unknown[] = []): Promise<number> => Number((await sql.query<{ n: number }>(text, params)).rows[0].n);

  // The delivery commands, read back by a group of the bench (as a dispatcher would).
  const received = new Map<string, number>();
  const seen = new Set<string>();
  let duplicates = 0;
  let lastAt = 0;
  const reader: Subscription = await clientBus.subscribe({
    groupId: `bench-reader-${randomUUID()}`,
    topics: [deliveryTopic('email').name],
    startFrom: 'earliest',
    handler: async (message) => {
      const envelope = JSON.parse(message.value.toString('utf8')) as { payload: { delivery_id: string; workflow: { slug: string } } };
      const { delivery_id: deliveryId, workflow } = envelope.payload;
      if (seen.has(deliveryId)) {
        duplicates++;
        return;
      }
      seen.add(deliveryId);
      received.set(workflow.slug, (received.get(workflow.slug) ?? 0) + 1);
      lastAt = performance.now();
    },
  });
  cleanups.push({ what: 'reader', run: () => reader.stop() });

  let version = 0;
  const announce = async (kind: DefinitionChanged['kind'], id: string, document: unknown): Promise<void> => {
    version += 1;
    const change: DefinitionChanged = { kind, change: 'committed', workspace_id: WORKSPACE, workspace_slug: 'bench', id, version, document };
    await clientBus.publish(TOPICS.definitionChanged.name, [{ key: WORKSPACE, value: JSON.stringify(envelopeOf(DEFINITION_CHANGED_TYPE, 1, randomUUID(), WORKSPACE, new Date(), change)) }]);
  };
  await announce('category', 'categories', CATEGORIES);
  await announce('template', TEMPLATE.slug, TEMPLATE);
  for (const workflow of options.workflows) {
    await announce('workflow', slugOf(workflow), {
      slug: slugOf(workflow),
      version_no: 1,
      is_enabled: true,
      hash: 'h',
      definition: { name: slugOf(workflow), category: 'account', trigger_type: 'api', tree: { nodes: WORKFLOW_NODES[workflow] } },
    });
  }
  await waitFor(
    async () => (await count(`SELECT count(*)::int AS n FROM engine.definitions WHERE workspace_id = $1`, [WORKSPACE])) === 2 + options.workflows.length,
    options.phaseTimeoutS * 1000,
    `${label}: definitions announced`,
  );

  const wait = (slug: string, target: number, what: string): Promise<void> => {
    const stop = asyncTicker(async () => {
      const runs = await count(`SELECT count(*)::int AS n FROM engine.runs WHERE workflow_slug = $1`, [slug]);
      const outbox = await count(`SELECT count(*)::int AS n FROM engine.outbox`);
      const timers = await count(`SELECT count(*)::int AS n FROM engine.timers`);
      return `${what}: runs started ${int(runs)}, outbox backlog ${int(outbox)}, timers pending ${int(timers)}, delivery commands read ${int(received.get(slug) ?? 0)}/${int(target)}`;
    });
    return waitFor(() => (received.get(slug) ?? 0) >= target, options.phaseTimeoutS * 1000, what).finally(stop);
  };

  // The peer runs before and after Herald in the same run, so both see the same machine.
  const peers: Array<Awaited<ReturnType<typeof graphileWorkerPeer>>> = [];
  const runPeer = async (): Promise<void> => {
    if (mode !== 'distributed' || !options.peer) return;
    const peer = await graphileWorkerPeer(options, `${label}-${peers.length + 1}`, n);
    peers.push(peer);
    rows.push({
      phase: 'runs',
      mode: 'Postgres (peer)',
      case: `graphile-worker 0.18, job inserts 1 row, concurrency ${options.peerConcurrency} (${peers.length === 1 ? 'before' : 'after'} Herald)`,
      count: n,
      seconds: peer.seconds,
      perS: peer.perS,
      unit: 'jobs/s',
      notes: cpuNotes(peer.selfCpu, peer.machineCpu),
      extra: { selfCpu: peer.selfCpu, machineCpu: peer.machineCpu },
    });
  };
  await runPeer();
  const heraldRows: Row[] = [];
  const chunked = options.triggerRecipients > 1;
  const triggerTopic = chunked ? TOPICS.triggerChunkAccepted.name : TOPICS.triggerAccepted.name;
  const triggersOf = (workflow: WorkflowName, count: number, tag: string): OutgoingMessage[] =>
    chunked ? chunkMessages(workflow, count, tag, options.triggerRecipients, options.partitions) : triggerMessages(workflow, count, tag);

  for (const workflow of options.workflows) {
    const slug = slugOf(workflow);
    if (options.warmupRuns > 0) {
      progress(`${label} ${workflow}: warm-up, ${int(options.warmupRuns)} runs, not measured`);
      await publishAll(clientBus, triggerTopic, triggersOf(workflow, options.warmupRuns, `${workflow}-warm`));
      await wait(slug, options.warmupRuns, `${label} ${workflow} warm-up`);
    }
    const base = received.get(slug) ?? 0;
    const messages = triggersOf(workflow, n, workflow);
    progress(`${label} ${workflow}: publishing ${int(messages.length)} messages on ${triggerTopic} (${int(n)} runs), then reading ${int(n)} delivery commands`);
    const cpu = cpuMeter();
    const machine = machineCpuMeter();
    queryStats.clear();
    queryStatsOn = options.queryStats;
    const started = performance.now();
    await publishAll(clientBus, triggerTopic, messages);
    const publishedMs = performance.now() - started;
    await wait(slug, base + n, `${label} ${workflow}`);
    const seconds = (lastAt - started) / 1000;
    queryStatsOn = false;
    if (options.queryStats) reportQueryStats(`${label} ${workflow}`, n);
    const selfCpu = cpu();
    const machineCpu = machine();
    heraldRows.push({
      phase: 'runs',
      mode: mode === 'distributed' ? 'Postgres + Kafka' : 'PGlite + in-process bus',
      case: `${workflow === 'send' ? 'trigger → send_email' : 'trigger → delay 0 → send_email'}${chunked ? `, ${options.triggerRecipients} recipients per trigger (chunks)` : ''}`,
      count: n,
      seconds,
      perS: n / seconds,
      unit: 'runs/s',
      notes: [
        `all ${int(n)} published in ${fixed(publishedMs / 1000, 2)} s`,
        `${options.partitions} partitions${mode === 'distributed' ? `, engine consumes ${options.engineConcurrency} at once` : ''}, engine in-process (startTestHttpApp)`,
        duplicates > 0 ? `${int(duplicates)} duplicate commands` : undefined,
        cpuNotes(selfCpu, machineCpu),
      ]
        .filter(Boolean)
        .join('; '),
      extra: { publishedMs, selfCpu, machineCpu, duplicates },
    });
    progress(`${label} ${workflow}: ${int(n / seconds)} runs/s (${fixed(seconds, 2)} s)`);
  }
  await runPeer();
  const peerPerS = peers.length > 0 ? peers.reduce((sum, p) => sum + p.perS, 0) / peers.length : undefined;
  for (const row of heraldRows) {
    const ratio = peerPerS === undefined ? undefined : row.perS / peerPerS;
    rows.push(ratio === undefined ? row : { ...row, notes: `**${fixed(ratio, 2)}× graphile-worker** (mean of the peer's runs, ${int(peerPerS as number)} jobs/s); ${row.notes}`, extra: { ...row.extra, peerPerS, ratio } });
    if (ratio !== undefined) progress(`${label} ${row.case}: ${fixed(ratio, 2)}× graphile-worker (${int(row.perS)} runs/s vs ${int(peerPerS as number)} jobs/s)`);
  }
  await runCleanups();
}

// ---------------------------------------------------------------------------------
// Phase 2: events appended per second

interface BenchEvent {
  readonly type: 'stepped';
  readonly step: number;
  readonly note: string;
}

const EVENT_NOTE = 'x'.repeat(200);

async function appendsPhase(mode: Mode, options: Options, rows: Row[]): Promise<void> {
  const label = `appends-${mode}`;
  const total = mode === 'distributed' ? options.appends : Math.max(1, Math.floor(options.appends / 4));
  progress(`${label}: setting up`);
  const url = await openDatabase(mode, options, 'appends');
  const source = await eventStoreSource(url, 'bench_es', options.concurrency);
  const store = new EventStore(source, 'bench_es');
  const modeName = mode === 'distributed' ? 'Postgres' : 'PGlite';

  const measure = async (name: string, unitCount: number, eventsPer: number, work: (i: number) => Promise<void>): Promise<void> => {
    let next = 0;
    let done = 0;
    const stop = ticker(() => `${label} ${name}: ${int(done)}/${int(unitCount)}`);
    const cpu = cpuMeter();
    const machine = machineCpuMeter();
    const started = performance.now();
    try {
      await withTimeout(
        Promise.all(
          Array.from({ length: options.concurrency }, async () => {
            while (next < unitCount) {
              const i = next++;
              await work(i);
              done++;
            }
          }),
        ),
        options.phaseTimeoutS * 1000,
        `${label} ${name}`,
      );
    } finally {
      stop();
    }
    const seconds = (performance.now() - started) / 1000;
    const events = unitCount * eventsPer;
    rows.push({
      phase: 'appends',
      mode: modeName,
      case: name,
      count: events,
      seconds,
      perS: events / seconds,
      unit: 'events/s',
      notes: `${int(unitCount / seconds)} calls/s; ${options.concurrency} in flight; ${cpuNotes(cpu(), machine())}`,
    });
    progress(`${label} ${name}: ${int(events / seconds)} events/s, ${int(unitCount / seconds)} calls/s`);
  };

  const events = (n: number): Array<{ type: string; data: BenchEvent }> =>
    Array.from({ length: n }, (_, step) => ({ type: 'stepped', data: { type: 'stepped', step, note: EVENT_NOTE } }));

  // A run's first step: a new stream, 4 events and a delivery command in the outbox.
  await measure('EventStore.append: new stream, 4 events + 1 outbox row', total, 4, async (i) => {
    const streamId = `run:${WORKSPACE}:a-${i}`;
    await store.append({
      streamId,
      expectedPosition: 0,
      events: events(4),
      outbox: [{ messageId: `m-${i}`, topic: 'bench', key: streamId, value: JSON.stringify({ i, note: EVENT_NOTE }) }],
    });
  });

  // Later steps of runs: read the stream, fold, decide one event, append at the position.
  const decider = {
    initialState: (): number => 0,
    evolve: (state: number): number => state + 1,
    decide: (input: { step: number }, state: number): BenchEvent[] => (state >= input.step + 1 ? [] : [{ type: 'stepped', step: input.step, note: EVENT_NOTE }]),
  };
  const processor = new StreamProcessor(store, decider, { toStored: (e: BenchEvent) => ({ type: e.type, data: e }), fromStored: (r) => r.data as BenchEvent }, () => ({}));
  const streams = Math.max(1, Math.floor(total / 4));
  const stepsPerStream = 4;
  await measure(`StreamProcessor.process: ${int(streams)} streams × ${stepsPerStream} steps, 1 event each`, streams, stepsPerStream, async (i) => {
    const streamId = `run:${WORKSPACE}:p-${i}`;
    for (let step = 0; step < stepsPerStream; step++) await processor.process(streamId, { step }, new Date());
  });
  await runCleanups();
}

// ---------------------------------------------------------------------------------
// Phase 3: timer lateness with many pending timers

async function timersPhase(mode: Mode, scenario: Scenario, options: Options, rows: Row[]): Promise<void> {
  const label = `timers-${mode}-${scenario}`;
  const total = options.timers;
  const windowMs = (scenario === 'spread' ? options.spreadSeconds : options.burstSeconds) * 1000;
  progress(`${label}: setting up`);
  const url = await openDatabase(mode, options, `timers_${scenario}`);
  const source = await eventStoreSource(url, 'engine', 6);
  const store = new EventStore(source, 'engine');
  let bus: MessageBus;
  if (mode === 'distributed') {
    bus = kafkaBus(options, kafkaNamespace(options, `timers-${scenario}`), 'timers');
  } else {
    bus = new InProcessBus();
    cleanups.push({ what: 'in-process bus', run: () => bus.close() });
  }
  await retrying('create the timer topic', () => bus.ensureTopics([{ name: TOPICS.timerFired.name, partitions: options.partitions }]));

  // Lateness per timer: receive time minus due time (both this machine's wall clock,
  // which is also the database's clock: same host).
  const lateness = new Float64Array(total);
  const firedCount = new Uint8Array(total);
  let unique = 0;
  let duplicates = 0;
  let early = 0;
  let lastFiredAt = 0;
  const reader = await bus.subscribe({
    groupId: `bench-timers-${randomUUID()}`,
    topics: [TOPICS.timerFired.name],
    startFrom: 'earliest',
    handler: async (message) => {
      const at = performance.timeOrigin + performance.now();
      const { payload } = JSON.parse(message.value.toString('utf8')) as { payload: TimerFiredMessage };
      const index = Number(payload.run_id);
      if (firedCount[index]++ > 0) {
        duplicates++;
        return;
      }
      const late = at - Date.parse(payload.due_at);
      if (late < 0) early++;
      lateness[unique++] = late;
      lastFiredAt = at;
    },
  });
  cleanups.push({ what: 'timer reader', run: () => reader.stop() });

  // 100 streams of 1,000 timers each, through EventStore.append (the engine's path).
  const perAppend = 1_000;
  const firstDue = Date.now() + options.leadSeconds * 1000;
  const dueOf = (i: number): number => firstDue + Math.floor((i * windowMs) / Math.max(1, total - 1 || 1));
  const insertStarted = performance.now();
  let inserted = 0;
  const stopInsert = ticker(() => `${label}: inserted ${int(inserted)}/${int(total)} timers`);
  try {
    let nextChunk = 0;
    const chunks = Math.ceil(total / perAppend);
    await withTimeout(
      Promise.all(
        Array.from({ length: 4 }, async () => {
          while (nextChunk < chunks) {
            const chunk = nextChunk++;
            const streamId = `run:${WORKSPACE}:timers-${chunk}`;
            const timers = [];
            // Interleaved across streams, so due order is not insert order.
            for (let i = chunk; i < total; i += chunks) {
              const dueAt = new Date(dueOf(i));
              const payload: TimerFiredMessage = { run_id: String(i), stream_id: streamId, timer_id: `t-${i}`, due_at: dueAt.toISOString() };
              const messageId = deterministicUuid('timer', `t-${i}`);
              timers.push({
                timerId: `t-${i}`,
                dueAt,
                topic: TOPICS.timerFired.name,
                key: `${WORKSPACE}:u-${i % 10_000}`,
                value: JSON.stringify(envelopeOf(TIMER_FIRED_TYPE, 1, messageId, WORKSPACE, new Date(), payload)),
              });
            }
            await store.append({ streamId, expectedPosition: 0, events: [{ type: 'timers.scheduled', data: { n: timers.length } }], timers });
            inserted += timers.length;
          }
        }),
      ),
      options.phaseTimeoutS * 1000,
      `${label} insert`,
    );
  } finally {
    stopInsert();
  }
  const insertMs = performance.now() - insertStarted;
  const headroomMs = firstDue - Date.now();
  progress(`${label}: ${int(total)} timers inserted in ${int(insertMs)} ms; first due in ${int(headroomMs)} ms`);
  if (headroomMs < 0) progress(`${label}: WARNING the insert ran past the first due time; raise --lead-seconds`);
  await source.query(`ANALYZE engine.timers`);

  const poller = new TimerPoller(
    source,
    'engine',
    bus,
    (level, message, fields) => {
      if (level === 'warn' || level === 'error') progress(`timer poller ${level}: ${message} ${JSON.stringify(fields ?? {})}`);
    },
    { ...(options.timerBatch ? { batchSize: options.timerBatch } : {}), ...(options.timerIdleMs !== undefined ? { idleDelayMs: options.timerIdleMs } : {}) },
  );
  poller.start();
  cleanups.push({ what: 'timer poller', run: () => poller.stop() });
  // Measure from the first due time on, so the idle wait does not count as CPU.
  await sleep(Math.max(0, firstDue - Date.now()));
  const cpu = cpuMeter();
  const machine = machineCpuMeter();
  let lastUnique = 0;
  const stop = ticker(() => {
    const window = lateness.slice(lastUnique, unique).sort();
    lastUnique = unique;
    const pending = total - unique;
    return `${label}: fired ${int(unique)}/${int(total)} (${int(pending)} pending), last second lateness p50 ${fixed(percentile(window, 50), 0)} ms, max ${fixed(percentile(window, 100), 0)} ms`;
  });
  try {
    await waitFor(() => unique >= total, windowMs + options.phaseTimeoutS * 1000, `${label} firing`);
  } finally {
    stop();
  }
  const firingS = (lastFiredAt - firstDue) / 1000;
  const selfCpu = cpu();
  const machineCpu = machine();
  // Anything fired twice arrives close behind; give it a moment.
  await sleep(1_000);
  const sorted = lateness.slice(0, unique).sort();
  rows.push({
    phase: 'timers',
    mode: mode === 'distributed' ? 'Postgres + Kafka' : 'PGlite + in-process bus',
    case: `${scenario}: ${int(total)} due over ${windowMs / 1000} s`,
    count: total,
    seconds: firingS,
    perS: total / Math.max(1e-3, firingS),
    unit: 'timers/s',
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: percentile(sorted, 100),
    notes: [
      `early ${int(early)}, fired twice ${int(duplicates)}, min lateness ${fixed(percentile(sorted, 0.0001), 1)} ms`,
      `insert ${fixed(insertMs / 1000, 1)} s via EventStore.append (1,000 timers per append)`,
      `poller batch ${options.timerBatch ?? 'default (500)'}, idle ${options.timerIdleMs ?? 'default (50)'} ms`,
      cpuNotes(selfCpu, machineCpu),
    ].join('; '),
    extra: { early, duplicates, insertMs, headroomMs, p90Ms: percentile(sorted, 90), p999Ms: percentile(sorted, 99.9) },
  });
  progress(`${label}: p50 ${fixed(percentile(sorted, 50), 1)} ms, p99 ${fixed(percentile(sorted, 99), 1)} ms, max ${fixed(percentile(sorted, 100), 1)} ms, early ${early}, twice ${duplicates}`);
  await runCleanups();
}

// ---------------------------------------------------------------------------------
// Phases 4 and 5 (issue 8): triggers per second into open batches, and the closing
// time of many open digests

interface EngineHarness {
  readonly clientBus: MessageBus;
  readonly count: (text: string, params?: unknown[]) => Promise<number>;
  /** Process ids of the Postgres backends connected to the bench's database. */
  readonly backends: () => Promise<number[]>;
  /** Epoch ms at which each distinct delivery command was read, per workflow slug. */
  readonly deliveries: Map<string, number[]>;
  readonly duplicates: () => number;
  readonly announceWorkflows: (workflows: ReadonlyArray<{ slug: string; nodes: unknown[] }>) => Promise<void>;
  /** Starts a meter of the CPU seconds this bench database's backends use (see backendCpuMeter). */
  readonly backendCpu: () => Promise<() => Promise<number>>;
  /** Starts a meter of the rows written to each engine table (see rowWritesMeter). */
  readonly rowWrites: () => Promise<() => Promise<Map<string, { inserted: number; updated: number; deleted: number }>>>;
  /** Live rows of engine tables by the statistics counters (up to a second behind): a progress figure that scans nothing. */
  readonly liveRows: (tables: readonly string[]) => Promise<Map<string, number>>;
}

/**
 * Rows inserted, updated and deleted per engine table between start and stop, from
 * `pg_stat_user_tables` (the statistics collector's counters, which lag by up to a
 * second: stop after the work has settled).
 */
async function rowWritesMeter(sql: Client): Promise<() => Promise<Map<string, { inserted: number; updated: number; deleted: number }>>> {
  const read = async (): Promise<Map<string, { inserted: number; updated: number; deleted: number }>> => {
    // A fresh snapshot of the counters, not the one this transaction may have cached.
    await sql.query('SELECT pg_stat_clear_snapshot()');
    const rows = (
      await sql.query<{ relname: string; ins: string; upd: string; del: string }>(
        `SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_del AS del FROM pg_stat_user_tables WHERE schemaname = 'engine'`,
      )
    ).rows;
    return new Map(rows.map((r) => [r.relname, { inserted: Number(r.ins), updated: Number(r.upd), deleted: Number(r.del) }]));
  };
  const before = await read();
  return async () => {
    const delta = new Map<string, { inserted: number; updated: number; deleted: number }>();
    for (const [table, after] of await read()) {
      const was = before.get(table) ?? { inserted: 0, updated: 0, deleted: 0 };
      const d = { inserted: after.inserted - was.inserted, updated: after.updated - was.updated, deleted: after.deleted - was.deleted };
      if (d.inserted + d.updated + d.deleted > 0) delta.set(table, d);
    }
    return delta;
  };
}

/** `table +ins ~upd -del` per digest, the busiest table first. */
function rowWritesNote(writes: ReadonlyMap<string, { inserted: number; updated: number; deleted: number }>, per: number): string {
  const f = (n: number): string => fixed(n / per, 2);
  return [...writes]
    .sort((a, b) => b[1].inserted + b[1].updated + b[1].deleted - (a[1].inserted + a[1].updated + a[1].deleted))
    .map(([table, w]) => `${table} ${[w.inserted && `+${f(w.inserted)}`, w.updated && `~${f(w.updated)}`, w.deleted && `-${f(w.deleted)}`].filter(Boolean).join(' ')}`)
    .join(', ');
}

/**
 * CPU seconds used by the backends of one database between start and stop, from /proc:
 * unlike the machine meter's `postgres`, no other engineer's backends are counted. A
 * backend that connects or exits in between is missed (the engine's pool keeps its
 * connections, so this is small).
 */
async function backendCpuMeter(sql: Client): Promise<() => Promise<number>> {
  const ticksPerS = 100;
  const ticksOf = async (): Promise<Map<number, number>> => {
    const pids = (await sql.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows;
    const ticks = new Map<number, number>();
    for (const { pid } of pids) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks.set(pid, Number(fields[11]) + Number(fields[12]));
      } catch {
        // not on this machine, or gone
      }
    }
    return ticks;
  };
  const before = await ticksOf();
  return async () => {
    let used = 0;
    for (const [pid, ticks] of await ticksOf()) used += ticks - (before.get(pid) ?? 0);
    return used / ticksPerS;
  };
}

/** The engine in-process on a temporary database and a Kafka namespace, as in the runs phase. */
async function startEngineHarness(options: Options, label: string): Promise<EngineHarness> {
  const url = await openDatabase('distributed', options, label);
  const namespace = kafkaNamespace(options, label);
  const clientBus = kafkaBus(options, namespace, 'client');
  const engineBus = kafkaBus(options, namespace, 'engine', options.engineConcurrency);
  await withTimeout(clientBus.checkHealth(), 30_000, 'kafka health check').catch((error: unknown) => {
    throw new BenchError(`Kafka at ${options.brokers.join(',')} does not answer (${String(error)}); start it with scripts/kafka/start-kafka.sh`);
  });
  await retrying('create the Herald topics', () => ensureHeraldTopics(clientBus, options.partitions));
  const appStarted = performance.now();
  const app: TestHttpApp = await withTimeout(startTestHttpApp(workflowEngine, url, { bus: engineBus }), options.phaseTimeoutS * 1000, 'engine start');
  cleanups.push({ what: 'engine app', run: () => app.close() });
  progress(`${label}: engine app ready in ${int(performance.now() - appStarted)} ms`);

  const sql = new Client({ connectionString: url });
  await sql.connect();
  cleanups.push({ what: 'sql client', run: () => sql.end() });
  const count = async (text: string, params: unknown[] = []): Promise<number> => Number((await sql.query<{ n: number }>(text, params)).rows[0].n);

  const deliveries = new Map<string, number[]>();
  const seen = new Set<string>();
  let duplicates = 0;
  const reader: Subscription = await clientBus.subscribe({
    groupId: `bench-reader-${randomUUID()}`,
    topics: [deliveryTopic('email').name],
    startFrom: 'earliest',
    handler: async (message) => {
      const at = performance.timeOrigin + performance.now();
      const envelope = JSON.parse(message.value.toString('utf8')) as { payload: { delivery_id: string; workflow: { slug: string } } };
      const { delivery_id: deliveryId, workflow } = envelope.payload;
      if (seen.has(deliveryId)) {
        duplicates++;
        return;
      }
      seen.add(deliveryId);
      let list = deliveries.get(workflow.slug);
      if (!list) deliveries.set(workflow.slug, (list = []));
      list.push(at);
    },
  });
  cleanups.push({ what: 'reader', run: () => reader.stop() });

  let version = 0;
  const announce = async (kind: DefinitionChanged['kind'], id: string, document: unknown): Promise<void> => {
    version += 1;
    const change: DefinitionChanged = { kind, change: 'committed', workspace_id: WORKSPACE, workspace_slug: 'bench', id, version, document };
    await clientBus.publish(TOPICS.definitionChanged.name, [{ key: WORKSPACE, value: JSON.stringify(envelopeOf(DEFINITION_CHANGED_TYPE, 1, randomUUID(), WORKSPACE, new Date(), change)) }]);
  };
  await announce('category', 'categories', CATEGORIES);
  await announce('template', TEMPLATE.slug, TEMPLATE);
  const announceWorkflows = async (workflows: ReadonlyArray<{ slug: string; nodes: unknown[] }>): Promise<void> => {
    for (const { slug, nodes } of workflows) {
      await announce('workflow', slug, { slug, version_no: 1, is_enabled: true, hash: 'h', definition: { name: slug, category: 'account', trigger_type: 'api', tree: { nodes } } });
    }
    await waitFor(
      async () => (await count(`SELECT count(*)::int AS n FROM engine.definitions WHERE workspace_id = $1`, [WORKSPACE])) === 2 + workflows.length,
      options.phaseTimeoutS * 1000,
      `${label}: definitions announced`,
    );
  };
  const backends = async (): Promise<number[]> =>
    (await sql.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)).rows.map((row) => row.pid);
  return {
    clientBus,
    count,
    backends,
    deliveries,
    duplicates: () => duplicates,
    announceWorkflows,
    backendCpu: () => backendCpuMeter(sql),
    rowWrites: () => rowWritesMeter(sql),
    liveRows: async (tables) => {
      await sql.query('SELECT pg_stat_clear_snapshot()');
      const rows = (
        await sql.query<{ relname: string; n: string }>(
          `SELECT relname, n_live_tup AS n FROM pg_stat_user_tables WHERE schemaname = 'engine' AND relname = ANY($1::text[])`,
          [tables],
        )
      ).rows;
      return new Map(rows.map((r) => [r.relname, Number(r.n)]));
    },
  };
}

/** `count` triggers of `slug`, round-robin over `recipients` recipients, all with the same batch key. */
function accumulatingTriggers(slug: string, recipients: number, count: number, tag: string): OutgoingMessage[] {
  const acceptedAt = new Date();
  return Array.from({ length: count }, (_, i) => {
    const distinctId = `u-${tag}-${i % recipients}`;
    const recipient = { kind: 'user' as const, distinct_id: distinctId, is_transient: false, inline: true, channels: { email: [`${distinctId}@example.com`] }, properties: { name: distinctId } };
    return acceptedTrigger(WORKSPACE, slug, recipient, { project: 'apollo', n: i }, { acceptedAt, workspaceSlug: 'bench' }).message;
  });
}

/** Runs that reached their accumulator: each owns a window or merged into one. */
const ABSORBED_SQL = `SELECT count(*)::int AS n FROM engine.stream_events WHERE type IN ('accumulation.owned.v1', 'accumulation.merged.v1') AND stream_id LIKE 'run:%'`;
const OWNED_SQL = `SELECT count(*)::int AS n FROM engine.stream_events WHERE type = 'accumulation.owned.v1' AND stream_id LIKE 'run:%'`;

/**
 * Batch runs recorded so far: a run's row is written in the transaction that records its
 * join (the start and the accumulator's answer are one step), so this tells when to
 * confirm with ABSORBED_SQL. Polling ABSORBED_SQL itself read every event of the
 * phase 4 times a second (no index on `type`): 0.3-0.6 s a round on 20,000 triggers,
 * Postgres CPU the engine's joins competed with.
 */
const BATCH_RUNS_SQL = `SELECT count(*)::int AS n FROM engine.runs`;

/**
 * Polls `probeSql` (4 times a second; by default `sqlText`) until it reaches `target`,
 * then `sqlText`, the exact count, until that does too; progress once a second.
 */
async function waitAbsorbed(harness: EngineHarness, sqlText: string, target: number, what: string, timeoutMs: number, probeSql = sqlText): Promise<void> {
  let latest = 0;
  const stop = asyncTicker(async () => {
    const outbox = await harness.count(`SELECT count(*)::int AS n FROM engine.outbox`);
    return `${what}: ${int(latest)}/${int(target)} runs at their accumulator, outbox backlog ${int(outbox)}`;
  });
  try {
    const deadline = performance.now() + timeoutMs;
    while ((latest = await harness.count(probeSql)) < target) {
      if (performance.now() > deadline) throw new BenchError(`${what}: ${latest}/${target} within ${timeoutMs / 1000} s`);
      await sleep(250);
    }
    while ((latest = await harness.count(sqlText)) < target) {
      if (performance.now() > deadline) throw new BenchError(`${what}: ${latest}/${target} within ${timeoutMs / 1000} s`);
      await sleep(250);
    }
  } finally {
    stop();
  }
}

async function batchPhase(options: Options, rows: Row[]): Promise<void> {
  const label = 'batch';
  progress(`${label}: setting up (temporary Postgres database, Kafka namespace)`);
  const harness = await startEngineHarness(options, label);
  const slugOfCase = (recipients: number): string => `bench-batch-${recipients}`;
  const batchNode = { name: 'Collect', node_type: 'batch', mode: 'accumulate_all', window_type: 'fixed', fixed_window: `0d0h0m${options.batchWindowS}s`, batch_key: '.project', retain_count: 10 };
  const recipientCases = [...new Set(options.batchRecipients)];
  await harness.announceWorkflows(recipientCases.map((recipients) => ({ slug: slugOfCase(recipients), nodes: [batchNode, { name: 'Mail', node_type: 'send_email', template: TEMPLATE.slug }] })));
  const phaseStarted = performance.now();
  const windowLeft = (): number => options.batchWindowS - (performance.now() - phaseStarted) / 1000;

  let absorbedBase = 0;
  if (options.warmupRuns > 0) {
    progress(`${label}: warm-up, ${int(options.warmupRuns)} triggers into ${int(Math.min(100, options.warmupRuns))} batches, not measured`);
    await publishAll(harness.clientBus, TOPICS.triggerAccepted.name, accumulatingTriggers(slugOfCase(recipientCases[0]), 100, options.warmupRuns, 'warm'));
    absorbedBase = options.warmupRuns;
    await waitAbsorbed(harness, ABSORBED_SQL, absorbedBase, `${label} warm-up`, options.phaseTimeoutS * 1000);
  }
  for (const recipients of recipientCases) {
    const n = options.batchTriggers;
    const slug = slugOfCase(recipients);
    const messages = accumulatingTriggers(slug, recipients, n, `r${recipients}`);
    progress(`${label} ${int(recipients)} recipients: publishing ${int(n)} triggers (${fixed(n / recipients, 1)} per batch), ${int(windowLeft())} s left of the batch window`);
    const cpu = cpuMeter();
    const machine = machineCpuMeter();
    const database = await databaseCpuMeter(harness.backends);
    queryStats.clear();
    queryStatsOn = options.queryStats;
    const startedEpoch = performance.timeOrigin + performance.now();
    const started = performance.now();
    await publishAll(harness.clientBus, TOPICS.triggerAccepted.name, messages);
    const publishedMs = performance.now() - started;
    await waitAbsorbed(harness, ABSORBED_SQL, absorbedBase + n, `${label} ${int(recipients)} recipients`, options.phaseTimeoutS * 1000, BATCH_RUNS_SQL);
    const seenMs = performance.now() - started;
    queryStatsOn = false;
    if (options.queryStats) reportQueryStats(`${label} ${int(recipients)} recipients`, n);
    const selfCpu = cpu();
    const machineCpu = machine();
    const databaseCpu = await database();
    absorbedBase += n;
    // The time of the last absorption as recorded (transaction start, the same host's clock).
    const lastRecordedMs = await harness.count(
      `SELECT (extract(epoch FROM max(recorded_at)) * 1000)::float8 AS n FROM engine.stream_events WHERE type IN ('accumulation.owned.v1', 'accumulation.merged.v1') AND stream_id LIKE 'run:%'`,
    );
    const seconds = (lastRecordedMs - startedEpoch) / 1000;
    const owned = await harness.count(OWNED_SQL);
    const sent = harness.deliveries.get(slug)?.length ?? 0;
    if (windowLeft() < 0) throw new BenchError(`${label}: the ${options.batchWindowS} s batch window closed during the measurement; raise --batch-window`);
    rows.push({
      phase: 'batch',
      mode: 'Postgres + Kafka',
      case: `trigger → batch (fixed ${options.batchWindowS} s) → send_email; ${int(recipients)} recipients × 1 key, ${fixed(n / recipients, 1)} triggers per batch`,
      count: n,
      seconds,
      perS: n / seconds,
      unit: 'triggers/s',
      notes: [
        `all ${int(n)} published in ${fixed(publishedMs / 1000, 2)} s; seen complete by polling after ${fixed(seenMs / 1000, 2)} s`,
        `windows owned so far ${int(owned)} (incl. warm-up), sends during the window ${int(sent)}`,
        `${options.partitions} partitions, engine consumes ${options.engineConcurrency} at once`,
        cpuNotes(selfCpu, machineCpu),
        `this bench's database ${int(databaseCpu)}% (its backends alone); CPU per trigger: bench process ${fixed((selfCpu / 100) * (seenMs / n), 3)} ms, its backends ${fixed((databaseCpu / 100) * (seenMs / n), 3)} ms`,
      ].join('; '),
      extra: { publishedMs, seenMs, selfCpu, machineCpu, databaseCpu, owned, sent },
    });
    progress(`${label} ${int(recipients)} recipients: ${int(n / seconds)} triggers/s (${fixed(seconds, 2)} s)`);
  }
  await runCleanups();
}

async function digestPhase(options: Options, rows: Row[]): Promise<void> {
  const label = 'digest';
  const n = options.digests;
  progress(`${label}: setting up (temporary Postgres database, Kafka namespace)`);
  const harness = await startEngineHarness(options, label);
  const slug = 'bench-digest';
  // A static minutely schedule counts from dtstart (to the second) and fires no earlier:
  // every digest opened before dtstart closes at dtstart.
  const leadS = options.digestLeadS ?? Math.ceil(n / 150) + 30;
  const closeAt = Math.ceil((Date.now() + leadS * 1000) / 1000) * 1000;
  const schedule = { frequency: 'minutely', dtstart: new Date(closeAt).toISOString().replace(/\.\d+Z$/, 'Z') };
  await harness.announceWorkflows([
    { slug, nodes: [{ name: 'Digest', node_type: 'digest', schedule_type: 'static', schedule }, { name: 'Mail', node_type: 'send_email', template: TEMPLATE.slug }] },
  ]);
  progress(`${label}: opening ${int(n)} digests (1 recipient, 1 trigger each); they close at ${schedule.dtstart}, in ${int((closeAt - Date.now()) / 1000)} s`);
  const openCpu = cpuMeter();
  const openMachine = machineCpuMeter();
  const startedEpoch = performance.timeOrigin + performance.now();
  await publishAll(harness.clientBus, TOPICS.triggerAccepted.name, accumulatingTriggers(slug, n, n, 'd'));
  await waitAbsorbed(harness, OWNED_SQL, n, `${label} opening`, Math.max(1_000, closeAt - Date.now()));
  const openedEpoch = performance.timeOrigin + performance.now();
  const openSelf = openCpu();
  const openMachineCpu = openMachine();
  const openSeconds = (openedEpoch - startedEpoch) / 1000;
  const timersPending = await harness.count(`SELECT count(*)::int AS n FROM engine.timers`);
  progress(`${label}: ${int(n)} digests open after ${fixed(openSeconds, 1)} s (${int(n / openSeconds)}/s); ${int(timersPending)} timers pending; ${int((closeAt - openedEpoch) / 1000)} s to the close`);
  rows.push({
    phase: 'digest',
    mode: 'Postgres + Kafka',
    case: `open ${int(n)} digests: trigger → digest (static minutely) → send_email, 1 trigger per recipient`,
    count: n,
    seconds: openSeconds,
    perS: n / openSeconds,
    unit: 'digests opened/s',
    notes: [`no warm-up; seen complete by polling (4 per s); timers pending ${int(timersPending)}`, cpuNotes(openSelf, openMachineCpu)].join('; '),
  });

  await sleep(Math.max(0, closeAt - Date.now()));
  const cpu = cpuMeter();
  const selfCpuStart = process.cpuUsage();
  const backends = await harness.backendCpu();
  const writes = await harness.rowWrites();
  const machine = machineCpuMeter();
  let lastCount = 0;
  queryStats.clear();
  queryStatsOn = options.queryStats;
  const stop = ticker(async () => {
    const got = harness.deliveries.get(slug)?.length ?? 0;
    // Timers not fired yet, and outbox rows not relayed: which stage the close waits on.
    // From the statistics counters, not count(*): a count scans the dead rows the close
    // leaves behind, and at 100,000 digests those scans took a fifth of a core from the
    // close being measured.
    const live = await harness.liveRows(['timers', 'outbox']);
    const line = `${label} closing: ${int(got)}/${int(n)} delivery commands read (+${int(got - lastCount)} in the last second), timers left ~${int(live.get('timers') ?? 0)}, outbox backlog ~${int(live.get('outbox') ?? 0)}`;
    lastCount = got;
    return line;
  });
  try {
    await waitFor(() => (harness.deliveries.get(slug)?.length ?? 0) >= n, options.phaseTimeoutS * 1000, `${label} closing`);
  } finally {
    stop();
    queryStatsOn = false;
  }
  if (options.queryStats) reportQueryStats(`${label} closing`, n);
  const selfCpu = cpu();
  const machineCpu = machine();
  const selfUsed = process.cpuUsage(selfCpuStart);
  // CPU per digest closed, of this bench alone: its process (engine, poller, relay, reader) and its database's backends.
  const benchMsPerDigest = (selfUsed.user + selfUsed.system) / 1000 / n;
  const backendMsPerDigest = ((await backends()) * 1000) / n;
  await sleep(1_000); // anything sent twice arrives close behind (and the table statistics settle)
  const rowWrites = await writes();
  const received = harness.deliveries.get(slug) ?? [];
  const lateness = Float64Array.from(received, (at) => at - closeAt).sort();
  const drainS = lateness[lateness.length - 1] / 1000;
  rows.push({
    phase: 'digest',
    mode: 'Postgres + Kafka',
    case: `close ${int(n)} open digests at the same second: scheduled close → delivery command read`,
    count: received.length,
    seconds: drainS,
    perS: received.length / drainS,
    unit: 'digests closed/s',
    p50Ms: percentile(lateness, 50),
    p99Ms: percentile(lateness, 99),
    maxMs: percentile(lateness, 100),
    notes: [
      `drain (close until the last command) ${fixed(drainS, 1)} s; first command ${fixed(lateness[0], 0)} ms after the close`,
      `duplicate commands ${int(harness.duplicates())}`,
      `CPU per digest: bench process ${fixed(benchMsPerDigest, 2)} ms, its database's backends ${fixed(backendMsPerDigest, 2)} ms`,
      `rows written per digest (+inserted ~updated -deleted): ${rowWritesNote(rowWrites, n)}`,
      cpuNotes(selfCpu, machineCpu),
    ].join('; '),
    extra: { p90Ms: percentile(lateness, 90), minMs: lateness[0], duplicates: harness.duplicates(), openSeconds, leadS, benchMsPerDigest, backendMsPerDigest },
  });
  progress(`${label}: closing p50 ${fixed(percentile(lateness, 50), 0)} ms, p99 ${fixed(percentile(lateness, 99), 0)} ms, drain ${fixed(drainS, 1)} s`);
  await runCleanups();
}

// ---------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench:engine: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  setTimeout(() => {
    process.stderr.write(`bench:engine: exceeded --max-seconds ${options.maxSeconds}, aborting (cleanup may be incomplete)\n`);
    process.exit(3);
  }, options.maxSeconds * 1000).unref();
  if (options.queryStats) installQueryStats();
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
    progress('interrupted; cleaning up');
    void runCleanups().finally(() => process.exit(130));
  });

  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown cpu'}), node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`;
  progress(`run ${runId} on ${machine}`);
  const rows: Row[] = [];
  let failure: unknown;
  try {
    for (const phase of options.phases) {
      for (const mode of options.modes) {
        if (interrupted) break;
        if (phase === 'runs') await runsPhase(mode, options, rows);
        if (phase === 'appends') await appendsPhase(mode, options, rows);
        if (phase === 'timers') for (const scenario of options.scenarios) await timersPhase(mode, scenario, options, rows);
        if ((phase === 'batch' || phase === 'digest') && mode === 'embedded') progress(`${phase}: distributed mode only; skipped in embedded mode`);
        if (phase === 'batch' && mode === 'distributed') await batchPhase(options, rows);
        if (phase === 'digest' && mode === 'distributed') await digestPhase(options, rows);
      }
    }
  } catch (error) {
    failure = error;
  } finally {
    await runCleanups();
  }
  process.stdout.write(`\n${markdownTable(rows)}\n`);
  process.stdout.write(
    `\nRuns: first trigger publish until the last of N delivery commands is read back. Appends: events per second (calls/s in the notes). ` +
      `Timers: lateness = time the fired message reaches a consumer minus its due time. ` +
      `Batch: first publish until every run recorded accumulation.owned or accumulation.merged (recorded_at). ` +
      `Digest: lateness = time a delivery command is read minus the scheduled close. Load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}.\n`,
  );
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ bench: 'engine', runId, date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadavg: os.loadavg(), options, results: rows, error: failure === undefined ? undefined : String(failure) })}\n`,
    );
  }
  if (failure !== undefined) throw failure;
  return 0;
}

runBenchMain('engine', main);
