// The distributed pipeline end to end (issues 15 and 21): trigger -> ingest-api ->
// workflow-engine -> channel-dispatchers -> inbox message stored, each service its own
// process (`apps/<service>/src/main.ts`, as Kubernetes runs them) on the real Kafka
// broker and Postgres server, in a fresh database and a unique Kafka namespace.
//
//   npm run bench:flow                                  # 2 rounds of 1 and of 2 replicas, then latency
//   npm run bench:flow -- --triggers 10000 --rounds 3
//   npm run bench:flow -- --help                        # every option
//
// Throughput: for each round, 1 or 2 replicas of workflow-engine and of
// channel-dispatchers are started (ingest-api, preference-service and management-api
// stay single), alternated 1, 2, 1, 2, ... in one run. Once the round's processes
// deliver a probe and have handled --warmup triggers (each new process compiles its hot
// paths and fills its caches on its first thousands of messages: a cost of starting a
// replica, not of running one), N signed triggers (one recipient each) are published at once to
// ingest-api's Kafka ingress (`notify.ingress.trigger.v1`), and the bench counts the
// round's rows of `dispatch.inbox_messages` until all N are stored. Deliveries/s is N
// over the time from the first publish to the last row's `created_at`; CPU-seconds
// per delivery is the utime + stime (from /proc/<pid>/stat) the engine and dispatcher
// processes used from the first publish until the pipeline drained (no outbox row, no
// consumer lag: the outcomes that follow each row are the round's work too), divided by N.
// The peer (peer-pipe.ts, --no-peer to skip) follows each round with as many replicas:
// a plain kafkajs + pg pipeline of two stages, so the 2-vs-1 ratio of CPU per item that
// this machine and the Kafka client impose on any such pipeline is measured in the same run.
//
// Latency: one replica of each, warmed up like a round, and ingest-api's `POST /trigger/` warmed up too
// (--http-warmup-seconds at the lowest --rate, not measured), then triggers paced at each --rate through it
// for --latency-seconds, open loop; each trigger's latency runs from its due time to its
// inbox row's `created_at` (the same machine's wall clock), and is split by stage: the
// chunk's and the command's Kafka records, the 202, the engine's decision and append, the
// dispatcher's claim (see KafkaStageTap and stageTimes).
//
// Figures and goals live in bench/RESULTS.md, never in tests.

process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

import { createHmac, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import { delimiter, dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Admin, Consumer, Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { TOPICS, deliveryTopic } from '@herald/contracts';
import { KafkaBus, NamespacedBus, OutgoingMessage } from '@herald/bus';
import { RunningProcess, TemporaryDatabase, createTemporaryDatabase, freePort, heraldEnv, startProcess, uniqueName, waitUntilReady } from '@herald/testing';
import { deleteNamespace } from '../startup/distributed-startup';
import {
  BenchError,
  loadAverage,
  cpuSecondsMeter,
  kafkaPids,
  percentile,
  postgresPids,
  progressWriter,
  runBenchMain,
  unreachableBrokers,
} from '../shared/bench-kit';
import { createInboxWorkflow } from '../shared/inbox-workflow';
import { PeerRound, peerPipeRound } from './peer-pipe';
import { MemoryCgroup, createMemoryCgroup, peakRssMiB, wrapCommand } from '../shared/memory-cgroup';

const progress = progressWriter('flow');

interface Options {
  readonly triggers: number;
  readonly rounds: number;
  readonly recipients: number;
  readonly rates: readonly number[];
  readonly latencySeconds: number;
  readonly httpWarmupSeconds: number;
  readonly settleSeconds: number;
  readonly warmupTriggers: number;
  readonly roundTimeoutS: number;
  readonly maxSeconds: number;
  readonly skipLatency: boolean;
  readonly json: boolean;
  readonly cpuProfileDir?: string;
  readonly tableStats: boolean;
  /** After each throughput round, the peer pipeline (peer-pipe.ts) with as many replicas. */
  readonly peer: boolean;
  readonly peerItems: number;
  /** HERALD_KAFKA_PARTITIONS of every service (the run's topics are new, so they get it); undefined: Herald's default. */
  readonly partitions?: number;
  /** Each engine and dispatcher in its own memory cgroup of this size (MiB), as a container's limit. */
  readonly memoryLimitMiB?: number;
  /** Under --memory-limit, V8's own heap sizing instead of tools/node-in-container.sh's. */
  readonly v8Heap: boolean;
  readonly brokers: string;
  readonly databaseUrl: string;
}

const HELP = `Usage: node -r ./tools/register.js bench/flow/flow.bench.ts [options]

  --triggers N            triggers per throughput round, one recipient each (default 5000)
  --rounds N              rounds of 1 replica and of 2, alternated (default 2; 0: latency only)
  --recipients N          distinct recipients the triggers cycle through (default 500)
  --rate N[,N...]         latency phase: triggers/s through POST /trigger/, one measurement per rate (default 1000)
  --latency-seconds N     latency phase length (default 10; 0 skips it)
  --http-warmup-seconds N latency phase: POST /trigger/ paced at the lowest --rate for N s before the measured
                          rates, not measured: the warm-up above goes through the Kafka ingress, so ingest-api's
                          HTTP path and the bench's client are still cold (default 5; 0 skips it)
  --settle-seconds N      wait after a round's probe, for consumer groups to settle (default 5)
  --warmup N              triggers each round's (and the latency phase's) new processes handle before the measured ones (default 5000)
  --round-timeout N       seconds a round may take before the bench fails (default 300)
  --max-seconds N         hard limit for the whole run (default 1800)
  --cpu-prof DIR          write a V8 CPU profile of every engine and dispatcher process to DIR
  --table-stats           per round, the tables' scans and row changes per delivery (pg_stat_user_tables)
  --no-peer               skip the peer: after each round, a plain kafkajs + pg pipeline (peer-pipe.ts) of two
                          stages with as many replicas, its CPU per item
  --peer-items N          items per peer round (default 200000: about as long a round as Herald's on 2 cores)
  --partitions N          partitions of every topic of the run (HERALD_KAFKA_PARTITIONS; default Herald's, 12)
  --memory-limit MiB      run each engine and dispatcher in a memory cgroup of this size, as a container's
                          limits.memory (the kernel OOM-kills at it), started as the image starts them
                          (tools/node-in-container.sh sizes the heap to the limit); needs root
  --v8-heap               under --memory-limit, start them with plain node (V8 sizes the heap from the limit)
  --json                  one JSON line after the tables

Needs HERALD_TEST_KAFKA_BROKERS and HERALD_BENCH_DATABASE_URL (or HERALD_TEST_DATABASE_URL).`;

function parseOptions(argv: readonly string[]): Options | undefined {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help') return undefined;
    if (arg === '--json' || arg === '--table-stats' || arg === '--v8-heap' || arg === '--no-peer') flags.add(arg);
    else if (arg.startsWith('--') && i + 1 < argv.length) values.set(arg, argv[++i]);
    else throw new BenchError(`unknown option ${arg}\n${HELP}`);
  }
  const known = ['--triggers', '--rounds', '--recipients', '--rate', '--latency-seconds', '--http-warmup-seconds', '--settle-seconds', '--warmup', '--round-timeout', '--max-seconds', '--cpu-prof', '--partitions', '--memory-limit', '--peer-items'];
  for (const name of values.keys()) if (!known.includes(name)) throw new BenchError(`unknown option ${name}\n${HELP}`);
  const number = (name: string, fallback: number, min: number): number => {
    const raw = values.get(name);
    const value = raw === undefined ? fallback : Number(raw);
    if (!Number.isFinite(value) || value < min) throw new BenchError(`${name} must be a number of at least ${min}`);
    return value;
  };
  const brokers = process.env.HERALD_TEST_KAFKA_BROKERS;
  const databaseUrl = process.env.HERALD_BENCH_DATABASE_URL ?? process.env.HERALD_TEST_DATABASE_URL;
  if (!brokers || !databaseUrl) throw new BenchError(`HERALD_TEST_KAFKA_BROKERS and HERALD_BENCH_DATABASE_URL (or HERALD_TEST_DATABASE_URL) are required\n${HELP}`);
  const latencySeconds = number('--latency-seconds', 10, 0);
  return {
    triggers: number('--triggers', 5000, 1),
    rounds: number('--rounds', 2, 0),
    recipients: number('--recipients', 500, 1),
    rates: (values.get('--rate') ?? '1000').split(',').map((raw) => {
      const rate = Number(raw);
      if (!Number.isFinite(rate) || rate < 1) throw new BenchError(`--rate must be numbers of at least 1, got ${raw}`);
      return rate;
    }),
    latencySeconds,
    httpWarmupSeconds: number('--http-warmup-seconds', 5, 0),
    settleSeconds: number('--settle-seconds', 5, 0),
    warmupTriggers: number('--warmup', 5000, 0),
    roundTimeoutS: number('--round-timeout', 300, 10),
    maxSeconds: number('--max-seconds', 1800, 60),
    skipLatency: latencySeconds === 0,
    json: flags.has('--json'),
    cpuProfileDir: values.get('--cpu-prof'),
    tableStats: flags.has('--table-stats'),
    peer: !flags.has('--no-peer'),
    peerItems: number('--peer-items', 200_000, 1),
    partitions: values.has('--partitions') ? number('--partitions', 12, 1) : undefined,
    memoryLimitMiB: values.has('--memory-limit') ? number('--memory-limit', 512, 64) : undefined,
    v8Heap: flags.has('--v8-heap'),
    brokers,
    databaseUrl,
  };
}

// ---------------------------------------------------------------------------------
// The services

const WORKFLOW = 'flow';

interface Credentials {
  readonly serviceToken: string;
  readonly workspaceKey: string;
  readonly workspaceSecret: string;
  readonly apiKey: string;
}

interface Service {
  readonly process: RunningProcess;
  readonly url: string;
  /** Its memory cgroup under --memory-limit. */
  readonly memory?: MemoryCgroup;
}

/** The services whose replicas a round varies, profiled with --cpu-prof. */
const profiled = new Set(['workflow-engine', 'channel-dispatchers']);

class Deployment {
  private readonly secretsKey = randomBytes(32).toString('base64');

  constructor(
    private readonly options: Options,
    private readonly databaseUrl: string,
    readonly namespace: string,
    readonly credentials: Credentials,
  ) {}

  /** Starts `count` replicas of a service and waits until each is ready. */
  async start(service: string, count: number): Promise<Service[]> {
    const started: Service[] = [];
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      const env = heraldEnv({
        // tools/node-in-container.sh (--memory-limit) runs `node` from PATH: the bench's own.
        PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
        HERALD_KAFKA_BROKERS: this.options.brokers,
        HERALD_KAFKA_NAMESPACE: this.namespace,
        ...(this.options.partitions === undefined ? {} : { HERALD_KAFKA_PARTITIONS: String(this.options.partitions) }),
        HERALD_DATABASE_URL: this.databaseUrl,
        HERALD_SECRETS_KEY: this.secretsKey,
        HERALD_PORT: String(port),
        HERALD_MANAGEMENT_PORT: String(port),
        HERALD_LOG_LEVEL: 'warn',
        HERALD_BOOTSTRAP_SERVICE_TOKEN: this.credentials.serviceToken,
        HERALD_BOOTSTRAP_WORKSPACE_KEY: this.credentials.workspaceKey,
        HERALD_BOOTSTRAP_WORKSPACE_SECRET: this.credentials.workspaceSecret,
        HERALD_BOOTSTRAP_API_KEY: this.credentials.apiKey,
      });
      const name = `${service}#${i + 1}`;
      const entrypoint = `apps/${service}/src/main.ts`;
      const nodeArgs = ['-r', './tools/register.js', entrypoint];
      if (this.options.cpuProfileDir && profiled.has(service)) nodeArgs.unshift('--cpu-prof', `--cpu-prof-dir=${this.options.cpuProfileDir}`);
      const memory =
        this.options.memoryLimitMiB !== undefined && profiled.has(service)
          ? createMemoryCgroup(`${this.namespace}-${service}-${i + 1}-${randomBytes(2).toString('hex')}`, this.options.memoryLimitMiB * 2 ** 20)
          : undefined;
      // In a cgroup, as the image starts a service: through the launcher that sizes the heap.
      const inContainer = this.options.v8Heap ? { command: process.execPath, args: nodeArgs } : { command: '/bin/sh', args: ['tools/node-in-container.sh', ...nodeArgs] };
      const command = memory ? wrapCommand(memory, inContainer.command, inContainer.args) : { command: process.execPath, args: nodeArgs };
      const child = startProcess(name, command.command, command.args, env);
      started.push({ process: child, url: `http://127.0.0.1:${port}/`, memory });
    }
    await Promise.all(started.map((s) => waitUntilReady(s.process, s.url, 120_000)));
    return started;
  }
}

async function stopAll(services: readonly Service[]): Promise<void> {
  const exits = await Promise.all(services.map((s) => s.process.stop('SIGTERM')));
  services.forEach((s, i) => {
    if (!s.memory) return;
    progress(`${s.process.name}: exit ${exits[i]}; memory cgroup peak ${(s.memory.peakBytes() / 2 ** 20).toFixed(0)} MiB (page cache included), ${s.memory.oomKills()} OOM kill(s)`);
    s.memory.remove();
  });
  for (const s of services) {
    const errors = s.process.logLines().filter((l) => l.level === 'error' || l.level === 50 || l.level === 60);
    if (errors.length > 0) progress(`${s.process.name} logged ${errors.length} error(s), first: ${JSON.stringify(errors[0]).slice(0, 400)}`);
  }
}

/**
 * kafkajs's warnings that a group is rebalancing (a heartbeat's or a sync's answer, a
 * rejoin) logged since `since` (ms since the epoch): a rebalance in a round stalls the
 * group's consumers, the usual cause of a slow outlier round.
 */
function rebalanceWarnings(services: readonly Service[], since: number): number {
  return services
    .flatMap((s) => s.process.logLines())
    .filter((l) => Date.parse(String(l.time)) >= since && /REBALANCE_IN_PROGRESS|rebalancing|re-joining/i.test(`${String(l.msg)} ${String(l.error ?? '')}`)).length;
}

const pidsOf = (services: () => readonly Service[]) => (): number[] => services().flatMap((s) => (s.process.child.pid ? [s.process.child.pid] : []));

/** The largest peak resident set (VmHWM, MiB) among `services`' processes. */
const peakRss = (services: readonly Service[]): number => Math.max(0, ...services.map((s) => (s.process.child.pid ? (peakRssMiB(s.process.child.pid) ?? 0) : 0)));

/** Rejects when one of `services` ends before the bench stops it (e.g. killed at its memory limit). */
function anyExit(services: readonly Service[]): Promise<never> {
  const exit = Promise.race(
    services.map((s) => s.process.exited.then((code): never => {
      throw new BenchError(`${s.process.name} exited (${code}) during the round${s.memory ? `; ${s.memory.oomKills()} OOM kill(s) in its memory cgroup` : ''}`);
    })),
  );
  exit.catch(() => undefined); // the bench's own stop ends them too
  return exit;
}


// ---------------------------------------------------------------------------------
// Triggers and what they became

const triggerBody = (recipient: string, tag: string): string => JSON.stringify({ workflow: WORKFLOW, recipients: [recipient], data: { n: tag } });

/** POST /trigger/ over a keep-alive agent; resolves with the status and the time the answer arrived (wall clock, ms since the epoch). */
function postTrigger(agent: http.Agent, ingestUrl: URL, apiKey: string, body: string): Promise<{ status: number; at: number }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { agent, host: ingestUrl.hostname, port: ingestUrl.port, path: '/trigger/', method: 'POST', timeout: 30_000, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, at: Date.now() }));
      },
    );
    request.on('timeout', () => request.destroy(new Error('request timed out')));
    request.on('error', reject);
    request.end(body);
  });
}

/** Statements this bench ran on the run's database, to subtract from its transaction count. */
let benchStatements = 0;

/** Transactions committed or rolled back in the run's database so far (every statement outside one counts). */
async function transactions(db: Client): Promise<number> {
  benchStatements++;
  const result = await db.query<{ n: string }>(`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`);
  return Number(result.rows[0].n);
}

/** Per-table activity counters of the run's database (statements on a table's rows, by kind). */
type TableStats = Map<string, { scans: number; inserted: number; updated: number; hot: number; deleted: number }>;

async function tableStats(db: Client): Promise<TableStats> {
  benchStatements++;
  const result = await db.query<{ name: string; scans: string; inserted: string; updated: string; hot: string; deleted: string }>(
    `SELECT schemaname || '.' || relname AS name, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans, n_tup_ins AS inserted, n_tup_upd AS updated,
            n_tup_hot_upd AS hot, n_tup_del AS deleted FROM pg_stat_user_tables`,
  );
  return new Map(result.rows.map((r) => [r.name, { scans: Number(r.scans), inserted: Number(r.inserted), updated: Number(r.updated), hot: Number(r.hot), deleted: Number(r.deleted) }]));
}

/** The tables that changed most between two readings, per delivery: where a round's statements went (`hot`: updates that added no index entry). */
function tableStatsPerDelivery(before: TableStats, after: TableStats, deliveries: number): string {
  const rows: Array<[string, number, string]> = [];
  for (const [name, a] of after) {
    const b = before.get(name) ?? { scans: 0, inserted: 0, updated: 0, hot: 0, deleted: 0 };
    const d = { scans: a.scans - b.scans, inserted: a.inserted - b.inserted, updated: a.updated - b.updated, hot: a.hot - b.hot, deleted: a.deleted - b.deleted };
    const total = d.scans + d.inserted + d.updated + d.deleted;
    if (total === 0) continue;
    const per = (n: number): string => (n / deliveries).toFixed(2);
    rows.push([name, total, `${name} scans ${per(d.scans)} ins ${per(d.inserted)} upd ${per(d.updated)} (hot ${per(d.hot)}) del ${per(d.deleted)}`]);
  }
  return rows
    .sort((x, y) => y[1] - x[1])
    .slice(0, 12)
    .map((r) => r[2])
    .join('; ');
}

/**
 * The inbox's newest row so far: rows stored after it have a greater `seq`, so a phase's
 * rows are found among those only (an index range), not in the whole table.
 */
async function inboxMark(db: Client): Promise<string> {
  benchStatements++;
  const result = await db.query<{ seq: string }>(`SELECT coalesce(max(seq), 0)::text AS seq FROM dispatch.inbox_messages`);
  return result.rows[0].seq;
}

/** Inbox rows after `since` whose body is `flow <prefix>...`, with `created_at` in ms since the epoch. */
async function inboxRows(db: Client, prefix: string, since: string): Promise<Array<{ body: string; at: number }>> {
  benchStatements++;
  const result = await db.query<{ body: string; at: string }>(
    `SELECT body, extract(epoch FROM created_at) * 1000 AS at FROM dispatch.inbox_messages WHERE seq > $2 AND body LIKE $1`,
    [`flow ${prefix}%`, since],
  );
  return result.rows.map((r) => ({ body: r.body, at: Number(r.at) }));
}

/** How long after a row with a greater `seq` is seen every row before it is taken as committed. */
const INBOX_SETTLE_MS = 1_000;

/**
 * Counts a phase's inbox rows as they are stored, every 100 ms, reading only the rows
 * after a cursor that trails the newest row by INBOX_SETTLE_MS. Counting every row of
 * the phase (or, before, of the table) at each poll had cost Postgres up to 32 ms a
 * poll by the end of a run, a fifth of a core taken from the pipeline it measured. A
 * row committed later than that is made up by a full count when the count stalls.
 */
class InboxCounter {
  private settled = 0;
  private cursor: string;
  private readonly newest: Array<{ readonly at: number; readonly seq: string }> = [];

  constructor(
    private readonly db: Client,
    private readonly prefix: string,
    private readonly since: string,
  ) {
    this.cursor = since;
  }

  async count(): Promise<number> {
    const now = performance.now();
    let settleTo = this.cursor;
    while (this.newest.length > 0 && this.newest[0].at <= now - INBOX_SETTLE_MS) settleTo = this.newest.shift()?.seq ?? settleTo;
    benchStatements += 3;
    // The table grows from nothing faster than autovacuum analyses it: planned on no
    // statistics, this range was read by scanning the whole table.
    await this.db.query('SET enable_seqscan = off');
    const result = await this.db.query<{ settled: number; rows: number; newest: string | null }>(
      `SELECT count(*) FILTER (WHERE seq <= $3)::int AS settled, count(*)::int AS rows, max(seq)::text AS newest
         FROM dispatch.inbox_messages WHERE seq > $2 AND body LIKE $1`,
      [`flow ${this.prefix}%`, this.cursor, settleTo],
    );
    await this.db.query('RESET enable_seqscan');
    const { settled, rows, newest } = result.rows[0];
    this.settled += settled;
    this.cursor = settleTo;
    if (newest !== null) this.newest.push({ at: now, seq: newest });
    return this.settled + rows - settled;
  }

  /** Counts the phase again from its start. */
  restart(): void {
    this.settled = 0;
    this.cursor = this.since;
    this.newest.length = 0;
  }
}

async function waitForCount(db: Client, prefix: string, since: string, expected: number, timeoutMs: number, label: string): Promise<number> {
  const started = performance.now();
  const counter = new InboxCounter(db, prefix, since);
  let lastLog = started;
  let last = -1;
  let changedAt = started;
  for (;;) {
    const count = await counter.count();
    if (count >= expected) return count;
    const now = performance.now();
    if (count !== last) {
      last = count;
      changedAt = now;
    } else if (now - changedAt >= 5_000) {
      counter.restart();
      changedAt = now;
    }
    if (now - started > timeoutMs) throw new BenchError(`${label}: ${count} of ${expected} inbox messages after ${Math.round(timeoutMs / 1000)} s`);
    if (now - lastLog >= 1000) {
      progress(`${label}: ${count}/${expected} inbox messages stored (${((now - started) / 1000).toFixed(0)} s)`);
      lastLog = now;
    }
    await sleep(100);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Rows waiting in the services' outboxes (every schema's `outbox` table). */
async function outboxRows(db: Client): Promise<number> {
  benchStatements++;
  const tables = await db.query<{ name: string }>(`SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables WHERE table_name = 'outbox'`);
  if (tables.rows.length === 0) return 0;
  benchStatements++;
  const result = await db.query<{ n: string }>(`SELECT ${tables.rows.map((t) => `(SELECT count(*) FROM ${t.name})`).join(' + ')} AS n`);
  return Number(result.rows[0].n);
}

/** Messages the namespace's live consumer groups have not consumed yet (committed offset to the partition's end). */
async function consumerLag(admin: Admin, namespace: string): Promise<number> {
  const ids = (await admin.listGroups()).groups.map((g) => g.groupId).filter((id) => id.startsWith(`${namespace}.`));
  // Groups of stopped processes (earlier rounds' inbox streams) keep offsets nobody will move.
  const live = (await admin.describeGroups(ids)).groups.filter((g) => g.members.length > 0).map((g) => g.groupId);
  const ends = new Map<string, Map<number, number>>();
  let lag = 0;
  for (const groupId of live) {
    for (const { topic, partitions } of await admin.fetchOffsets({ groupId })) {
      let end = ends.get(topic);
      if (end === undefined) ends.set(topic, (end = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]))));
      for (const { partition, offset } of partitions) if (Number(offset) >= 0) lag += Math.max(0, (end.get(partition) ?? 0) - Number(offset));
    }
  }
  return lag;
}

/**
 * Waits until the round's work is all done, not only its inbox rows: a delivery goes on
 * after its row (the outcome travels back to the engine, which records it in the run),
 * and what a round leaves undone would otherwise be measured in the next round's idle
 * time and window. Done: no outbox row and no consumer lag, twice in a row (a handler
 * writes its outbox rows before its offset is committed).
 */
async function waitForDrain(db: Client, admin: Admin, namespace: string, timeoutMs: number, label: string): Promise<void> {
  const started = performance.now();
  for (let clean = 0; clean < 2; ) {
    const rows = await outboxRows(db);
    const lag = rows === 0 ? await consumerLag(admin, namespace) : -1;
    clean = rows === 0 && lag === 0 ? clean + 1 : 0;
    if (performance.now() - started > timeoutMs) throw new BenchError(`${label}: not drained after ${Math.round(timeoutMs / 1000)} s (${rows} outbox rows, lag ${lag})`);
    if (clean < 2) await sleep(250);
  }
}

/** A trigger through the API until one is accepted and its inbox row is stored: the round's processes work. */
async function probe(db: Client, agent: http.Agent, ingestUrl: URL, apiKey: string, tag: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  const since = await inboxMark(db);
  // Definitions and credentials reach ingest-api over Kafka: the first triggers may precede them.
  for (;;) {
    const { status } = await postTrigger(agent, ingestUrl, apiKey, triggerBody('flow-probe', tag));
    if (status === 202) break;
    if (Date.now() > deadline) throw new BenchError(`the probe trigger answered ${status} for 120 s`);
    await sleep(500);
  }
  await waitForCount(db, tag, since, 1, 120_000, `probe ${tag}`);
}

// ---------------------------------------------------------------------------------
// Phases

interface Round {
  readonly round: number;
  readonly replicas: number;
  readonly deliveries: number;
  readonly seconds: number;
  /** From the first publish until the pipeline drained (see waitForDrain): the CPU window. */
  readonly drainedSeconds: number;
  readonly deliveriesPerS: number;
  /** CPU-seconds per delivery, by group. */
  readonly cpuMsPerDelivery: { engine: number; dispatchers: number; both: number; bothNetOfIdle: number; ingest: number; postgres: number; kafka: number; bench: number };
  /**
   * Transactions in the run's database per delivery, from the publish until the round's
   * processes stopped (every statement outside a transaction counts as one).
   */
  readonly transactionsPerDelivery: number;
  /** % of one core the round's engine and dispatcher processes (all replicas) used idle, before the triggers. */
  readonly idlePercent: { engine: number; dispatchers: number };
  /** Rebalance warnings the engine and dispatcher processes logged from the first publish until the pipeline drained (see rebalanceWarnings). */
  readonly rebalanceWarnings: number;
  /** The largest peak resident set (MiB) of an engine and of a dispatcher process, warm-up and round included. */
  readonly peakRssMiB: { engine: number; dispatchers: number };
  readonly load: string;
}

interface Percentiles {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

interface Latency {
  readonly offeredRate: number;
  /** Triggers sent per second over the sending time, and how late the pacing sent them. */
  readonly sentRate: number;
  readonly sendLagP99: number;
  /** Accepted triggers per second until the last answer. */
  readonly answeredRate: number;
  readonly accepted: number;
  readonly refused: number;
  /** From each trigger's due time to its inbox row's `created_at`. */
  readonly total: Percentiles;
  /** The p99 of `total` per window of WINDOW_SECONDS of due time, in order: a tail at the start is a warm-up, one throughout is the pipeline. */
  readonly p99ByWindow: number[];
  /** From the due time to each stage (see stageTimes). */
  /** Triggers per engine append transaction and per dispatcher claim statement (rows sharing a transaction's now()). */
  readonly runsPerEngineAppend: number;
  readonly deliveriesPerClaim: number;
  readonly cumulative: { accepted: Percentiles; chunkPublished: Percentiles; engineDecided: Percentiles; engineAppended: Percentiles; commandPublished: Percentiles; dispatcherClaimed: Percentiles };
  readonly load: string;
}


/** `count` triggers for the Kafka ingress, signed with the workspace's secret, tagged `tag<i>`. */
function signedTriggers(deployment: Deployment, tag: string, count: number, recipients: number): OutgoingMessage[] {
  const messages: OutgoingMessage[] = [];
  for (let i = 0; i < count; i++) {
    const value = triggerBody(`flow-user-${i % recipients}`, `${tag}${i}`);
    const signature = createHmac('sha256', deployment.credentials.workspaceSecret).update(value).digest('base64');
    messages.push({ key: String(i), value, headers: { 'herald-workspace-key': deployment.credentials.workspaceKey, 'herald-signature': signature } });
  }
  return messages;
}

async function publishTriggers(bus: NamespacedBus, messages: readonly OutgoingMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 1000) await bus.publish(TOPICS.ingressTrigger.name, messages.slice(i, i + 1000));
}

/** What a round and the latency phase work with: the run's deployment and its connections. */
interface Run {
  readonly deployment: Deployment;
  readonly db: Client;
  readonly bus: NamespacedBus;
  /** Waits until the pipeline has no outbox row and no consumer lag (see waitForDrain). */
  readonly drain: (label: string) => Promise<void>;
  readonly agent: http.Agent;
  readonly ingest: Service;
  readonly options: Options;
}

/**
 * New processes compile their hot paths and fill their caches on their first thousands
 * of messages, each replica for itself: a cost of starting a replica, not of running
 * one, which --warmup keeps out of the measured window.
 */
async function warmUp({ deployment, db, bus, drain, options }: Run, tag: string, label: string): Promise<void> {
  if (options.warmupTriggers === 0) return;
  const since = await inboxMark(db);
  await publishTriggers(bus, signedTriggers(deployment, tag, options.warmupTriggers, options.recipients));
  await waitForCount(db, tag, since, options.warmupTriggers, options.roundTimeoutS * 1000, label);
  await drain(label);
}

async function throughputRound(run: Run, round: number, replicas: number): Promise<Round> {
  const { deployment, db, bus, drain, agent, ingest, options } = run;
  const label = `round ${round} (${replicas} replica${replicas > 1 ? 's' : ''})`;
  progress(`${label}: starting ${replicas} workflow-engine and ${replicas} channel-dispatchers`);
  const engines = await deployment.start('workflow-engine', replicas);
  const dispatchers = await deployment.start('channel-dispatchers', replicas);
  // Assigned by roundWork, which completes before they are read (or the round fails).
  let measured!: Omit<Round, 'transactionsPerDelivery'>;
  let transactionsAtStart!: number;
  let benchStatementsAtStart!: number;
  let tablesAtStart: TableStats | undefined;
  const died = anyExit([...engines, ...dispatchers]);
  try {
    await Promise.race([died, roundWork()]);
  } finally {
    await stopAll([...engines, ...dispatchers]);
  }
  async function roundWork(): Promise<void> {
    await probe(db, agent, new URL(ingest.url), deployment.credentials.apiKey, `p${round}-`);
    await drain(`probe p${round}-`);
    await warmUp(run, `w${round}-`, `${label} warm-up`);
    // Idle: what the round's processes cost with nothing to do, over the settle time.
    const idleMeter = cpuSecondsMeter({ engine: pidsOf(() => engines), dispatchers: pidsOf(() => dispatchers) });
    const idleStarted = performance.now();
    await sleep(options.settleSeconds * 1000);
    const idleCpu = idleMeter();
    const idleSeconds = (performance.now() - idleStarted) / 1000;
    const idlePercent = { engine: (idleCpu.engine / idleSeconds) * 100, dispatchers: (idleCpu.dispatchers / idleSeconds) * 100 };
    progress(`${label}: idle over ${idleSeconds.toFixed(1)} s: engine ${idlePercent.engine.toFixed(1)}%, dispatchers ${idlePercent.dispatchers.toFixed(1)}% of a core (all replicas)`);
    const tag = `r${round}-`;
    const messages = signedTriggers(deployment, tag, options.triggers, options.recipients);
    const load = loadAverage();
    const meter = cpuSecondsMeter({
      engine: pidsOf(() => engines),
      dispatchers: pidsOf(() => dispatchers),
      ingest: pidsOf(() => [ingest]),
      postgres: postgresPids,
      kafka: kafkaPids,
      bench: () => [process.pid],
    });
    const batchesAtStart = await batchCounts({ engine: engines, dispatchers });
    transactionsAtStart = await transactions(db);
    tablesAtStart = options.tableStats ? await tableStats(db) : undefined;
    const since = await inboxMark(db);
    benchStatementsAtStart = benchStatements;
    const publishedAt = performance.timeOrigin + performance.now();
    await publishTriggers(bus, messages);
    progress(`${label}: ${options.triggers} triggers published to the ingress in ${(performance.timeOrigin + performance.now() - publishedAt).toFixed(0)} ms`);
    await waitForCount(db, tag, since, options.triggers, options.roundTimeoutS * 1000, label);
    await drain(label);
    const drainedAt = performance.timeOrigin + performance.now();
    const cpu = meter();
    const batches = batchesPerTopic(batchesAtStart, await batchCounts({ engine: engines, dispatchers }));
    const rows = await inboxRows(db, tag, since);
    const lastAt = Math.max(...rows.map((r) => r.at));
    const seconds = (lastAt - publishedAt) / 1000;
    const per = (s: number): number => (s * 1000) / rows.length;
    // The processes' fixed cost (heartbeats, fetch loops, pollers) over the round, as measured idle.
    const drainedSeconds = (drainedAt - publishedAt) / 1000;
    const idleOverRound = ((idlePercent.engine + idlePercent.dispatchers) / 100) * drainedSeconds;
    measured = {
      round,
      replicas,
      deliveries: rows.length,
      seconds,
      drainedSeconds,
      deliveriesPerS: rows.length / seconds,
      cpuMsPerDelivery: {
        engine: per(cpu.engine),
        dispatchers: per(cpu.dispatchers),
        both: per(cpu.engine + cpu.dispatchers),
        bothNetOfIdle: per(cpu.engine + cpu.dispatchers - idleOverRound),
        ingest: per(cpu.ingest),
        postgres: per(cpu.postgres),
        kafka: per(cpu.kafka),
        bench: per(cpu.bench),
      },
      idlePercent,
      rebalanceWarnings: rebalanceWarnings([...engines, ...dispatchers], publishedAt),
      peakRssMiB: { engine: peakRss(engines), dispatchers: peakRss(dispatchers) },
      load,
    };
    const result = measured;
    progress(`${label}: messages per batch handler call, rows per outbox relay round (all replicas): ${batches}`);
    progress(
      `${label}: ${rows.length} delivered in ${seconds.toFixed(1)} s = ${result.deliveriesPerS.toFixed(0)}/s, drained after ${drainedSeconds.toFixed(1)} s; CPU ms per delivery: engine ${result.cpuMsPerDelivery.engine.toFixed(2)}, ` +
        `dispatchers ${result.cpuMsPerDelivery.dispatchers.toFixed(2)}, ingest ${result.cpuMsPerDelivery.ingest.toFixed(2)}, postgres ${result.cpuMsPerDelivery.postgres.toFixed(2)}, kafka ${result.cpuMsPerDelivery.kafka.toFixed(2)}; ` +
        `${result.rebalanceWarnings} rebalance warnings; peak RSS engine ${result.peakRssMiB.engine.toFixed(0)} MiB, dispatchers ${result.peakRssMiB.dispatchers.toFixed(0)} MiB; load ${load}`,
    );
  }
  // Stopped processes flushed their statistics; an idle backend (ingest-api's) within 10 s.
  await sleep(11_000);
  const roundTransactions = (await transactions(db)) - transactionsAtStart - (benchStatements - benchStatementsAtStart);
  const transactionsPerDelivery = roundTransactions / measured.deliveries;
  if (tablesAtStart) progress(`${label}: table activity per delivery (rows read by scans not counted): ${tableStatsPerDelivery(tablesAtStart, await tableStats(db), measured.deliveries)}`);
  progress(`${label}: ${transactionsPerDelivery.toFixed(2)} Postgres transactions per delivery (every service, the bench's own subtracted)`);
  return { ...measured, transactionsPerDelivery };
}

/**
 * When each latency trigger reached Kafka, read from the records' timestamps (the
 * producer's clock when it sent them, the wall clock of this machine): its trigger
 * chunk (ingest-api's publish, before the 202) and its inbox delivery command (the
 * engine's outbox relay). A record is matched to its trigger by the trigger's tag,
 * which both carry in the trigger's data.
 */
class KafkaStageTap {
  readonly chunkAt = new Map<string, number>();
  readonly commandAt = new Map<string, number>();
  private constructor(private readonly consumer: Consumer) {}

  static async start(brokers: string, namespace: string): Promise<KafkaStageTap> {
    const kafka = new Kafka({ clientId: 'herald-bench-flow-tap', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `${namespace}.bench-tap-${randomBytes(4).toString('hex')}`, maxWaitTimeInMs: 100 });
    const tap = new KafkaStageTap(consumer);
    const chunks = `${namespace}.${TOPICS.triggerChunkAccepted.name}`;
    const commands = `${namespace}.${deliveryTopic('inbox').name}`;
    await consumer.connect();
    await consumer.subscribe({ topics: [chunks, commands], fromBeginning: true });
    let joined!: () => void;
    const ready = new Promise<void>((resolve) => (joined = resolve));
    consumer.on(consumer.events.GROUP_JOIN, () => joined());
    await consumer.run({
      eachBatch: async ({ batch }) => {
        const into = batch.topic === chunks ? tap.chunkAt : tap.commandAt;
        for (const message of batch.messages) {
          const tag = /"n":"(l\d+-\d+-\d+)"/.exec(message.value?.toString() ?? '')?.[1];
          if (tag !== undefined && !into.has(`flow ${tag}`)) into.set(`flow ${tag}`, Number(message.timestamp));
        }
      },
    });
    await ready;
    return tap;
  }

  /** Waits (up to `timeoutMs`) until every trigger of `bodies` was seen on both topics. */
  async seen(bodies: Iterable<string>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const body of bodies) {
      while (!(this.chunkAt.has(body) && this.commandAt.has(body)) && Date.now() < deadline) await sleep(100);
    }
  }

  stop(): Promise<void> {
    return this.consumer.disconnect();
  }
}

async function latencyPhase(run: Run): Promise<Latency[]> {
  const { deployment, db, agent, ingest, options } = run;
  progress(`latency: starting 1 workflow-engine and 1 channel-dispatchers`);
  const engines = await deployment.start('workflow-engine', 1);
  const dispatchers = await deployment.start('channel-dispatchers', 1);
  const ingestUrl = new URL(ingest.url);
  const tap = await KafkaStageTap.start(options.brokers, deployment.namespace);
  try {
    await probe(db, agent, ingestUrl, deployment.credentials.apiKey, 'pl-');
    await warmUp(run, 'lw-', 'latency warm-up');
    if (options.httpWarmupSeconds > 0) {
      // Through the HTTP path the measurements take: its first seconds are JIT compiling and
      // connection setup (the first 5 s of a measurement had 3-5x the p99 of the next ones).
      const rate = Math.min(...options.rates);
      await sleep(options.settleSeconds * 1000);
      await pacedTriggers(db, agent, ingestUrl, deployment.credentials.apiKey, tap, rate, { prefix: `l0-${rate}-`, label: `latency HTTP warm-up ${rate}/s`, seconds: options.httpWarmupSeconds }, options);
    }
    const results: Latency[] = [];
    for (const [index, rate] of options.rates.entries()) {
      await sleep(options.settleSeconds * 1000);
      // The measurement's place in --rate as well: a rate measured twice must not find the first one's rows.
      const measurement = { prefix: `l${index + 1}-${rate}-`, label: `latency ${rate}/s`, seconds: options.latencySeconds };
      results.push(await pacedTriggers(db, agent, ingestUrl, deployment.credentials.apiKey, tap, rate, measurement, options));
    }
    return results;
  } finally {
    await tap.stop().catch(() => undefined);
    await stopAll([...engines, ...dispatchers]);
  }
}

/**
 * `herald_bus_batch_messages` (per topic) and `herald_outbox_relay_round_rows` (per
 * schema) sums and counts per service, summed over the replicas' `/metrics`.
 */
type BatchCounts = Map<string, { messages: number; batches: number }>;

async function batchCounts(services: Record<string, readonly Service[]>): Promise<BatchCounts> {
  const counts: BatchCounts = new Map();
  for (const [name, replicas] of Object.entries(services)) {
    for (const replica of replicas) {
      const text = await (await fetch(`${replica.url}metrics`, { signal: AbortSignal.timeout(10_000) })).text();
      // Consumers' batches by topic, and the outbox relays' rounds by schema.
      for (const match of text.matchAll(/^herald_(?:bus_batch_messages|outbox_relay_round_rows)_(sum|count)\{[^}]*\b(topic="[^"]+"|schema="[^"]+")[^}]*\} (\S+)$/gm)) {
        const [label, value] = match[2].split('=');
        const key = `${name} ${label === 'schema' ? `${value.slice(1, -1)} relay rounds` : value.slice(1, -1)}`;
        const entry = counts.get(key) ?? { messages: 0, batches: 0 };
        if (match[1] === 'sum') entry.messages += Number(match[3]);
        else entry.batches += Number(match[3]);
        counts.set(key, entry);
      }
    }
  }
  return counts;
}

/** Messages per batch handler call (rows per relay round) between two scrapes, for each service and topic (schema) that had any. */
function batchesPerTopic(before: BatchCounts, after: BatchCounts): string {
  const parts: string[] = [];
  for (const [key, { messages, batches }] of after) {
    const batchesBetween = batches - (before.get(key)?.batches ?? 0);
    if (batchesBetween > 0) parts.push(`${key} ${((messages - (before.get(key)?.messages ?? 0)) / batchesBetween).toFixed(1)} (${batchesBetween} calls)`);
  }
  return parts.join(', ');
}

/** The latency phase's windows of due time for `p99ByWindow`. */
const WINDOW_SECONDS = 5;

/**
 * One latency measurement: triggers offered at `rate` for --latency-seconds (open loop:
 * trigger i is due at start + i / rate whatever the answers do, so a slow pipeline
 * cannot slow the offer down and hide its own queueing), then each trigger's time
 * from its due time to its inbox row, split by stage with the timestamps the services
 * write anyway.
 */
async function pacedTriggers(
  db: Client,
  agent: http.Agent,
  ingestUrl: URL,
  apiKey: string,
  tap: KafkaStageTap,
  rate: number,
  { prefix, label, seconds }: { readonly prefix: string; readonly label: string; readonly seconds: number },
  options: Options,
): Promise<Latency> {
  const load = loadAverage();
  // Wall clock (Date.now), the clock Postgres's timestamps are read against: performance's
  // clock is monotonic and may drift from it.
  const dueAt = new Map<string, number>();
  const acceptedAt = new Map<string, number>();
  const sendLag: number[] = [];
  let refused = 0;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const total = Math.round(rate * seconds);
  const since = await inboxMark(db);
  const started = Date.now();
  let lastLog = started;
  while (sent < total) {
    const now = Date.now();
    const due = Math.min(total, Math.floor(((now - started) / 1000) * rate) + 1);
    for (; sent < due; sent++) {
      const body = `flow ${prefix}${sent}`;
      const scheduled = started + (sent * 1000) / rate;
      dueAt.set(body, scheduled);
      sendLag.push(Date.now() - scheduled);
      const request = postTrigger(agent, ingestUrl, apiKey, triggerBody(`flow-user-${sent % options.recipients}`, `${prefix}${sent}`)).then(
        ({ status, at }) => {
          if (status === 202) acceptedAt.set(body, at);
          else refused++;
        },
        () => void refused++,
      );
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
    }
    if (now - lastLog >= 1000) {
      lastLog = now;
      progress(`${label}: ${sent}/${total} sent, ${acceptedAt.size} accepted, ${inFlight.size} in flight`);
    }
    // Wake at the next trigger's due time (timers are at best 1 ms).
    await sleep(Math.max(1, started + (sent * 1000) / rate - Date.now()));
  }
  const sendingSeconds = (Date.now() - started) / 1000;
  await Promise.all(inFlight);
  const answeredSeconds = (Date.now() - started) / 1000;
  await waitForCount(db, prefix, since, acceptedAt.size, options.roundTimeoutS * 1000, label);
  await tap.seen(acceptedAt.keys(), 30_000);
  const stages = await stageTimes(db, prefix);
  const byWindow: number[][] = [];
  const samples = { total: [] as number[], accepted: [] as number[], chunk: [] as number[], engine: [] as number[], appended: [] as number[], command: [] as number[], claimed: [] as number[] };
  for (const row of stages) {
    const due = dueAt.get(row.body);
    const accepted = acceptedAt.get(row.body);
    const chunk = tap.chunkAt.get(row.body);
    const command = tap.commandAt.get(row.body);
    if (due === undefined || accepted === undefined || chunk === undefined || command === undefined) continue;
    samples.total.push(row.stored - due);
    const window = Math.floor((due - started) / 1000 / WINDOW_SECONDS);
    (byWindow[window] ??= []).push(row.stored - due);
    samples.accepted.push(accepted - due);
    samples.chunk.push(chunk - due);
    samples.engine.push(row.decided - due);
    samples.appended.push(row.appended - due);
    samples.command.push(command - due);
    samples.claimed.push(row.claimed - due);
  }
  // Rows that share a transaction share its now(): how many triggers one engine append and one dispatcher claim carried.
  const perTransaction = (times: number[]): number => stages.length / new Set(times).size;
  if (samples.total.length < acceptedAt.size) progress(`${label}: ${acceptedAt.size - samples.total.length} accepted triggers left out (a stage's time not found)`);
  const summary = (values: number[]): Percentiles => {
    values.sort((a, b) => a - b);
    return { p50: percentile(values, 50), p99: percentile(values, 99), max: values[values.length - 1] };
  };
  sendLag.sort((a, b) => a - b);
  const result: Latency = {
    offeredRate: rate,
    sentRate: total / sendingSeconds,
    sendLagP99: percentile(sendLag, 99),
    answeredRate: acceptedAt.size / answeredSeconds,
    accepted: acceptedAt.size,
    refused,
    total: summary(samples.total),
    p99ByWindow: [...byWindow].map((values) => (values === undefined ? NaN : summary(values).p99)),
    cumulative: {
      accepted: summary(samples.accepted),
      chunkPublished: summary(samples.chunk),
      engineDecided: summary(samples.engine),
      engineAppended: summary(samples.appended),
      commandPublished: summary(samples.command),
      dispatcherClaimed: summary(samples.claimed),
    },
    runsPerEngineAppend: perTransaction(stages.map((r) => r.appended)),
    deliveriesPerClaim: perTransaction(stages.map((r) => r.claimed)),
    load,
  };
  const c = result.cumulative;
  const ms = (p: Percentiles): string => `p50 ${p.p50.toFixed(0)} / p99 ${p.p99.toFixed(0)} ms`;
  progress(
    `${label}: sent at ${result.sentRate.toFixed(0)}/s (p99 ${result.sendLagP99.toFixed(1)} ms behind schedule), ${result.accepted} accepted, ${refused} refused; ` +
      `due -> stored ${ms(result.total)} (max ${result.total.max.toFixed(0)}; p99 per ${WINDOW_SECONDS} s: ${result.p99ByWindow.map((v) => v.toFixed(0)).join(', ')}); cumulative from due: chunk published ${ms(c.chunkPublished)}, 202 ${ms(c.accepted)}, ` +
      `engine decided ${ms(c.engineDecided)}, appended ${ms(c.engineAppended)}, command published ${ms(c.commandPublished)}, dispatcher claimed ${ms(c.dispatcherClaimed)}; ` +
      `${result.runsPerEngineAppend.toFixed(1)} runs per engine append, ${result.deliveriesPerClaim.toFixed(1)} deliveries per claim; load ${load}`,
  );
  return result;
}

/**
 * Each inbox row of the phase with the times the services wrote on the way (ms since
 * the epoch): the engine's decision (`engine.messages.created_at`, the engine's clock
 * when it began deciding the batch), the start of the append's transaction (the run
 * stream's first `recorded_at`; Postgres's `now()`), the
 * dispatcher's claim (`dispatch.deliveries.claimed_at`, the claim's transaction; a
 * claim taken over or retried moves it later) and the row itself.
 */
async function stageTimes(db: Client, prefix: string): Promise<Array<{ body: string; decided: number; appended: number; claimed: number; stored: number }>> {
  benchStatements++;
  const result = await db.query<{ body: string; decided: string; appended: string; claimed: string; stored: string }>(
    `SELECT i.body, extract(epoch FROM m.created_at) * 1000 AS decided,
            extract(epoch FROM (SELECT min(e.recorded_at) FROM engine.stream_events e WHERE e.stream_id = 'run:' || m.workspace_id || ':' || m.run_id)) * 1000 AS appended,
            extract(epoch FROM d.claimed_at) * 1000 AS claimed, extract(epoch FROM i.created_at) * 1000 AS stored
       FROM dispatch.inbox_messages i
       JOIN dispatch.deliveries d ON d.delivery_id = i.delivery_id
       JOIN engine.messages m ON m.delivery_id = i.delivery_id
      WHERE i.body LIKE $1`,
    [`flow ${prefix}%`],
  );
  return result.rows.map((r) => ({ body: r.body, decided: Number(r.decided), appended: Number(r.appended), claimed: Number(r.claimed), stored: Number(r.stored) }));
}

// ---------------------------------------------------------------------------------
// Report

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function report(rounds: readonly Round[], peerRounds: readonly PeerRound[], latencies: readonly Latency[], options: Options): void {
  const lines: string[] = [];
  let ratios: { rateRatio: number; cpuRatio: number; netRatio: number } | undefined;
  if (rounds.length > 0) {
    const limit =
      options.memoryLimitMiB === undefined
        ? ''
        : `; each engine and dispatcher in a ${options.memoryLimitMiB} MiB memory cgroup, ${options.v8Heap ? "the heap sized by V8" : 'started by tools/node-in-container.sh'}`;
    lines.push(`Throughput: ${options.triggers} triggers per round published to the Kafka ingress, one recipient each (${options.recipients} recipients)${limit}`, '');
    lines.push('| round | replicas | deliveries/s | engine CPU ms/delivery | dispatchers CPU ms/delivery | engine + dispatchers | the same less their idle cost | ingest | Postgres | Kafka | idle engine + dispatchers, % of a core | Postgres transactions per delivery | rebalance warnings | peak RSS MiB, engine / dispatchers | load average |');
    lines.push('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
    for (const r of rounds) {
      const c = r.cpuMsPerDelivery;
      lines.push(
        `| ${r.round} | ${r.replicas} | ${r.deliveriesPerS.toFixed(0)} | ${c.engine.toFixed(2)} | ${c.dispatchers.toFixed(2)} | ${c.both.toFixed(2)} | ${c.bothNetOfIdle.toFixed(2)} | ${c.ingest.toFixed(2)} | ${c.postgres.toFixed(2)} | ${c.kafka.toFixed(2)} | ${(r.idlePercent.engine + r.idlePercent.dispatchers).toFixed(1)} | ${r.transactionsPerDelivery.toFixed(2)} | ${r.rebalanceWarnings} | ${r.peakRssMiB.engine.toFixed(0)} / ${r.peakRssMiB.dispatchers.toFixed(0)} | ${r.load} |`,
      );
    }
    const of = (replicas: number): Round[] => rounds.filter((r) => r.replicas === replicas);
    ratios = {
      rateRatio: median(of(2).map((r) => r.deliveriesPerS)) / median(of(1).map((r) => r.deliveriesPerS)),
      cpuRatio: median(of(2).map((r) => r.cpuMsPerDelivery.both)) / median(of(1).map((r) => r.cpuMsPerDelivery.both)),
      netRatio: median(of(2).map((r) => r.cpuMsPerDelivery.bothNetOfIdle)) / median(of(1).map((r) => r.cpuMsPerDelivery.bothNetOfIdle)),
    };
    lines.push(
      '',
      `2 vs 1 replicas (medians): deliveries/s ${ratios.rateRatio.toFixed(2)}x, engine + dispatchers CPU-s per delivery ${ratios.cpuRatio.toFixed(2)}x (less their idle cost: ${ratios.netRatio.toFixed(2)}x)`,
    );
  }
  let peerCpuRatio: number | undefined;
  if (peerRounds.length > 0) {
    lines.push(
      '',
      `Peer, after each round: a plain kafkajs + pg pipeline of two stages (relay, sink; bench/flow/peer-pipe-stage.ts), ${options.peerItems} items per round, as many replicas of each stage as the round had`,
      '',
      '| round | replicas | items/s | messages per batch, relay / sink | stages CPU ms/item | Postgres | Kafka | load average |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    );
    peerRounds.forEach((p, i) => lines.push(`| ${i + 1} | ${p.replicas} | ${p.itemsPerS.toFixed(0)} | ${p.messagesPerBatch.relay.toFixed(1)} / ${p.messagesPerBatch.sink.toFixed(1)} | ${p.cpuMsPerItem.stages.toFixed(3)} | ${p.cpuMsPerItem.postgres.toFixed(3)} | ${p.cpuMsPerItem.kafka.toFixed(3)} | ${p.load} |`));
    const of = (replicas: number): PeerRound[] => peerRounds.filter((p) => p.replicas === replicas);
    peerCpuRatio = median(of(2).map((p) => p.cpuMsPerItem.stages)) / median(of(1).map((p) => p.cpuMsPerItem.stages));
    const rateRatio = median(of(2).map((p) => p.itemsPerS)) / median(of(1).map((p) => p.itemsPerS));
    lines.push('', `Peer, 2 vs 1 replicas (medians): items/s ${rateRatio.toFixed(2)}x, stages CPU-s per item ${peerCpuRatio.toFixed(2)}x`);
  }
  if (latencies.length > 0) {
    const ms = (p: Percentiles): string => `${p.p50.toFixed(0)} / ${p.p99.toFixed(0)}`;
    const httpWarmup = options.httpWarmupSeconds > 0 ? `, after ${options.httpWarmupSeconds} s of it at ${Math.min(...options.rates)}/s not measured` : ', its HTTP path not warmed up';
    lines.push('', `Latency: POST /trigger/ paced (open loop) for ${options.latencySeconds} s${httpWarmup}, 1 replica each; ms from each trigger's due time, p50 / p99`, '');
    lines.push(
      '| offered/s | sent/s | pacing p99 late ms | accepted | refused | chunk published | 202 | engine decided | engine append began | command published | dispatcher claimed | inbox row stored (end to end) | max ms | runs per engine append | deliveries per claim | load average |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    );
    for (const l of latencies) {
      const c = l.cumulative;
      lines.push(
        `| ${l.offeredRate} | ${l.sentRate.toFixed(0)} | ${l.sendLagP99.toFixed(1)} | ${l.accepted} | ${l.refused} | ${ms(c.chunkPublished)} | ${ms(c.accepted)} | ${ms(c.engineDecided)} | ${ms(c.engineAppended)} | ${ms(c.commandPublished)} | ${ms(c.dispatcherClaimed)} | ${ms(l.total)} | ${l.total.max.toFixed(0)} | ${l.runsPerEngineAppend.toFixed(1)} | ${l.deliveriesPerClaim.toFixed(1)} | ${l.load} |`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (options.json) process.stdout.write(`${JSON.stringify({ rounds, ...ratios, peerRounds, peerCpuRatio, latencies })}\n`);
}

// ---------------------------------------------------------------------------------

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (!options) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const hardLimit = setTimeout(() => {
    process.stderr.write(`bench:flow: over --max-seconds ${options.maxSeconds}, stopping\n`);
    process.exit(1);
  }, options.maxSeconds * 1000);
  hardLimit.unref();
  // Ctrl-C or a kill: leave through the finally below (processes, database, topics).
  const interrupted = new Promise<never>((_, reject) => {
    const stop = (signal: string): void => reject(new BenchError(`interrupted by ${signal}`));
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  interrupted.catch(() => undefined);
  const unreachable = await unreachableBrokers(options.brokers.split(','));
  if (unreachable) throw new BenchError(`no Kafka broker reachable: ${unreachable}`);

  const database: TemporaryDatabase = await createTemporaryDatabase(options.databaseUrl, 'herald_flow');
  const namespace = uniqueName('flow');
  const credentials: Credentials = {
    serviceToken: `hst_${randomBytes(24).toString('base64url')}`,
    workspaceKey: `hwk_${randomBytes(16).toString('hex')}`,
    workspaceSecret: `hws_${randomBytes(24).toString('base64url')}`,
    apiKey: `hak_${randomBytes(24).toString('base64url')}`,
  };
  const deployment = new Deployment(options, database.url, namespace, credentials);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  const bus = new NamespacedBus(new KafkaBus({ brokers: options.brokers.split(','), clientId: 'herald-bench-flow' }), namespace);
  const singles: Service[] = [];
  const db = new Client({ connectionString: database.url });
  const admin = new Kafka({ clientId: 'herald-bench-flow-drain', brokers: options.brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  try {
    progress(`database ${database.url.replace(/^.*\//, '')}, namespace ${namespace}; load ${loadAverage()}`);
    for (const service of ['management-api', 'ingest-api', 'preference-service']) singles.push(...(await deployment.start(service, 1)));
    const [management, ingest] = singles;
    await createInboxWorkflow(management.url, credentials.serviceToken, WORKFLOW);
    await db.connect();
    await admin.connect();
    const drain = (label: string): Promise<void> => waitForDrain(db, admin, namespace, options.roundTimeoutS * 1000, label);
    const run: Run = { deployment, db, bus, drain, agent, ingest, options };
    const rounds: Round[] = [];
    const peerRounds: PeerRound[] = [];
    const peerSetup = {
      brokers: options.brokers,
      databaseUrl: database.url,
      namespace,
      partitions: options.partitions ?? 12,
      items: options.peerItems,
      warmup: options.warmupTriggers,
      httpWarmupSeconds: options.httpWarmupSeconds,
      settleSeconds: options.settleSeconds,
      timeoutMs: options.roundTimeoutS * 1000,
      progress,
    };
    for (let round = 1; round <= options.rounds * 2; round++) {
      const replicas = round % 2 === 1 ? 1 : 2;
      rounds.push(await Promise.race([interrupted, throughputRound(run, round, replicas)]));
      if (options.peer) peerRounds.push(await Promise.race([interrupted, peerPipeRound(peerSetup, round, replicas)]));
    }
    const latencies = options.skipLatency ? [] : await Promise.race([interrupted, latencyPhase(run)]);
    report(rounds, peerRounds, latencies, options);
    return 0;
  } finally {
    agent.destroy();
    await db.end().catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
    await bus.close().catch(() => undefined);
    await stopAll(singles);
    await database.drop().catch((error: unknown) => progress(`could not drop the database: ${String(error)}`));
    await deleteNamespace(options.brokers, namespace).catch((error: unknown) => progress(`could not delete the namespace: ${String(error)}`));
  }
}

runBenchMain('flow', main);
