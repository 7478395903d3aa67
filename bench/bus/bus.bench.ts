// Benchmark of the MessageBus port on both adapters: produce throughput, consume
// throughput with one and two group members, and end-to-end latency at a paced rate.
//
//   npm run bench:bus                             # in-process + Kafka
//   npm run bench:bus -- --adapter in-process     # in-process only
//   npm run bench:bus -- --help                   # every option
//
// Progress goes to stderr; the Markdown table (and, with --json, one JSON line) to
// stdout. Timing goals and recorded figures live in bench/RESULTS.md, never in tests.

// kafkajs warns once per process about its v2 partitioner when a producer is created
// without one; the adapter deliberately uses the default (murmur2, Java-compatible).
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel } from 'kafkajs';
import {
  InProcessBus,
  IncomingMessage,
  KafkaBus,
  MessageBus,
  OutgoingMessage,
  RetryPolicy,
  Subscription,
} from '@herald/bus';
import { BenchError, percentile, progressWriter, runBenchMain, unreachableBrokers } from '../shared/bench-kit';

// ---------------------------------------------------------------------------------
// Options

type AdapterName = 'in-process' | 'kafka';

interface Options {
  readonly adapter: 'all' | 'in-process';
  /** Undefined: the per-adapter default. */
  readonly messages?: number;
  readonly batch: number;
  readonly inFlight: number;
  readonly partitions: number;
  readonly recipients: number;
  readonly valueBytes: number;
  readonly rate: number;
  readonly pacedSeconds: number;
  readonly phaseTimeoutS: number;
  readonly maxSeconds: number;
  readonly json: boolean;
  readonly keepTopics: boolean;
  readonly brokers: readonly string[];
}

const DEFAULT_MESSAGES: Record<AdapterName, number> = { 'in-process': 200_000, kafka: 100_000 };
const MAX_MESSAGES = 5_000_000;

const USAGE = `Usage: npm run bench:bus -- [options]

  --adapter all|in-process   adapters to run (default all; in-process always runs,
                             Kafka is skipped only with --adapter in-process)
  --messages N               messages per throughput run (default 200000 in-process,
                             100000 Kafka; at most ${MAX_MESSAGES})
  --batch N                  messages per publish call (default 500)
  --in-flight N              publish calls in flight at once (default 4)
  --partitions N             partitions of every bench topic (default 12, at least 2)
  --rate N                   paced latency run, messages/s (default 2000)
  --paced-seconds N          paced latency run, duration (default 5)
  --phase-timeout N          seconds any one phase may take (default 180)
  --max-seconds N            hard limit for the whole run (default 900)
  --keep-topics              leave the Kafka bench topics and groups in place
  --json                     also print the results as one JSON line
  --help

Environment: HERALD_BENCH_KAFKA_BROKERS (default 127.0.0.1:9092, comma-separated).`;

function parseOptions(argv: readonly string[]): Options {
  const flags = new Set(['--json', '--keep-topics', '--help']);
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${arg}`);
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
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
  const known = new Set([
    ...flags,
    '--adapter',
    '--messages',
    '--batch',
    '--in-flight',
    '--partitions',
    '--rate',
    '--paced-seconds',
    '--phase-timeout',
    '--max-seconds',
  ]);
  for (const name of values.keys()) if (!known.has(name)) throw new UsageError(`unknown option ${name}`);

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const text = values.get(name);
    if (text === undefined) return fallback;
    const value = Number(text.replace(/_/g, ''));
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new UsageError(`${name} must be an integer in [${min}, ${max}], got ${text}`);
    }
    return value;
  };
  const adapter = values.get('--adapter') ?? 'all';
  if (adapter !== 'all' && adapter !== 'in-process') throw new UsageError(`--adapter must be all or in-process`);
  const brokers = (process.env.HERALD_BENCH_KAFKA_BROKERS ?? '127.0.0.1:9092')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0) throw new UsageError('HERALD_BENCH_KAFKA_BROKERS names no broker');
  return {
    adapter,
    messages: values.has('--messages') ? integer('--messages', 0, 1, MAX_MESSAGES) : undefined,
    batch: integer('--batch', 500, 1, 100_000),
    inFlight: integer('--in-flight', 4, 1, 64),
    partitions: integer('--partitions', 12, 2, 1_000),
    recipients: 10_000,
    valueBytes: 300,
    rate: integer('--rate', 2_000, 1, 1_000_000),
    pacedSeconds: integer('--paced-seconds', 5, 1, 600),
    phaseTimeoutS: integer('--phase-timeout', 180, 1, 3_600),
    maxSeconds: integer('--max-seconds', 900, 10, 24 * 3_600),
    json: values.has('--json'),
    keepTopics: values.has('--keep-topics'),
    brokers,
  };
}

class UsageError extends Error {}


// ---------------------------------------------------------------------------------
// Output

/** Epoch milliseconds with sub-millisecond precision (one clock for publish and receive). */
function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

const progress = progressWriter('bus');

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const fixed = (n: number, digits: number): string => n.toFixed(digits);

/** Prints `render()` every second until the returned function is called. */
function ticker(render: (elapsedS: number) => string): () => void {
  const started = performance.now();
  const timer = setInterval(() => progress(render((performance.now() - started) / 1000)), 1_000);
  return () => clearInterval(timer);
}

/** A counter's rate over the last ticker interval. */
function rateMeter(read: () => number): () => number {
  let lastCount = read();
  let lastAt = performance.now();
  return () => {
    const count = read();
    const at = performance.now();
    const rate = ((count - lastCount) * 1000) / Math.max(1, at - lastAt);
    lastCount = count;
    lastAt = at;
    return rate;
  };
}

/** Starts measuring; the returned function gives this process's CPU use since, in % of one core. */
function cpuMeter(): () => number {
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  return () => {
    const used = process.cpuUsage(cpuStart);
    return ((used.user + used.system) / 1000 / Math.max(1e-3, performance.now() - wallStart)) * 100;
  };
}

// ---------------------------------------------------------------------------------
// Time limits

class TimeoutError extends BenchError {}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a loop with a time limit. The loop gets a signal that aborts when the limit
 * passes (or the loop fails), so it stops instead of running on in the background.
 */
async function bounded<T>(ms: number, what: string, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  try {
    return await withTimeout(body(abort.signal), ms, what);
  } finally {
    abort.abort();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every 10 ms, printing `render` each second, until it holds. */
async function waitFor(condition: () => boolean, ms: number, what: string, render: () => string): Promise<void> {
  const stop = ticker((s) => `${what}: ${fixed(s, 0)} s, ${render()}`);
  try {
    await bounded(ms, what, async (signal) => {
      while (!signal.aborted && !condition()) await sleep(10);
    });
  } finally {
    stop();
  }
}

// ---------------------------------------------------------------------------------
// Messages

interface Workload {
  readonly batches: readonly (readonly OutgoingMessage[])[];
  readonly messages: number;
  readonly valueBytes: number;
}

/** A ~300-byte notification-event JSON value; `sentAt` is the publish timestamp. */
function makeValue(seq: number, recipient: number, sentAt: number, targetBytes: number, warmup = false): string {
  const body = {
    id: `evt-${seq.toString(36).padStart(8, '0')}`,
    workspace: 'ws-1',
    recipient: `user-${recipient}`,
    event: 'order.shipped',
    sentAt,
    warmup,
    data: { orderId: `ord-${seq}`, amount: (seq % 10_000) / 100, currency: 'EUR', carrier: 'ups', pad: '' },
  };
  const unpadded = Buffer.byteLength(JSON.stringify(body));
  body.data.pad = 'x'.repeat(Math.max(0, targetBytes - unpadded));
  return JSON.stringify(body);
}

function recipientOf(seq: number, recipients: number): number {
  // A multiplicative walk so consecutive messages hit unrelated recipients.
  return (seq * 7_919) % recipients;
}

function buildWorkload(messages: number, options: Options): Workload {
  const batches: OutgoingMessage[][] = [];
  let valueBytes = 0;
  const sentAt = Date.now();
  for (let start = 0; start < messages; start += options.batch) {
    const batch: OutgoingMessage[] = [];
    for (let seq = start; seq < Math.min(messages, start + options.batch); seq++) {
      const recipient = recipientOf(seq, options.recipients);
      const value = makeValue(seq, recipient, sentAt, options.valueBytes);
      valueBytes += Buffer.byteLength(value);
      batch.push({ key: `ws-1:user-${recipient}`, value });
    }
    batches.push(batch);
  }
  return { batches, messages, valueBytes };
}

// ---------------------------------------------------------------------------------
// Results

interface Row {
  readonly adapter: AdapterName;
  readonly phase: string;
  readonly messages: number;
  readonly seconds: number;
  readonly msgPerS: number;
  readonly mbPerS?: number;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  readonly maxMs?: number;
  /** CPU time of the bench process (client side, all threads) over wall time, in % of one core. */
  readonly cpuPercent?: number;
  readonly notes: string;
}

function markdownTable(rows: readonly Row[]): string {
  const header = ['Adapter', 'Phase', 'Messages', 'Time (s)', 'msg/s', 'MB/s', 'p50 (ms)', 'p99 (ms)', 'Notes'];
  const lines = [
    `| ${header.join(' | ')} |`,
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows.map(
      (r) =>
        `| ${[
          r.adapter,
          r.phase,
          int(r.messages),
          fixed(r.seconds, 2),
          int(r.msgPerS),
          r.mbPerS === undefined ? '' : fixed(r.mbPerS, 1),
          r.p50Ms === undefined ? '' : fixed(r.p50Ms, 2),
          r.p99Ms === undefined ? '' : fixed(r.p99Ms, 2),
          r.notes,
        ].join(' | ')} |`,
    ),
  ];
  return lines.join('\n');
}


// ---------------------------------------------------------------------------------
// Phases

interface Target {
  readonly adapter: AdapterName;
  readonly bus: MessageBus;
  readonly runId: string;
  readonly options: Options;
  readonly topics: string[];
  readonly groups: string[];
  readonly subscriptions: Subscription[];
}

async function createTopic(target: Target, suffix: string): Promise<string> {
  const name = `bench.bus.${target.runId}.${suffix}`;
  await target.bus.ensureTopics([{ name, partitions: target.options.partitions }]);
  target.topics.push(name);
  return name;
}

async function producePhase(target: Target, topic: string, workload: Workload, phase: string): Promise<Row> {
  const { bus, options } = target;
  let next = 0;
  let published = 0;
  const meter = rateMeter(() => published);
  const stopTicker = ticker(
    () => `${target.adapter} ${phase}: ${int(published)}/${int(workload.messages)} published, ${int(meter())} msg/s`,
  );
  progress(`${target.adapter} ${phase}: publishing ${int(workload.messages)} messages into ${topic}`);
  const cpu = cpuMeter();
  const started = performance.now();
  try {
    const worker = async (signal: AbortSignal): Promise<void> => {
      while (next < workload.batches.length && !signal.aborted) {
        const batch = workload.batches[next++];
        await bus.publish(topic, batch);
        published += batch.length;
      }
    };
    await bounded(options.phaseTimeoutS * 1000, `${target.adapter} ${phase}`, async (signal) => {
      await Promise.all(Array.from({ length: options.inFlight }, () => worker(signal)));
    });
  } finally {
    stopTicker();
  }
  const seconds = (performance.now() - started) / 1000;
  const cpuPercent = cpu();
  const row: Row = {
    adapter: target.adapter,
    phase,
    messages: workload.messages,
    seconds,
    msgPerS: workload.messages / seconds,
    mbPerS: workload.valueBytes / 1e6 / seconds,
    cpuPercent,
    notes:
      `batch ${options.batch}, ${options.inFlight} publish calls in flight, ${workload.batches.length} calls; ` +
      `bench process CPU ${int(cpuPercent)}%`,
  };
  progress(`${target.adapter} ${phase}: done, ${int(row.msgPerS)} msg/s, ${fixed(row.mbPerS ?? 0, 1)} MB/s`);
  return row;
}

/** Short backoff for messages refused while the group settles (see consumePhase). */
const SETTLE_RETRY: RetryPolicy = { initialDelayMs: 2, maxDelayMs: 20 };

/** Thrown by the handler before the group has settled; the bus redelivers the message. */
const NOT_YET = new Error('bench: group not settled yet');

/** Every member owns partitions, no partition has two owners, and all are owned. */
function settled(subscriptions: readonly Subscription[], expected: number, partitions: number): boolean {
  if (subscriptions.length !== expected) return false;
  const owned = new Set<string>();
  for (const subscription of subscriptions) {
    const assignment = subscription.assignment();
    if (assignment.length === 0) return false;
    for (const tp of assignment) {
      if (owned.has(tp)) return false;
      owned.add(tp);
    }
  }
  return owned.size === partitions;
}

/**
 * Reads the whole topic with `members` members of a fresh group. Until every member
 * holds its share of the partitions the handler refuses messages (the bus retries
 * them), so the timed window starts on a settled group and a second member joining
 * late cannot hide a one-member run in the figure. The group join is reported apart.
 */
async function consumePhase(
  target: Target,
  topic: string,
  workload: Workload,
  members: number,
  phase: string,
): Promise<Row> {
  const { bus, options } = target;
  const groupId = `bench.bus.${target.runId}.${phase.replace(/\W+/g, '-')}`;
  target.groups.push(groupId);
  const highest = new Float64Array(options.partitions).fill(-1);
  const perMember = new Array<number>(members).fill(0);
  let unique = 0;
  let duplicates = 0;
  let refused = 0;
  let open = false;
  let openedAt = 0;
  let finishedAt = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));

  const handlerFor =
    (member: number) =>
    async (message: IncomingMessage): Promise<void> => {
      if (!open) {
        refused++;
        throw NOT_YET;
      }
      perMember[member]++;
      const offset = Number(message.offset);
      if (offset > highest[message.partition]) {
        highest[message.partition] = offset;
        if (++unique === workload.messages) {
          finishedAt = performance.now();
          finish();
        }
      } else {
        duplicates++;
      }
    };

  const subscriptions: Subscription[] = [];
  const joinStarted = performance.now();
  progress(`${target.adapter} ${phase}: ${members} member(s) joining group ${groupId}`);
  const joined = Promise.all(
    Array.from({ length: members }, async (_, member) => {
      const subscription = await bus.subscribe({
        groupId,
        topics: [topic],
        handler: handlerFor(member),
        startFrom: 'earliest',
        retry: SETTLE_RETRY,
      });
      subscriptions.push(subscription);
      target.subscriptions.push(subscription);
    }),
  );
  const timeoutMs = options.phaseTimeoutS * 1000;
  await withTimeout(joined, timeoutMs, `${target.adapter} ${phase} subscribe`);
  await waitFor(
    () => settled(subscriptions, members, options.partitions),
    timeoutMs,
    `${target.adapter} ${phase} waiting for the group to settle`,
    () => `partitions per member ${subscriptions.map((s) => s.assignment().length).join('/')}`,
  );
  const joinMs = performance.now() - joinStarted;
  const cpu = cpuMeter();
  openedAt = performance.now();
  open = true;

  const meter = rateMeter(() => unique);
  const stopTicker = ticker(
    () => `${target.adapter} ${phase}: ${int(unique)}/${int(workload.messages)} consumed, ${int(meter())} msg/s`,
  );
  try {
    await withTimeout(finished, timeoutMs, `${target.adapter} ${phase}`);
  } finally {
    stopTicker();
  }
  const seconds = (finishedAt - openedAt) / 1000;
  const cpuPercent = cpu();

  progress(`${target.adapter} ${phase}: stopping ${members} member(s)`);
  const stopStarted = performance.now();
  await withTimeout(Promise.all(subscriptions.map((s) => s.stop())), timeoutMs, `${target.adapter} ${phase} stop`);
  const stopMs = performance.now() - stopStarted;

  const row: Row = {
    adapter: target.adapter,
    phase,
    messages: workload.messages,
    seconds,
    msgPerS: workload.messages / seconds,
    mbPerS: workload.valueBytes / 1e6 / seconds,
    cpuPercent,
    notes: [
      `bench process CPU ${int(cpuPercent)}%`,
      `join+settle ${int(joinMs)} ms`,
      members > 1 ? `split ${perMember.map(int).join(' / ')}` : undefined,
      `${int(duplicates)} redelivered`,
      `${int(refused)} refused while settling`,
      `stop ${int(stopMs)} ms`,
    ]
      .filter(Boolean)
      .join('; '),
  };
  progress(`${target.adapter} ${phase}: done, ${int(row.msgPerS)} msg/s (${row.notes})`);
  return row;
}

/**
 * Bytes written into each partition of the latency topic before measuring. On the
 * dev broker the first few KB appended to a fresh partition are slow (single
 * produce requests took 80-450 ms while each partition passed its first ~4-12 KB;
 * measured from the client, request already on the wire), which is a
 * new-topic effect, not the steady state this phase is after.
 */
const WARMUP_BYTES_PER_PARTITION = 64 * 1024;

/**
 * Publishes at a fixed rate and measures publish-call-to-handler latency from the
 * `sentAt` stamped into each value, plus how long each publish call took to resolve
 * (the producer ack). The topic is warmed up first (see WARMUP_BYTES_PER_PARTITION).
 */
async function latencyPhase(target: Target, phase: string): Promise<Row> {
  const { bus, options } = target;
  const topic = await createTopic(target, `${target.adapter}.latency`);
  const groupId = `bench.bus.${target.runId}.${target.adapter}.latency`;
  target.groups.push(groupId);
  const total = options.rate * options.pacedSeconds;
  const warmupTotal = Math.ceil((WARMUP_BYTES_PER_PARTITION * options.partitions) / options.valueBytes);
  const latencies = new Float64Array(total);
  const seen = new Uint8Array(total);
  let received = 0;
  let warmReceived = 0;
  let duplicates = 0;
  const timeoutMs = options.phaseTimeoutS * 1000;

  const subscription = await withTimeout(
    bus.subscribe({
      groupId,
      topics: [topic],
      startFrom: 'earliest',
      handler: async (message) => {
        const at = nowMs();
        const value = JSON.parse(message.value.toString('utf8')) as { sentAt: number; warmup: boolean; id: string };
        if (value.warmup) {
          warmReceived++;
          return;
        }
        const seq = parseInt(value.id.slice(4), 36);
        if (seen[seq]) {
          duplicates++;
          return;
        }
        seen[seq] = 1;
        latencies[received++] = at - value.sentAt;
      },
    }),
    timeoutMs,
    `${target.adapter} ${phase} subscribe`,
  );
  target.subscriptions.push(subscription);
  await waitFor(
    () => settled([subscription], 1, options.partitions),
    timeoutMs,
    `${target.adapter} ${phase} waiting for the assignment`,
    () => `${subscription.assignment().length} partitions`,
  );

  progress(
    `${target.adapter} ${phase}: warm-up, ${int(warmupTotal)} messages ` +
      `(${WARMUP_BYTES_PER_PARTITION / 1024} KB per partition), not measured`,
  );
  const warmupStarted = performance.now();
  await bounded(timeoutMs, `${target.adapter} ${phase} warm-up`, async (signal) => {
    for (let start = 0; start < warmupTotal && !signal.aborted; start += 100) {
      const batch: OutgoingMessage[] = [];
      for (let seq = start; seq < Math.min(warmupTotal, start + 100); seq++) {
        const recipient = recipientOf(seq, options.recipients);
        batch.push({
          key: `ws-1:user-${recipient}`,
          value: makeValue(seq, recipient, nowMs(), options.valueBytes, true),
        });
      }
      await bus.publish(topic, batch);
    }
  });
  await waitFor(
    () => warmReceived >= warmupTotal,
    timeoutMs,
    `${target.adapter} ${phase} warm-up`,
    () => `${int(warmReceived)}/${int(warmupTotal)} received`,
  );
  const warmupMs = performance.now() - warmupStarted;

  progress(`${target.adapter} ${phase}: publishing ${int(total)} messages at ${int(options.rate)} msg/s`);
  const tickMs = 5;
  const maxInFlight = 32;
  const acks: number[] = [];
  let sent = 0;
  let inFlight = 0;
  let heldBack = 0;
  let publishError: unknown;
  const meter = rateMeter(() => received);
  let windowStart = 0;
  const stopTicker = ticker(() => {
    const window = latencies.slice(windowStart, received).sort();
    windowStart = received;
    return (
      `${target.adapter} ${phase}: ${int(sent)} sent, ${int(received)}/${int(total)} received, ` +
      `${int(meter())} msg/s, last second p50 ${fixed(percentile(window, 50), 2)} ms, ` +
      `max ${fixed(percentile(window, 100), 2)} ms`
    );
  });
  const started = performance.now();
  try {
    await bounded(timeoutMs, `${target.adapter} ${phase}`, async (signal) => {
      while (sent < total && !signal.aborted) {
        if (publishError) throw publishError;
        const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * options.rate));
        if (due > sent && inFlight >= maxInFlight) {
          heldBack++;
        } else if (due > sent) {
          const sentAt = nowMs();
          const batch: OutgoingMessage[] = [];
          for (let seq = sent; seq < due; seq++) {
            const recipient = recipientOf(seq, options.recipients);
            const value = makeValue(seq, recipient, sentAt, options.valueBytes);
            batch.push({ key: `ws-1:user-${recipient}`, value });
          }
          sent = due;
          inFlight++;
          bus.publish(topic, batch).then(
            () => {
              inFlight--;
              acks.push(nowMs() - sentAt);
            },
            (error: unknown) => void (publishError ??= error),
          );
        }
        await sleep(tickMs);
      }
      while ((received < total || inFlight > 0) && !signal.aborted) {
        if (publishError) throw publishError;
        await sleep(5);
      }
    });
  } finally {
    stopTicker();
  }
  const seconds = (performance.now() - started) / 1000;
  await withTimeout(subscription.stop(), timeoutMs, `${target.adapter} ${phase} stop`);

  const sorted = latencies.slice(0, received).sort();
  const sortedAcks = Float64Array.from(acks).sort();
  const row: Row = {
    adapter: target.adapter,
    phase,
    messages: total,
    seconds,
    msgPerS: total / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: percentile(sorted, 100),
    notes: [
      `paced ${int(options.rate)} msg/s for ${options.pacedSeconds} s in ${int(acks.length)} publish calls`,
      `max ${fixed(percentile(sorted, 100), 2)} ms`,
      `publish ack p50 ${fixed(percentile(sortedAcks, 50), 2)} ms, p99 ${fixed(percentile(sortedAcks, 99), 2)} ms`,
      `warm-up ${int(warmupTotal)} msgs in ${int(warmupMs)} ms`,
      duplicates > 0 ? `${int(duplicates)} redelivered` : undefined,
      heldBack > 0 ? `${heldBack} ticks held back (${maxInFlight} calls in flight)` : undefined,
    ]
      .filter(Boolean)
      .join('; '),
  };
  progress(
    `${target.adapter} ${phase}: done, p50 ${fixed(row.p50Ms ?? 0, 2)} ms, p99 ${fixed(row.p99Ms ?? 0, 2)} ms, ` +
      `max ${fixed(row.maxMs ?? 0, 2)} ms`,
  );
  return row;
}

// ---------------------------------------------------------------------------------
// Adapters

/** Runs every phase on one adapter, appending to `rows` as phases finish (kept if a later one fails). */
async function runAdapter(adapter: AdapterName, options: Options, runId: string, rows: Row[]): Promise<void> {
  const messages = options.messages ?? DEFAULT_MESSAGES[adapter];
  if (adapter === 'kafka') {
    progress(`kafka: connecting to ${options.brokers.join(',')}`);
    await probeBrokers(options.brokers);
  }
  let kafkaWarnings = 0;
  const bus: MessageBus =
    adapter === 'in-process'
      ? new InProcessBus()
      : new KafkaBus({
          brokers: options.brokers,
          clientId: 'herald-bench',
          logger: {
            log: (level, message, fields) => {
              if (level !== 'warn' && level !== 'error') return;
              kafkaWarnings++;
              const detail = fields?.error ?? fields?.groupId ?? '';
              progress(`kafka ${level}: ${message}${detail ? ` (${String(detail)})` : ''}`);
            },
          },
        });
  const target: Target = { adapter, bus, runId, options, topics: [], groups: [], subscriptions: [] };
  try {
    if (adapter === 'kafka') {
      const stopTicker = ticker((s) => `kafka: waiting for the cluster to answer (${fixed(s, 0)} s)`);
      try {
        await withTimeout(bus.checkHealth(), 30_000, 'kafka health check');
      } catch (error) {
        throw new BenchError(`Kafka at ${options.brokers.join(',')} does not answer: ${String(error)}`);
      } finally {
        stopTicker();
      }
    }
    progress(`${adapter}: building ${int(messages)} messages of ~${options.valueBytes} bytes`);
    const workload = buildWorkload(messages, options);
    progress(
      `${adapter}: ${int(workload.batches.length)} batches, ${fixed(workload.valueBytes / 1e6, 1)} MB of values, ` +
        `${options.partitions} partitions, ${int(options.recipients)} recipients`,
    );

    // Two fills: the in-process bus drops what every existing group has consumed, so
    // each consume run reads its own topic (the second fill is a second produce sample).
    const first = await createTopic(target, `${adapter}.one`);
    rows.push(await producePhase(target, first, workload, 'produce (fill 1)'));
    rows.push(await consumePhase(target, first, workload, 1, 'consume, 1 member'));
    const second = await createTopic(target, `${adapter}.two`);
    rows.push(await producePhase(target, second, workload, 'produce (fill 2)'));
    rows.push(await consumePhase(target, second, workload, 2, 'consume, 2 members'));
    rows.push(await latencyPhase(target, 'end-to-end latency (paced)'));
    if (kafkaWarnings > 0) progress(`kafka: ${kafkaWarnings} client warning(s) logged above`);
  } finally {
    progress(`${adapter}: cleaning up`);
    await withTimeout(
      Promise.allSettled(target.subscriptions.map((s) => s.stop())),
      options.phaseTimeoutS * 1000,
      `${adapter} stop`,
    ).catch((error: unknown) => progress(`${adapter}: ${String(error)}`));
    await withTimeout(bus.close(), options.phaseTimeoutS * 1000, `${adapter} close`).catch((error: unknown) =>
      progress(`${adapter}: close failed: ${String(error)}`),
    );
    if (adapter === 'kafka' && !options.keepTopics) await deleteKafkaArtifacts(target);
  }
}

/** Fails fast, before kafkajs starts its retry loops, when no broker accepts a TCP connection. */
async function probeBrokers(brokers: readonly string[]): Promise<void> {
  const why = await unreachableBrokers(brokers);
  if (why === undefined) return;
  throw new BenchError(
    `no Kafka broker reachable (${why}); start one with \`npm run kafka:start\`, ` +
      'point HERALD_BENCH_KAFKA_BROKERS at one, or pass --adapter in-process to skip Kafka',
  );
}

/** Bench topics and groups are throwaway; the MessageBus port has no delete, so use the admin client. */
async function deleteKafkaArtifacts(target: Target): Promise<void> {
  if (target.topics.length === 0 && target.groups.length === 0) return;
  const admin = new Kafka({
    clientId: 'herald-bench-cleanup',
    brokers: [...target.options.brokers],
    logLevel: logLevel.NOTHING,
  }).admin();
  try {
    await withTimeout(
      (async () => {
        await admin.connect();
        if (target.groups.length > 0) await admin.deleteGroups(target.groups).catch(() => undefined);
        if (target.topics.length > 0) await admin.deleteTopics({ topics: target.topics });
      })(),
      30_000,
      'kafka cleanup',
    );
    progress(`kafka: deleted ${target.topics.length} topics and ${target.groups.length} groups`);
  } catch (error) {
    progress(`kafka: cleanup failed (${String(error)}); topics ${target.topics.join(', ')}`);
  } finally {
    await admin.disconnect().catch(() => undefined);
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
    process.stderr.write(`bench:bus: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }

  // Hard stop: whatever hangs, the run ends by itself.
  setTimeout(() => {
    process.stderr.write(`bench:bus: exceeded --max-seconds ${options.maxSeconds}, aborting\n`);
    process.exit(3);
  }, options.maxSeconds * 1000).unref();

  const runId = `${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(3).toString('hex')}`;
  const adapters: AdapterName[] = options.adapter === 'in-process' ? ['in-process'] : ['in-process', 'kafka'];
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown cpu'}), node ${process.version}`;
  progress(`run ${runId} on ${machine}`);
  if (options.adapter === 'in-process') progress('kafka: skipped (--adapter in-process)');

  const rows: Row[] = [];
  let failure: unknown;
  try {
    for (const adapter of adapters) await runAdapter(adapter, options, runId, rows);
  } catch (error) {
    failure = error;
  }

  process.stdout.write(`\n${markdownTable(rows)}\n`);
  if (options.adapter === 'in-process') process.stdout.write('\nKafka: skipped (--adapter in-process).\n');
  process.stdout.write(
    `\nMB/s counts JSON values only (1 MB = 10^6 bytes). Consume rates start once the group has settled; ` +
      `join time is in the notes. Latency: publish call to handler, same clock.\n`,
  );
  if (options.json) {
    const report = {
      bench: 'bus',
      runId,
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      brokers: adapters.includes('kafka') ? options.brokers : undefined,
      options: { ...options, brokers: undefined },
      results: rows,
      error: failure === undefined ? undefined : String(failure),
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  }
  if (failure !== undefined) throw failure;
  return 0;
}

runBenchMain('bus', main);
