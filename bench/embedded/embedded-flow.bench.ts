// The embedded mode end to end (issue 15): `npm start`'s process (all five services,
// PGlite, the in-process bus) from POST /trigger/ to the inbox message stored, under a
// backlog offered faster than it drains, with its memory watched.
//
//   node -r ./tools/register.js bench/embedded/embedded-flow.bench.ts
//   node -r ./tools/register.js bench/embedded/embedded-flow.bench.ts --triggers 20000 --max-backlog 2000
//   node -r ./tools/register.js bench/embedded/embedded-flow.bench.ts --help
//
// Herald: a fresh data folder, a workflow with one send_inbox node; N triggers (one
// recipient each) are offered as bulk requests of 100 with several requests in flight,
// as fast as Herald answers; a 429 (push-back) is retried after its Retry-After.
// Deliveries are read from the process's own `/metrics` (`herald_deliveries_total` of the
// inbox channel). Deliveries/s is N over the time from the first request to the N-th
// delivery; memory is the process's resident set sampled every 250 ms, and its peak
// (VmHWM) since start.
//
// Peer, in the same run: the floor this design stands on, PGlite behind the same wire
// server and `pg` driver (`EmbeddedPostgres`), committing one single-row INSERT
// transaction per item from a pool of 10 connections. Herald's ratio to it says how many
// such transactions' worth of time one delivery costs.
//
// Figures and goals live in bench/RESULTS.md, never in tests.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { EmbeddedPostgres } from '@herald/database';
import { freePort, heraldEnv, startProcess, waitUntilReady } from '@herald/testing';
import { BenchError, CLOCK_TICKS, loadAverage, processTicks, progressWriter, runBenchMain } from '../shared/bench-kit';
import { createInboxWorkflow } from '../shared/inbox-workflow';

const progress = progressWriter('embedded-flow');

interface Options {
  readonly triggers: number;
  readonly inFlight: number;
  readonly maxBacklog?: number;
  readonly peerItems: number;
  readonly timeoutS: number;
  readonly json: boolean;
}

const HELP = `Usage: node -r ./tools/register.js bench/embedded/embedded-flow.bench.ts [options]

  --triggers N      triggers offered, one recipient each, as bulk requests of 100 (default 10000)
  --in-flight N     bulk requests in flight (default 8)
  --max-backlog N   HERALD_INGEST_MAX_BACKLOG for the run (default: Herald's, 50000)
  --peer-items N    single-row transactions of the peer (default 5000; 0 skips it)
  --timeout N       seconds the drain may take (default 600)
  --json            one JSON line after the table`;

function parseOptions(argv: readonly string[]): Options | undefined {
  const values = new Map<string, string>();
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help') return undefined;
    if (arg === '--json') json = true;
    else if (['--triggers', '--in-flight', '--max-backlog', '--peer-items', '--timeout'].includes(arg) && i + 1 < argv.length) values.set(arg, argv[++i]);
    else throw new BenchError(`unknown option ${arg}\n${HELP}`);
  }
  const number = (name: string, fallback: number, min: number): number => {
    const raw = values.get(name);
    const value = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(value) || value < min) throw new BenchError(`${name} must be an integer of at least ${min}`);
    return value;
  };
  return {
    triggers: number('--triggers', 10_000, 100),
    inFlight: number('--in-flight', 8, 1),
    maxBacklog: values.has('--max-backlog') ? number('--max-backlog', 0, 1) : undefined,
    peerItems: number('--peer-items', 5_000, 0),
    timeoutS: number('--timeout', 600, 10),
    json,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------
// The peer

async function peer(items: number): Promise<{ perS: number; seconds: number }> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'herald-bench-peer-'));
  const postgres = await EmbeddedPostgres.start({ dataDir });
  const pool = new Pool({ connectionString: postgres.url, max: 10 });
  try {
    await pool.query('CREATE TABLE items (id bigint PRIMARY KEY, body text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < items) {
          const id = next++;
          await pool.query('INSERT INTO items (id, body) VALUES ($1, $2)', [id, `peer ${id}`]);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return { perS: items / seconds, seconds };
  } finally {
    await pool.end();
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------
// Herald

const WORKFLOW = 'embedded-flow';


/**
 * POST /trigger/ with a body; resolves with the status, the Retry-After seconds, if any,
 * and for a 207 the indexes of the records pushed back with a 429 (Herald saturated) and
 * of those refused with a 503 (Herald's own trouble accepting them): both offered again,
 * like a 429 or a 503 of the whole request.
 */
function postTriggers(
  agent: http.Agent,
  port: number,
  apiKey: string,
  body: string,
): Promise<{ status: number; retryAfterS?: number; pushedBack: number[]; refused: number[] }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { agent, host: '127.0.0.1', port, path: '/trigger/', method: 'POST', timeout: 60_000, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        const retryAfter = Number(response.headers['retry-after']);
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const pushedBack: number[] = [];
          const refused: number[] = [];
          if (status === 207) {
            const records = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { records: Array<{ status_code: number; error?: { message: string } }> }).records;
            records.forEach((record, index) => {
              if (record.status_code === 429) pushedBack.push(index);
              else if (record.status_code === 503) refused.push(index);
              else if (record.status_code !== 202) reject(new BenchError(`a bulk record answered ${record.status_code}: ${record.error?.message ?? ''}`));
            });
          }
          resolve({ status, retryAfterS: Number.isFinite(retryAfter) ? retryAfter : undefined, pushedBack, refused });
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error('request timed out')));
    request.on('error', reject);
    request.end(body);
  });
}

/** Inbox deliveries Herald has recorded, from its /metrics. */
async function inboxDeliveries(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(30_000) })).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('herald_deliveries_total{') && line.includes('channel="inbox"') && /outcome="(delivered|sent_by_vendor)"/.test(line)) {
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return total;
}

function memoryMb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

interface HeraldResult {
  readonly deliveries: number;
  readonly seconds: number;
  readonly perS: number;
  readonly acceptedPerS: number;
  readonly pushedBack: number;
  readonly otherRefusals: number;
  readonly cpuPercent: number;
  /** Herald's CPU time (user + system, all threads) per delivery: less sensitive to a busy machine than the rate. */
  readonly cpuMsPerDelivery: number;
  readonly rssMaxUnderLoadMb: number;
  readonly hwmAtReadyMb: number;
  readonly hwmAtEndMb: number;
}

async function herald(options: Options): Promise<HeraldResult> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'herald-bench-embedded-'));
  const [port, managementPort] = [await freePort(), await freePort()];
  const credentials = {
    serviceToken: `bench-st-${randomBytes(16).toString('hex')}`,
    apiKey: `bench-api-${randomBytes(16).toString('hex')}`,
  };
  const env = heraldEnv({
    HERALD_DATA_DIR: dataDir,
    HERALD_PORT: String(port),
    HERALD_MANAGEMENT_PORT: String(managementPort),
    HERALD_LOG_LEVEL: 'warn',
    HERALD_BOOTSTRAP_SERVICE_TOKEN: credentials.serviceToken,
    HERALD_BOOTSTRAP_API_KEY: credentials.apiKey,
    ...(options.maxBacklog === undefined ? {} : { HERALD_INGEST_MAX_BACKLOG: String(options.maxBacklog) }),
  });
  // HERALD_BENCH_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, profiles Herald's process.
  const nodeArgs = process.env.HERALD_BENCH_NODE_ARGS?.split(' ').filter((arg) => arg !== '') ?? [];
  const processUnderTest = startProcess('herald', process.execPath, [...nodeArgs, '-r', './tools/register.js', 'apps/herald/src/main.ts'], env);
  const pid = processUnderTest.child.pid as number;
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.inFlight + 2 });
  try {
    await waitUntilReady(processUnderTest, `http://127.0.0.1:${port}/`, 180_000);
    await waitUntilReady(processUnderTest, `http://127.0.0.1:${managementPort}/`, 60_000);
    const hwmAtReadyMb = memoryMb(pid).hwm;
    await createInboxWorkflow(`http://127.0.0.1:${managementPort}/`, credentials.serviceToken, WORKFLOW);
    // A probe: the workflow is live and the pipeline delivers.
    const probe = await postTriggers(agent, port, credentials.apiKey, JSON.stringify({ workflow: WORKFLOW, recipients: ['probe'], data: { n: 'probe' } }));
    if (probe.status !== 202) throw new BenchError(`the probe trigger answered ${probe.status}`);
    for (const deadline = Date.now() + 60_000; (await inboxDeliveries(port)) < 1; await sleep(100)) {
      if (Date.now() > deadline) throw new BenchError('the probe was not delivered within 60 s');
    }
    const baseline = await inboxDeliveries(port);

    const bodies: string[] = [];
    for (let first = 0; first < options.triggers; first += 100) {
      const batch = [];
      for (let i = first; i < Math.min(first + 100, options.triggers); i++) batch.push({ workflow: WORKFLOW, recipients: [`user-${i % 1000}`], data: { n: String(i) } });
      bodies.push(JSON.stringify(batch));
    }
    let pushedBack = 0;
    let otherRefusals = 0;
    let rssMax = 0;
    const cpuAtStart = processTicks(pid) ?? 0;
    const started = performance.now();
    let acceptedAt = started;
    let nextBody = 0;
    const offer = Promise.all(
      Array.from({ length: options.inFlight }, async () => {
        while (nextBody < bodies.length) {
          let body = bodies[nextBody++];
          for (;;) {
            const answer = await postTriggers(agent, port, credentials.apiKey, body);
            if (answer.status === 207 && answer.pushedBack.length + answer.refused.length > 0) {
              // Records Herald could not accept now: offered again, alone (a record's 429 carries no Retry-After: 1 s, as a whole request's).
              pushedBack += answer.pushedBack.length;
              otherRefusals += answer.refused.length;
              const records = JSON.parse(body) as unknown[];
              body = JSON.stringify([...answer.pushedBack, ...answer.refused].map((index) => records[index]));
              await sleep(answer.pushedBack.length > 0 ? 1000 : 500);
              continue;
            }
            if (answer.status === 207 || answer.status === 202) break;
            if (answer.status === 429) {
              pushedBack++;
              await sleep((answer.retryAfterS ?? 1) * 1000);
            } else if (answer.status === 503) {
              otherRefusals++;
              await sleep(500);
            } else {
              throw new BenchError(`a bulk trigger answered ${answer.status}`);
            }
          }
        }
        acceptedAt = performance.now();
      }),
    );
    let offerError: unknown;
    offer.catch((error: unknown) => (offerError = error));
    let delivered = 0;
    let lastLog = started;
    while (delivered < options.triggers) {
      if (offerError) throw offerError;
      rssMax = Math.max(rssMax, memoryMb(pid).rss);
      delivered = (await inboxDeliveries(port)) - baseline;
      const now = performance.now();
      if (now - started > options.timeoutS * 1000) throw new BenchError(`${delivered} of ${options.triggers} delivered after ${options.timeoutS} s`);
      if (now - lastLog > 5000) {
        progress(`${delivered}/${options.triggers} delivered, ${Math.round(rssMax)} MB max resident, ${pushedBack} pushed back (${((now - started) / 1000).toFixed(0)} s, load ${loadAverage()})`);
        lastLog = now;
      }
      await sleep(250);
    }
    const seconds = (performance.now() - started) / 1000;
    await offer;
    const cpuSeconds = ((processTicks(pid) ?? cpuAtStart) - cpuAtStart) / CLOCK_TICKS;
    return {
      deliveries: options.triggers,
      seconds,
      perS: options.triggers / seconds,
      acceptedPerS: options.triggers / ((acceptedAt - started) / 1000),
      pushedBack,
      otherRefusals,
      cpuPercent: (cpuSeconds / seconds) * 100,
      cpuMsPerDelivery: (cpuSeconds * 1000) / options.triggers,
      rssMaxUnderLoadMb: rssMax,
      hwmAtReadyMb,
      hwmAtEndMb: memoryMb(pid).hwm,
    };
  } finally {
    agent.destroy();
    await processUnderTest.stop('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (!options) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const loadAtStart = loadAverage();
  const peerBefore = options.peerItems > 0 ? await peer(options.peerItems) : undefined;
  progress(`peer: ${peerBefore ? Math.round(peerBefore.perS) : '-'} transactions/s (load ${loadAverage()})`);
  const result = await herald(options);
  const peerAfter = options.peerItems > 0 ? await peer(options.peerItems) : undefined;
  const peerMean = peerBefore && peerAfter ? (peerBefore.perS + peerAfter.perS) / 2 : undefined;
  const f = (n: number): string => Math.round(n).toLocaleString('en-US');
  process.stdout.write(
    [
      '',
      `Embedded end to end: ${f(options.triggers)} triggers (bulk requests of 100, ${options.inFlight} in flight) to inbox messages; load average ${loadAtStart} at the start, ${loadAverage()} at the end`,
      '',
      '| deliveries/s | accepted/s | 429s | 503s | Herald CPU, % of a core | CPU ms/delivery | resident max under load | peak at ready | peak at end | peer transactions/s (before / after) | Herald / peer |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      `| ${f(result.perS)} | ${f(result.acceptedPerS)} | ${result.pushedBack} | ${result.otherRefusals} | ${f(result.cpuPercent)}% | ${result.cpuMsPerDelivery.toFixed(2)} | ${f(result.rssMaxUnderLoadMb)} MB | ${f(result.hwmAtReadyMb)} MB | ${f(result.hwmAtEndMb)} MB | ${peerBefore && peerAfter ? `${f(peerBefore.perS)} / ${f(peerAfter.perS)}` : '-'} | ${peerMean ? `${(result.perS / peerMean).toFixed(2)}x` : '-'} |`,
      '',
    ].join('\n'),
  );
  if (options.json) process.stdout.write(`${JSON.stringify({ bench: 'embedded-flow', date: new Date().toISOString(), node: process.version, loadAtStart, loadAtEnd: loadAverage(), options, result, peerBefore, peerAfter })}\n`);
  return 0;
}

runBenchMain('embedded-flow', main);
