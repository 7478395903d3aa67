// Benchmark of ingest-api: accepted triggers per second and recipients per second
// through `POST /trigger/`, with request latency, in both run modes:
//
//   distributed  ingest-api as its own process (apps/ingest-api) on real Kafka and
//                Postgres; a 202 means every chunk of the trigger's recipients is
//                acknowledged by Kafka (acks=-1).
//   embedded     `npm start`'s process (apps/herald: all five services, PGlite, the
//                in-process bus journaled in its own PGlite); a 202 means the
//                messages are committed to the bus journal.
//
//   npm run bench:ingest                              # both modes, 1 and 100 recipients
//   npm run bench:ingest -- --mode distributed --runs 3
//   npm run bench:ingest -- --help                    # every option
//
// The load generator is this process: Node's http client with a keep-alive agent and a
// fixed number of requests in flight (a closed loop). Progress goes to stderr at least
// once a second; the Markdown table (and, with --json, one JSON line) to stdout. At the
// end it checks that the chunks on the trigger chunk topic hold exactly the accepted recipients.
// Figures and goals live in bench/RESULTS.md, never in tests.

process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import {
  CREDENTIALS_CHANGED_TYPE,
  CredentialsChanged,
  DEFINITION_CHANGED_TYPE,
  DefinitionChanged,
  TOPICS,
  envelopeOf,
} from '@herald/contracts';
import { KafkaBus, NamespacedBus } from '@herald/bus';
import { EmbeddedPostgres } from '@herald/database';
import { ensureHeraldTopics, hashToken } from '@herald/runtime';
import {
  RunningProcess,
  createTemporaryDatabase,
  freePort,
  heraldEnv,
  startProcess,
  uniqueName,
  waitUntilReady,
} from '@herald/testing';
import {
  BenchError,
  HAS_PROC,
  kafkaPids,
  percentile,
  postgresPids,
  processTicks,
  progressWriter,
  runBenchMain,
  unreachableBrokers,
} from '../shared/bench-kit';

// ---------------------------------------------------------------------------------
// Options

type ModeName = 'distributed' | 'embedded';

interface Options {
  readonly modes: readonly ModeName[];
  readonly recipients: readonly number[];
  readonly concurrency: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly runs: number;
  readonly dataBytes: number;
  /** Each case runs once per entry: without keys (false), with a unique key per trigger (true). */
  readonly idempotencyKeys: readonly boolean[];
  readonly partitions: number;
  /** Embedded mode: HERALD_INGEST_MAX_BACKLOG of the Herald process (unset: Herald's default). */
  readonly maxBacklog?: number;
  readonly ingestProcesses: number;
  readonly requestTimeoutS: number;
  readonly setupTimeoutS: number;
  readonly maxSeconds: number;
  readonly cpuProfDir?: string;
  readonly keep: boolean;
  readonly json: boolean;
  readonly brokers: readonly string[];
  readonly databaseUrl: string;
}

const USAGE = `Usage: npm run bench:ingest -- [options]

  --mode all|distributed|embedded   run modes to measure (default all)
  --recipients LIST          recipients per trigger, comma-separated, each 1..100
                             (default 1,100)
  --concurrency N            requests in flight, closed loop (default 64)
  --duration N               seconds of each measured run (default 10)
  --warmup N                 seconds of load before the first measured run of each
                             case, not measured (default 3)
  --runs N                   measured runs per case; with more than one the table
                             adds the median (default 1)
  --data-bytes N             size of the trigger's "data" object (default 256)
  --idempotency-keys         send a unique $idempotency_key with every trigger (adds
                             the idempotency ledger's Postgres round trips)
  --keys-and-no-keys         each case twice in one run: without keys, then each
                             trigger with its own $idempotency_key (the ledger's cost
                             against its peer)
  --max-backlog N            embedded mode: HERALD_INGEST_MAX_BACKLOG of the Herald
                             process (push-back bound; default Herald's own). A 429
                             counts as an error; the process's resident memory is printed
  --partitions N             HERALD_KAFKA_PARTITIONS of the Herald process (default 12)
  --ingest-processes N       distributed mode: ingest-api replicas on one database and
                             namespace, each on its own port; the requests in flight
                             are spread evenly over them (default 1)
  --request-timeout N        seconds before a request counts as failed (default 30)
  --setup-timeout N          seconds a start-up step may take (default 120)
  --max-seconds N            hard limit for the whole run (default 900)
  --cpu-prof DIR             start the Herald process with --cpu-prof into DIR (written
                             when it exits at the end of the mode)
  --keep                     leave the database, topics and data folder in place
  --json                     also print the results as one JSON line
  --help

Environment: HERALD_BENCH_KAFKA_BROKERS (default 127.0.0.1:9092, comma-separated),
HERALD_BENCH_DATABASE_URL (Postgres server for the temporary database of the distributed
mode; default postgres://postgres@127.0.0.1:5432/postgres).`;

class UsageError extends Error {}


function parseOptions(argv: readonly string[]): Options {
  const flags = new Set(['--json', '--keep', '--idempotency-keys', '--keys-and-no-keys', '--help']);
  const known = new Set([
    ...flags,
    '--mode',
    '--recipients',
    '--concurrency',
    '--duration',
    '--warmup',
    '--runs',
    '--data-bytes',
    '--partitions',
    '--max-backlog',
    '--ingest-processes',
    '--request-timeout',
    '--setup-timeout',
    '--max-seconds',
    '--cpu-prof',
  ]);
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${arg}`);
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    if (!known.has(name)) throw new UsageError(`unknown option ${name}`);
    if (flags.has(name)) {
      values.set(name, 'true');
    } else if (eq >= 0) {
      values.set(name, arg.slice(eq + 1));
    } else {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      values.set(name, value);
    }
  }
  if (values.has('--help')) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const text = values.get(name);
    if (text === undefined) return fallback;
    const value = Number(text.replace(/_/g, ''));
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new UsageError(`${name} must be an integer in [${min}, ${max}], got ${text}`);
    }
    return value;
  };
  const mode = values.get('--mode') ?? 'all';
  if (mode !== 'all' && mode !== 'distributed' && mode !== 'embedded') {
    throw new UsageError('--mode must be all, distributed or embedded');
  }
  const recipients = (values.get('--recipients') ?? '1,100').split(',').map((text) => {
    const value = Number(text.trim());
    if (!Number.isInteger(value) || value < 1 || value > 100) {
      throw new UsageError(`--recipients takes integers from 1 to 100 (a trigger's limit), got ${text}`);
    }
    return value;
  });
  const brokers = (process.env.HERALD_BENCH_KAFKA_BROKERS ?? '127.0.0.1:9092')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0) throw new UsageError('HERALD_BENCH_KAFKA_BROKERS names no broker');
  const cpuProf = values.get('--cpu-prof');
  return {
    modes: mode === 'all' ? ['distributed', 'embedded'] : [mode],
    recipients: [...new Set(recipients)],
    concurrency: integer('--concurrency', 64, 1, 4_096),
    durationS: integer('--duration', 10, 1, 3_600),
    warmupS: integer('--warmup', 3, 0, 600),
    runs: integer('--runs', 1, 1, 50),
    dataBytes: integer('--data-bytes', 256, 2, 500_000),
    idempotencyKeys: values.has('--keys-and-no-keys') ? [false, true] : [values.has('--idempotency-keys')],
    partitions: integer('--partitions', 12, 1, 1_000),
    maxBacklog: values.has('--max-backlog') ? integer('--max-backlog', 0, 1, 100_000_000) : undefined,
    ingestProcesses: integer('--ingest-processes', 1, 1, 16),
    requestTimeoutS: integer('--request-timeout', 30, 1, 600),
    setupTimeoutS: integer('--setup-timeout', 120, 5, 3_600),
    maxSeconds: integer('--max-seconds', 900, 10, 24 * 3_600),
    cpuProfDir: cpuProf === undefined ? undefined : resolve(cpuProf),
    keep: values.has('--keep'),
    json: values.has('--json'),
    brokers,
    databaseUrl: process.env.HERALD_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  };
}

// ---------------------------------------------------------------------------------
// Output

const progress = progressWriter('ingest');

const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const fixed = (n: number, digits: number): string => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/** Prints `render()` every second until the returned function is called. */
function ticker(render: (elapsedS: number) => string): () => void {
  const started = performance.now();
  const timer = setInterval(() => progress(render((performance.now() - started) / 1000)), 1_000);
  return () => clearInterval(timer);
}


function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const mid = Math.floor(finite.length / 2);
  return finite.length % 2 === 1 ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------------
// Aborting: --max-seconds and Ctrl-C stop the load and run the clean-up

const abort = new AbortController();

function checkAborted(): void {
  if (abort.signal.aborted) throw new BenchError(`aborted: ${String(abort.signal.reason)}`);
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

// ---------------------------------------------------------------------------------
// CPU accounting from /proc (Linux): who used the two cores during a run

interface CpuGroups {
  /** This process: the load generator. */
  readonly bench: () => number[];
  /** The Herald process under test. */
  readonly herald: () => number[];
  readonly kafka: () => number[];
  readonly postgres: () => number[];
}

type CpuGroupName = keyof CpuGroups;

/** CPU use in % of one core over the run; `machine` is all cores, `other` what no group explains. */
type CpuReport = Record<CpuGroupName | 'machine' | 'other', number>;

function machineTicks(): { total: number; idle: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  return { total, idle: values[3] + (values[4] ?? 0) };
}

/** Starts measuring; the returned function gives each group's CPU use since, or undefined without /proc. */
function cpuMeter(groups: CpuGroups): () => CpuReport | undefined {
  if (!HAS_PROC) return () => undefined;
  const names = Object.keys(groups) as CpuGroupName[];
  const snapshot = (): Map<CpuGroupName, Map<number, number>> =>
    new Map(names.map((name) => [name, new Map(groups[name]().flatMap((pid) => {
      const ticks = processTicks(pid);
      return ticks === undefined ? [] : [[pid, ticks] as [number, number]];
    }))]));
  const startGroups = snapshot();
  const startMachine = machineTicks();
  return () => {
    const endGroups = snapshot();
    const endMachine = machineTicks();
    const cores = os.cpus().length;
    // Ticks of one core over the run (the machine total counts every core).
    const wallTicks = Math.max(1, (endMachine.total - startMachine.total) / cores);
    const report = {} as CpuReport;
    let explained = 0;
    for (const name of names) {
      let ticks = 0;
      const before = startGroups.get(name) as Map<number, number>;
      for (const [pid, end] of endGroups.get(name) as Map<number, number>) ticks += end - (before.get(pid) ?? end);
      report[name] = (ticks / wallTicks) * 100;
      explained += report[name];
    }
    const busy = endMachine.total - startMachine.total - (endMachine.idle - startMachine.idle);
    report.machine = (busy / wallTicks) * 100;
    report.other = Math.max(0, report.machine - explained);
    return report;
  };
}

/** CPU of processes outside the bench, in % of one core, above which a run is flagged as not quiet. */
const BUSY_OTHER_PERCENT = 20;


// ---------------------------------------------------------------------------------
// The load generator

/** Herald processes ready for triggers: one, or several ingest-api replicas (one base URL each). */
interface Target {
  readonly mode: ModeName;
  readonly baseUrls: readonly URL[];
  readonly authorization: string;
  readonly workflow: string;
  readonly processes: readonly RunningProcess[];
}

interface Sent {
  readonly status: number;
  readonly body: string;
}

function post(agent: http.Agent, url: URL, headers: http.OutgoingHttpHeaders, body: Buffer, timeoutMs: number): Promise<Sent> {
  return new Promise((resolvePost, rejectPost) => {
    const request = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/trigger/',
        headers: { ...headers, 'content-length': body.length },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolvePost({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', rejectPost);
      },
    );
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    request.on('error', rejectPost);
    request.end(body);
  });
}

/**
 * Trigger bodies: distinct recipients (`bench-user-<n>`, so keys spread over the
 * partitions), the same workflow, a `data` object of about `dataBytes`. Built ahead;
 * with idempotency keys each request gets its own key in front.
 */
class Bodies {
  private readonly pool: string[] = [];
  private next = 0;
  private seq = 0;

  constructor(
    readonly recipientsPerTrigger: number,
    workflow: string,
    dataBytes: number,
    private readonly idempotencyKeys: boolean,
    private readonly keyPrefix: string,
  ) {
    const poolSize = Math.max(100, Math.ceil(10_000 / recipientsPerTrigger));
    const filler = { order_id: 'ord-000000', amount: 42.5, currency: 'EUR', items: [{ sku: 'SKU-1', qty: 2 }], note: '' };
    filler.note = 'x'.repeat(Math.max(0, dataBytes - Buffer.byteLength(JSON.stringify(filler))));
    const data = JSON.stringify(filler);
    for (let i = 0; i < poolSize; i++) {
      const recipients = Array.from({ length: recipientsPerTrigger }, (_, j) => `bench-user-${(i * recipientsPerTrigger + j) % 1_000_000}`);
      // Without the opening brace, so that a key can go in front.
      this.pool.push(`"workflow":${JSON.stringify(workflow)},"recipients":${JSON.stringify(recipients)},"data":${data}}`);
    }
  }

  /** The next body, as bytes. */
  take(): Buffer {
    const rest = this.pool[this.next];
    this.next = (this.next + 1) % this.pool.length;
    this.seq++;
    return Buffer.from(this.idempotencyKeys ? `{"$idempotency_key":"${this.keyPrefix}-${this.seq}",${rest}` : `{${rest}`);
  }

  get averageBytes(): number {
    return Buffer.byteLength(`{${this.pool[0]}`) + (this.idempotencyKeys ? 40 : 0);
  }
}

/** What every request of one process produced, for the final check against the topic. */
interface Tally {
  /** Recipients of requests answered 202. */
  acceptedRecipients: number;
  /** Recipients of requests whose outcome is unknown (connection lost, timeout): may or may not be on the bus. */
  unknownRecipients: number;
  acceptedTriggers: number;
}

interface LoadResult {
  readonly seconds: number;
  readonly triggers: number;
  readonly recipients: number;
  readonly latencies: Float64Array;
  readonly errors: Map<string, number>;
  readonly errorSamples: string[];
}

/**
 * Keeps `concurrency` requests in flight for `seconds`, then waits for the last ones.
 * Every non-202 is an error; the first few error bodies are kept as samples.
 */
async function load(
  target: Target,
  bodies: Bodies,
  agent: http.Agent,
  options: Options,
  seconds: number,
  label: string,
  tally: Tally,
): Promise<LoadResult> {
  const headers: http.OutgoingHttpHeaders = { authorization: target.authorization, 'content-type': 'application/json' };
  const timeoutMs = options.requestTimeoutS * 1000;
  const latencies: number[] = [];
  const errors = new Map<string, number>();
  const errorSamples: string[] = [];
  let triggers = 0;
  let errorCount = 0;
  let stop = false;
  const countError = (kind: string, sample: string): void => {
    errorCount++;
    errors.set(kind, (errors.get(kind) ?? 0) + 1);
    if (errorSamples.length < 5) errorSamples.push(`${kind}: ${sample.slice(0, 300)}`);
  };

  let windowStart = 0;
  let lastTriggers = 0;
  const stopTicker = ticker((elapsed) => {
    const window = Float64Array.from(latencies.slice(windowStart)).sort();
    windowStart = latencies.length;
    const rate = triggers - lastTriggers;
    lastTriggers = triggers;
    return (
      `${label}: ${fixed(Math.min(elapsed, seconds), 0)}/${seconds} s, ${int(rate)} triggers/s, ` +
      `${int(rate * bodies.recipientsPerTrigger)} recipients/s, last second p50 ${fixed(percentile(window, 50), 1)} ms, ` +
      `p99 ${fixed(percentile(window, 99), 1)} ms, errors ${int(errorCount)}`
    );
  });
  const started = performance.now();
  const deadline = setTimeout(() => (stop = true), seconds * 1000);
  const onAbort = (): void => void (stop = true);
  abort.signal.addEventListener('abort', onAbort);
  try {
    // Worker i sends to replica i mod n: the requests in flight are spread evenly.
    const worker = async (baseUrl: URL): Promise<void> => {
      while (!stop) {
        const body = bodies.take();
        const sentAt = performance.now();
        try {
          const answer = await post(agent, baseUrl, headers, body, timeoutMs);
          if (answer.status === 202 && answer.body.includes('"message_id"')) {
            latencies.push(performance.now() - sentAt);
            triggers++;
            tally.acceptedTriggers++;
            tally.acceptedRecipients += bodies.recipientsPerTrigger;
          } else {
            countError(`HTTP ${answer.status}`, answer.body);
          }
        } catch (error) {
          tally.unknownRecipients += bodies.recipientsPerTrigger;
          countError(`network (${(error as NodeJS.ErrnoException).code ?? 'error'})`, (error as Error).message);
          await sleep(10); // a refused connection fails at once; do not spin
        }
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, (_, i) => worker(target.baseUrls[i % target.baseUrls.length])));
  } finally {
    clearTimeout(deadline);
    abort.signal.removeEventListener('abort', onAbort);
    stopTicker();
  }
  checkAborted();
  return {
    seconds: (performance.now() - started) / 1000,
    triggers,
    recipients: triggers * bodies.recipientsPerTrigger,
    latencies: Float64Array.from(latencies).sort(),
    errors,
    errorSamples,
  };
}

// ---------------------------------------------------------------------------------
// Results

interface Row {
  readonly mode: ModeName;
  /** Herald processes serving the requests (ingest-api replicas in the distributed mode). */
  readonly processes: number;
  readonly recipientsPerTrigger: number;
  readonly idempotencyKeys: boolean;
  /** 1-based run number, or 'median' over the runs. */
  readonly run: number | 'median';
  readonly seconds: number;
  readonly triggers: number;
  readonly triggersPerS: number;
  readonly recipientsPerS: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly errors: number;
  readonly errorKinds: Record<string, number>;
  readonly cpu?: CpuReport;
}

/** Topics and partitions on the broker when the distributed mode started (context for its figures), if known. */
let brokerLoad: { topics: number; partitions: number } | undefined;

async function countBrokerTopics(options: Options): Promise<{ topics: number; partitions: number }> {
  const admin = kafkaAdmin(options);
  try {
    await admin.connect();
    const metadata = await withTimeout(admin.fetchTopicMetadata(), 30_000, 'reading the topic metadata');
    return { topics: metadata.topics.length, partitions: metadata.topics.reduce((sum, t) => sum + t.partitions.length, 0) };
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

interface Verification {
  readonly mode: ModeName;
  readonly what: string;
  readonly onBus?: number;
  readonly accepted: number;
  readonly unknown: number;
  readonly ok: boolean | undefined;
  readonly detail: string;
}

const cpuText = (cpu: CpuReport | undefined, mode: ModeName): string =>
  cpu === undefined
    ? ''
    : mode === 'distributed'
      ? `${int(cpu.bench)} / ${int(cpu.herald)} / ${int(cpu.kafka)} / ${int(cpu.postgres)} / ${int(cpu.other)} / ${int(cpu.machine)}`
      : `${int(cpu.bench)} / ${int(cpu.herald)} / - / - / ${int(cpu.other)} / ${int(cpu.machine)}`;

function markdownTable(rows: readonly Row[]): string {
  const header = [
    'Mode',
    'Recipients / trigger',
    'Run',
    'triggers/s',
    'recipients/s',
    'p50 (ms)',
    'p99 (ms)',
    'max (ms)',
    'Errors',
    'CPU % bench / herald / kafka / pg / other / machine',
  ];
  return [
    `| ${header.join(' | ')} |`,
    '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows.map(
      (r) =>
        `| ${[
          `${r.processes === 1 ? r.mode : `${r.mode}, ${r.processes} ingest-api`}${r.idempotencyKeys ? ', each with its own $idempotency_key' : ''}`,
          r.recipientsPerTrigger,
          r.run === 'median' ? '**median**' : `${r.run} (${int(r.triggers)} in ${fixed(r.seconds, 1)} s)`,
          int(r.triggersPerS),
          int(r.recipientsPerS),
          fixed(r.p50Ms, 1),
          fixed(r.p99Ms, 1),
          fixed(r.maxMs, 1),
          r.errors === 0 ? '0' : `${int(r.errors)} (${Object.entries(r.errorKinds).map(([k, n]) => `${k}: ${n}`).join(', ')})`,
          cpuText(r.cpu, r.mode),
        ].join(' | ')} |`,
    ),
  ].join('\n');
}

function medianRow(runs: readonly Row[]): Row {
  const pick = (f: (r: Row) => number): number => median(runs.map(f));
  const errorKinds: Record<string, number> = {};
  for (const r of runs) for (const [k, n] of Object.entries(r.errorKinds)) errorKinds[k] = (errorKinds[k] ?? 0) + n;
  const cpus = runs.map((r) => r.cpu).filter((c): c is CpuReport => c !== undefined);
  const cpu =
    cpus.length === 0
      ? undefined
      : (Object.fromEntries(
          (Object.keys(cpus[0]) as Array<keyof CpuReport>).map((k) => [k, median(cpus.map((c) => c[k]))]),
        ) as CpuReport);
  return {
    mode: runs[0].mode,
    processes: runs[0].processes,
    recipientsPerTrigger: runs[0].recipientsPerTrigger,
    idempotencyKeys: runs[0].idempotencyKeys,
    run: 'median',
    seconds: pick((r) => r.seconds),
    triggers: pick((r) => r.triggers),
    triggersPerS: pick((r) => r.triggersPerS),
    recipientsPerS: pick((r) => r.recipientsPerS),
    p50Ms: pick((r) => r.p50Ms),
    p99Ms: pick((r) => r.p99Ms),
    maxMs: pick((r) => r.maxMs),
    // Errors are summed over the runs, not a median: any error matters.
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    errorKinds,
    cpu,
  };
}

// ---------------------------------------------------------------------------------
// Cases: one recipients-per-trigger setting against one running process

async function runCases(target: Target, options: Options, groups: CpuGroups, rows: Row[], tally: Tally): Promise<void> {
  const keyPrefix = `bench-${randomBytes(4).toString('hex')}`;
  for (const recipientsPerTrigger of options.recipients) for (const idempotencyKeys of options.idempotencyKeys) {
    checkAborted();
    const bodies = new Bodies(recipientsPerTrigger, target.workflow, options.dataBytes, idempotencyKeys, `${keyPrefix}-${recipientsPerTrigger}`);
    const label = `${target.mode}, ${recipientsPerTrigger} recipient${recipientsPerTrigger === 1 ? '' : 's'}${idempotencyKeys ? ', keyed' : ''}`;
    progress(
      `${label}: ${options.concurrency} requests in flight, bodies of ~${int(bodies.averageBytes)} bytes` +
        `${idempotencyKeys ? ', each with its own $idempotency_key' : ''}`,
    );
    // One agent per case: a socket the server closed while idle is never reused.
    const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency, maxFreeSockets: options.concurrency });
    try {
      if (options.warmupS > 0) {
        const warm = await load(target, bodies, agent, options, options.warmupS, `${label}, warm-up`, tally);
        const errors = [...warm.errors.values()].reduce((a, b) => a + b, 0);
        progress(
          `${label}, warm-up: ${int(warm.triggers / warm.seconds)} triggers/s, p50 ${fixed(percentile(warm.latencies, 50), 1)} ms, ` +
            `${errors} errors (not measured)`,
        );
      }
      const caseRows: Row[] = [];
      for (let run = 1; run <= options.runs; run++) {
        const cpu = cpuMeter(groups);
        const result = await load(target, bodies, agent, options, options.durationS, `${label}, run ${run}/${options.runs}`, tally);
        const errors = [...result.errors.values()].reduce((a, b) => a + b, 0);
        const row: Row = {
          mode: target.mode,
          processes: target.processes.length,
          recipientsPerTrigger,
          idempotencyKeys,
          run,
          seconds: result.seconds,
          triggers: result.triggers,
          triggersPerS: result.triggers / result.seconds,
          recipientsPerS: result.recipients / result.seconds,
          p50Ms: percentile(result.latencies, 50),
          p99Ms: percentile(result.latencies, 99),
          maxMs: percentile(result.latencies, 100),
          errors,
          errorKinds: Object.fromEntries(result.errors),
          cpu: cpu(),
        };
        caseRows.push(row);
        rows.push(row);
        progress(
          `${label}, run ${run}/${options.runs}: ${int(row.triggersPerS)} triggers/s, ${int(row.recipientsPerS)} recipients/s, ` +
            `p50 ${fixed(row.p50Ms, 1)} ms, p99 ${fixed(row.p99Ms, 1)} ms, max ${fixed(row.maxMs, 1)} ms, errors ${errors}` +
            (row.cpu ? `; CPU % bench/herald/kafka/pg/other/machine ${cpuText(row.cpu, 'distributed')}` : ''),
        );
        for (const sample of result.errorSamples) progress(`${label}, run ${run}: error sample: ${sample}`);
        if (row.cpu && row.cpu.other > BUSY_OTHER_PERCENT) {
          progress(`${label}, run ${run}: WARNING: other work used ${int(row.cpu.other)}% of a core meanwhile; this run is not from a quiet machine`);
        }
      }
      if (options.runs > 1) rows.push(medianRow(caseRows));
    } finally {
      agent.destroy();
    }
  }
}

/** Sends one trigger at a time to each process until it is accepted: the process has learnt its credentials and workflow. */
async function waitForAcceptance(target: Target, options: Options, tally: Tally): Promise<void> {
  const agent = new http.Agent({ keepAlive: false });
  const body = Buffer.from(JSON.stringify({ workflow: target.workflow, recipients: ['bench-probe'], data: {} }));
  const headers = { authorization: target.authorization, 'content-type': 'application/json' };
  let last = 'no answer yet';
  const stopTicker = ticker((s) => `${target.mode}: waiting for a trigger to be accepted (${fixed(s, 0)} s; last: ${last})`);
  const deadline = performance.now() + options.setupTimeoutS * 1000;
  try {
    for (const [i, baseUrl] of target.baseUrls.entries()) {
      const running = target.processes[i];
      for (;;) {
        checkAborted();
        if (running.child.exitCode !== null || running.child.signalCode !== null) {
          throw new BenchError(`${running.name} exited:\n${running.output().slice(-3000)}`);
        }
        try {
          const answer = await post(agent, baseUrl, headers, body, 10_000);
          if (answer.status === 202) {
            tally.acceptedRecipients += 1;
            tally.acceptedTriggers += 1;
            break;
          }
          last = `${answer.status} ${answer.body.slice(0, 120)}`;
        } catch (error) {
          last = (error as Error).message;
        }
        if (performance.now() > deadline) throw new BenchError(`${target.mode}: no trigger accepted within ${options.setupTimeoutS} s (last: ${last})`);
        await sleep(200);
      }
    }
  } finally {
    stopTicker();
    agent.destroy();
  }
}

function nodeArgs(options: Options, name: string): string[] {
  if (options.cpuProfDir === undefined) return [];
  mkdirSync(options.cpuProfDir, { recursive: true });
  return ['--cpu-prof', '--cpu-prof-dir', options.cpuProfDir, '--cpu-prof-name', `${name}-${Date.now()}.cpuprofile`];
}

async function startAndWait(name: string, entrypoint: string, env: NodeJS.ProcessEnv, options: Options, urls: readonly string[]): Promise<RunningProcess> {
  const started = startProcess(name, process.execPath, [...nodeArgs(options, name), '-r', './tools/register.js', entrypoint], env);
  const stopTicker = ticker((s) => `${name}: starting (${fixed(s, 0)} s)`);
  try {
    for (const url of urls) await waitUntilReady(started, url, options.setupTimeoutS * 1000);
  } catch (error) {
    await started.stop('SIGKILL');
    throw new BenchError(String((error as Error).message));
  } finally {
    stopTicker();
  }
  return started;
}

/** SIGTERM (a graceful stop, which also writes a --cpu-prof profile); SIGKILL if that hangs. */
async function stopProcess(running: RunningProcess): Promise<void> {
  const stopTicker = ticker((s) => `${running.name}: stopping (${fixed(s, 0)} s)`);
  try {
    await withTimeout(running.stop('SIGTERM'), 40_000, `${running.name} stop`);
  } catch (error) {
    progress(`${running.name}: ${String((error as Error).message)}; killing it`);
    await running.stop('SIGKILL');
  } finally {
    stopTicker();
  }
}

// ---------------------------------------------------------------------------------
// Distributed mode: ingest-api alone, on Kafka and Postgres

/** Fails fast, before kafkajs starts its retry loops, when no broker accepts a TCP connection. */
async function probeBrokers(brokers: readonly string[]): Promise<void> {
  const why = await unreachableBrokers(brokers);
  if (why === undefined) return;
  throw new BenchError(
    `no Kafka broker reachable (${why}); start one with \`npm run kafka:start\`, ` +
      'point HERALD_BENCH_KAFKA_BROKERS at one, or pass --mode embedded',
  );
}

function kafkaAdmin(options: Options): ReturnType<Kafka['admin']> {
  return new Kafka({ clientId: 'herald-bench-ingest', brokers: [...options.brokers], logLevel: logLevel.NOTHING }).admin();
}

async function runDistributed(options: Options, rows: Row[], verifications: Verification[]): Promise<void> {
  progress(`distributed: Kafka at ${options.brokers.join(',')}, Postgres at ${options.databaseUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')}`);
  await probeBrokers(options.brokers);
  // The broker's CPU (and so these figures) grows with the partitions it hosts, including other users' topics.
  brokerLoad = await countBrokerTopics(options).catch(() => undefined);
  if (brokerLoad !== undefined) {
    progress(`distributed: the broker hosts ${int(brokerLoad.topics)} topics, ${int(brokerLoad.partitions)} partitions before the run`);
  }
  const namespace = uniqueName('bench_ingest');
  const secretsKey = randomBytes(32);
  const workspaceId = randomUUID();
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const tally: Tally = { acceptedRecipients: 0, unknownRecipients: 0, acceptedTriggers: 0 };
  const cleanups: Array<{ what: string; run: () => Promise<void> }> = [];
  try {
    const database = await withTimeout(createTemporaryDatabase(options.databaseUrl, 'herald_bench'), 30_000, 'creating the database').catch(
      (error: unknown) => {
        throw new BenchError(`cannot create a temporary database on ${options.databaseUrl}: ${String(error)}`);
      },
    );
    if (!options.keep) cleanups.push({ what: 'drop the temporary database', run: () => database.drop() });
    progress(`distributed: database ${new URL(database.url).pathname.slice(1)}, Kafka namespace ${namespace}`);

    // What management-api would announce: an API key and a live workflow.
    const bus = new NamespacedBus(new KafkaBus({ brokers: options.brokers, clientId: 'herald-bench-ingest-seed' }), namespace);
    if (!options.keep) cleanups.push({ what: 'delete the namespace\'s topics and groups', run: () => deleteNamespace(options, namespace) });
    try {
      await withTimeout(ensureHeraldTopics(bus, options.partitions), options.setupTimeoutS * 1000, 'creating the topics');
      const credentials: CredentialsChanged = {
        kind: 'api_key',
        change: 'created',
        api_key_id: randomUUID(),
        workspace_id: workspaceId,
        workspace_slug: 'staging',
        key_hash: hashToken(apiKey).toString('hex'),
      };
      const workflow: DefinitionChanged = {
        kind: 'workflow',
        change: 'committed',
        workspace_id: workspaceId,
        workspace_slug: 'staging',
        id: 'bench',
        version: 1,
        document: { slug: 'bench', is_enabled: true, definition: { trigger_type: 'api' } },
      };
      await bus.publish(TOPICS.credentialsChanged.name, [
        { key: workspaceId, value: JSON.stringify(envelopeOf(CREDENTIALS_CHANGED_TYPE, 1, randomUUID(), workspaceId, new Date(), credentials)) },
      ]);
      await bus.publish(TOPICS.definitionChanged.name, [
        { key: workspaceId, value: JSON.stringify(envelopeOf(DEFINITION_CHANGED_TYPE, 1, randomUUID(), workspaceId, new Date(), workflow)) },
      ]);
    } finally {
      await bus.close();
    }

    const replicas: RunningProcess[] = [];
    const baseUrls: URL[] = [];
    let stopped = false;
    const stopReplicas = async (): Promise<void> => {
      if (stopped) return;
      stopped = true;
      await Promise.all(replicas.map((r) => stopProcess(r)));
    };
    cleanups.unshift({ what: 'stop ingest-api', run: stopReplicas });
    // One after the other: the first migrates the schema.
    for (let i = 0; i < options.ingestProcesses; i++) {
      const port = await freePort();
      replicas.push(
        await startAndWait(
          options.ingestProcesses === 1 ? 'ingest-api' : `ingest-api-${i + 1}`,
          'apps/ingest-api/src/main.ts',
          heraldEnv({
            HERALD_KAFKA_BROKERS: options.brokers.join(','),
            HERALD_KAFKA_NAMESPACE: namespace,
            HERALD_KAFKA_PARTITIONS: String(options.partitions),
            HERALD_DATABASE_URL: database.url,
            HERALD_SECRETS_KEY: secretsKey.toString('base64'),
            HERALD_PORT: String(port),
            HERALD_LOG_LEVEL: 'warn',
          }),
          options,
          [`http://127.0.0.1:${port}/`],
        ),
      );
      baseUrls.push(new URL(`http://127.0.0.1:${port}/`));
    }
    const target: Target = { mode: 'distributed', baseUrls, authorization: `Bearer ${apiKey}`, workflow: 'bench', processes: replicas };
    await waitForAcceptance(target, options, tally);
    progress(`distributed: ingest-api accepts triggers${replicas.length > 1 ? ` (${replicas.length} processes)` : ''}`);
    const groups: CpuGroups = {
      bench: () => [process.pid],
      herald: () => replicas.flatMap((r) => (r.child.pid ? [r.child.pid] : [])),
      kafka: kafkaPids,
      postgres: postgresPids,
    };
    try {
      await runCases(target, options, groups, rows, tally);
    } finally {
      // Every 202 was acknowledged by Kafka, so the end offsets are final now.
      verifications.push(await verifyKafka(options, namespace, tally));
      await stopReplicas();
      for (const replica of replicas) warnAboutLogs(replica);
    }
  } finally {
    for (const cleanup of cleanups) {
      try {
        await withTimeout(cleanup.run(), 60_000, cleanup.what);
      } catch (error) {
        progress(`distributed: could not ${cleanup.what}: ${String((error as Error).message)}`);
      }
    }
    if (options.keep) progress(`distributed: kept namespace ${namespace} and its database (--keep)`);
  }
}

/**
 * Recipients in the chunks on the namespaced chunk topic, read to its end offsets: one
 * per accepted recipient (a chunk holds several of one trigger's recipients).
 */
async function verifyKafka(options: Options, namespace: string, tally: Tally): Promise<Verification> {
  const topic = `${namespace}.${TOPICS.triggerChunkAccepted.name}`;
  const what = `recipients in the chunks on ${topic}`;
  const kafka = new Kafka({ clientId: 'herald-bench-ingest', brokers: [...options.brokers], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  // In the namespace, so deleteNamespace removes it.
  const consumer = kafka.consumer({ groupId: `${namespace}.bench-verify` });
  const stopTicker = ticker((s) => `distributed: counting the recipients of the chunks on ${topic} (${fixed(s, 0)} s)`);
  try {
    await admin.connect();
    const offsets = await withTimeout(admin.fetchTopicOffsets(topic), 30_000, 'fetching the topic offsets');
    const remaining = new Map(offsets.filter((p) => Number(p.high) > Number(p.low)).map((p) => [p.partition, Number(p.high)]));
    let chunks = 0;
    let recipients = 0;
    if (remaining.size > 0) {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const readAll = new Promise<void>((resolve, reject) => {
        consumer
          .run({
            eachBatch: async ({ batch }) => {
              for (const message of batch.messages) {
                chunks += 1;
                recipients += (JSON.parse((message.value as Buffer).toString('utf8')) as { payload: { recipients: unknown[] } }).payload.recipients.length;
                if (Number(message.offset) + 1 >= (remaining.get(batch.partition) ?? 0)) remaining.delete(batch.partition);
              }
              if (remaining.size === 0) resolve();
            },
          })
          .catch(reject);
      });
      await withTimeout(readAll, 600_000, 'reading the chunk topic');
    }
    const result = verification('distributed', what, recipients, tally);
    return { ...result, detail: `${result.detail}; ${int(chunks)} chunks, ${fixed(chunks === 0 ? 0 : recipients / chunks, 1)} recipients per chunk` };
  } catch (error) {
    return { mode: 'distributed', what, accepted: tally.acceptedRecipients, unknown: tally.unknownRecipients, ok: undefined, detail: `not verified: ${String(error)}` };
  } finally {
    stopTicker();
    await consumer.disconnect().catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}

function verification(mode: ModeName, what: string, onBus: number, tally: Tally): Verification {
  // A request whose answer was lost may or may not have been published.
  const ok = onBus >= tally.acceptedRecipients && onBus <= tally.acceptedRecipients + tally.unknownRecipients;
  const expected =
    tally.unknownRecipients === 0
      ? `${int(tally.acceptedRecipients)}`
      : `${int(tally.acceptedRecipients)} to ${int(tally.acceptedRecipients + tally.unknownRecipients)}`;
  return {
    mode,
    what,
    onBus,
    accepted: tally.acceptedRecipients,
    unknown: tally.unknownRecipients,
    ok,
    detail:
      `${int(onBus)} on the bus, ${expected} expected (recipients of the ${int(tally.acceptedTriggers)} triggers answered 202, ` +
      `warm-ups and the readiness probe included): ${ok ? 'match' : 'MISMATCH'}`,
  };
}

async function deleteNamespace(options: Options, namespace: string): Promise<void> {
  const admin = kafkaAdmin(options);
  try {
    await admin.connect();
    const prefix = `${namespace}.`;
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
    progress(`distributed: deleted ${topics.length} topics and ${groups.length} consumer groups of ${namespace}`);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Warnings the process logged during the run (HERALD_LOG_LEVEL=warn keeps only those). */
function warnAboutLogs(running: RunningProcess): void {
  const lines = running.logLines().filter((l) => l.level === 'warn' || l.level === 'error');
  if (lines.length === 0) return;
  progress(`${running.name}: logged ${lines.length} warning/error line(s); the first: ${JSON.stringify(lines[0]).slice(0, 400)}`);
}

// ---------------------------------------------------------------------------------
// Embedded mode: `npm start`'s process

/** Resident memory of a live process now and at its peak (VmHWM, start-up included), in MB. */
function rssText(pid: number | undefined): string {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mb = (field: string): string => {
      const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
      return match ? String(Math.round(Number(match[1]) / 1024)) : '?';
    };
    return `${mb('VmRSS')} MB now, ${mb('VmHWM')} MB at its peak (start-up included)`;
  } catch {
    return 'unknown (process gone)';
  }
}

async function runEmbedded(options: Options, rows: Row[], verifications: Verification[]): Promise<void> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'herald-bench-ingest-'));
  const [port, managementPort] = [await freePort(), await freePort()];
  const serviceToken = `hst_${randomBytes(24).toString('base64url')}`;
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const tally: Tally = { acceptedRecipients: 0, unknownRecipients: 0, acceptedTriggers: 0 };
  let herald: RunningProcess | undefined;
  try {
    progress(`embedded: data folder ${dataDir}`);
    herald = await startAndWait(
      'herald',
      'apps/herald/src/main.ts',
      heraldEnv({
        HERALD_DATA_DIR: dataDir,
        HERALD_PORT: String(port),
        HERALD_MANAGEMENT_PORT: String(managementPort),
        HERALD_KAFKA_PARTITIONS: String(options.partitions),
        HERALD_BOOTSTRAP_SERVICE_TOKEN: serviceToken,
        HERALD_BOOTSTRAP_API_KEY: apiKey,
        HERALD_LOG_LEVEL: 'warn',
        ...(options.maxBacklog === undefined ? {} : { HERALD_INGEST_MAX_BACKLOG: String(options.maxBacklog) }),
      }),
      options,
      [`http://127.0.0.1:${port}/`, `http://127.0.0.1:${managementPort}/`],
    );
    await createWorkflow(`http://127.0.0.1:${managementPort}/`, serviceToken);
    const running = herald;
    const target: Target = {
      mode: 'embedded',
      baseUrls: [new URL(`http://127.0.0.1:${port}/`)],
      authorization: `Bearer ${apiKey}`,
      workflow: 'bench',
      processes: [running],
    };
    await waitForAcceptance(target, options, tally);
    progress('embedded: Herald accepts triggers');
    const groups: CpuGroups = {
      bench: () => [process.pid],
      herald: () => (running.child.pid ? [running.child.pid] : []),
      kafka: () => [],
      postgres: () => [],
    };
    try {
      await runCases(target, options, groups, rows, tally);
    } finally {
      progress(`embedded: resident memory of the Herald process: ${rssText(running.child.pid)}`);
      await stopProcess(running);
      warnAboutLogs(running);
      herald = undefined;
      verifications.push(await verifyJournal(dataDir, tally));
    }
  } finally {
    if (herald) await stopProcess(herald);
    if (options.keep) progress(`embedded: kept ${dataDir} (--keep)`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The management API calls of apps/herald/src/sdk-compatibility.e2e.spec.ts: categories, then a workflow, each committed. */
async function createWorkflow(managementUrl: string, serviceToken: string): Promise<void> {
  const call = async (method: string, path: string, expected: number, body?: unknown): Promise<void> => {
    const response = await fetch(`${managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (response.status !== expected) throw new BenchError(`embedded: ${method} ${path} answered ${response.status}, not ${expected}: ${text.slice(0, 500)}`);
  };
  const categories = {
    root_categories: [
      { root_category: 'transactional', sections: [{ name: 'Account', categories: [{ category: 'account', name: 'Account', default_preference: 'opt_in' }] }] },
    ],
  };
  await call('POST', 'v1/staging/preference_category/', 200, categories);
  await call('PATCH', 'v1/staging/preference_category/commit/?commit_message=categories', 200);
  const workflow = {
    name: 'Bench',
    category: 'account',
    trigger_type: 'api',
    tree: { nodes: [{ name: 'Wait', node_type: 'delay', delay_type: 'fixed', duration: '0d0h0m1s' }] },
  };
  await call('POST', 'v1/staging/workflow/bench/', 201, workflow);
  await call('PATCH', 'v1/staging/workflow/bench/commit/?commit_message=bench', 202);
}

/**
 * After the process stopped: the recipients of the chunk topic's rows in the bus journal
 * (the journal's own PGlite under the data folder), which is what `publish` committed.
 */
async function verifyJournal(dataDir: string, tally: Tally): Promise<Verification> {
  const topic = TOPICS.triggerChunkAccepted.name;
  const what = `recipients in the rows of ${topic} in the bus journal (bus.messages)`;
  const stopTicker = ticker((s) => `embedded: counting the bus journal's rows (${fixed(s, 0)} s)`);
  let journal: EmbeddedPostgres | undefined;
  try {
    journal = await withTimeout(EmbeddedPostgres.start({ dataDir: join(dataDir, 'bus-pgdata') }), 60_000, 'opening the bus journal');
    const client = new Client({ connectionString: journal.url });
    await client.connect();
    try {
      const result = await client.query<{ n: string }>(
        `SELECT coalesce(sum(jsonb_array_length(convert_from(value, 'UTF8')::jsonb->'payload'->'recipients')), 0) AS n FROM bus.messages WHERE topic = $1`,
        [topic],
      );
      return verification('embedded', what, Number(result.rows[0].n), tally);
    } finally {
      await client.end();
    }
  } catch (error) {
    return { mode: 'embedded', what, accepted: tally.acceptedRecipients, unknown: tally.unknownRecipients, ok: undefined, detail: `not verified: ${String(error)}` };
  } finally {
    stopTicker();
    await journal?.stop().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench:ingest: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }

  // Hard limits: past --max-seconds the load stops and the clean-up runs; should even
  // that hang, the process exits a minute later (children are killed on exit).
  setTimeout(() => {
    progress(`exceeded --max-seconds ${options.maxSeconds}; stopping and cleaning up`);
    abort.abort(`--max-seconds ${options.maxSeconds} exceeded`);
  }, options.maxSeconds * 1000).unref();
  setTimeout(() => {
    process.stderr.write('bench:ingest: clean-up did not finish; exiting\n');
    process.exit(3);
  }, (options.maxSeconds + 90) * 1000).unref();
  process.once('SIGINT', () => {
    progress('interrupted; stopping and cleaning up (Ctrl-C again to quit at once)');
    abort.abort('interrupted');
    process.once('SIGINT', () => process.exit(130));
  });

  const runId = `${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(3).toString('hex')}`;
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown cpu'}), node ${process.version}`;
  progress(`run ${runId} on ${machine}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  progress(
    `modes ${options.modes.join(', ')}; ${options.recipients.join(' and ')} recipient(s) per trigger; ` +
      `${options.concurrency} in flight; warm-up ${options.warmupS} s, then ${options.runs} × ${options.durationS} s`,
  );
  if (options.cpuProfDir) progress(`CPU profiles of the Herald process go to ${options.cpuProfDir}`);

  const rows: Row[] = [];
  const verifications: Verification[] = [];
  let failure: unknown;
  for (const mode of options.modes) {
    try {
      if (mode === 'distributed') await runDistributed(options, rows, verifications);
      else await runEmbedded(options, rows, verifications);
    } catch (error) {
      failure ??= error;
      progress(`${mode} failed: ${error instanceof BenchError ? error.message : String(error)}`);
    }
    if (abort.signal.aborted) break;
  }

  process.stdout.write(`\n${markdownTable(rows)}\n\n`);
  process.stdout.write(
    `Closed loop, ${options.concurrency} requests in flight, keep-alive; latency is request sent to response read, ` +
      `202 only. CPU in % of one core over the run (this machine has ${os.cpus().length}): bench = this load generator, ` +
      `herald = the Herald process, pg = all postgres processes, other = everything else busy, machine = all of it.\n`,
  );
  const busy = rows.filter((r) => r.run !== 'median' && r.cpu !== undefined && r.cpu.other > BUSY_OTHER_PERCENT).length;
  if (busy > 0) {
    process.stdout.write(`\nWARNING: in ${busy} run(s) other work on the machine used more than ${BUSY_OTHER_PERCENT}% of a core (column "other"); rerun on a quiet machine.\n`);
  }
  if (brokerLoad !== undefined) {
    process.stdout.write(`\nKafka: the broker hosted ${int(brokerLoad.topics)} topics (${int(brokerLoad.partitions)} partitions) when the distributed mode started.\n`);
  }
  for (const v of verifications) process.stdout.write(`\nCheck, ${v.mode}: ${v.what}: ${v.detail}\n`);
  if (options.json) {
    const report = {
      bench: 'ingest',
      runId,
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model.trim(),
      options: { ...options, databaseUrl: undefined },
      results: rows,
      verifications,
      brokerLoad,
      error: failure === undefined ? undefined : String(failure),
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  }
  if (failure !== undefined) throw failure;
  if (verifications.some((v) => v.ok === false)) throw new BenchError('the bus does not hold exactly the accepted recipients (see the check above)');
  if (rows.some((r) => r.errors > 0)) {
    progress('some requests failed (see the Errors column)');
    return 1;
  }
  return 0;
}

runBenchMain('ingest', main);
