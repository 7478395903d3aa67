/**
 * Time from `npm start` to `/health/ready` answering 200 on both ports, on a fresh
 * data folder (first start: PGlite initdb, migrations, bootstrap) and on an existing one.
 * With `--distributed`, each of the five services on its own against Kafka and Postgres
 * instead (see distributed-startup.ts; the goal there is ready within 5 s, issue 21).
 *
 *   npm run bench:startup [-- --runs 3]
 *   HERALD_TEST_KAFKA_BROKERS=127.0.0.1:9092 HERALD_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/herald_dev \
 *     npm run bench:startup -- --distributed [--runs 3]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@herald/testing';
import { SERVICES, StartupSample, measureDistributedStartup, measureNodeFloor } from './distributed-startup';

const root = join(__dirname, '..', '..');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 3;

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
}

async function timeToReady(dataDir: string): Promise<number> {
  const [port, managementPort] = [await freePort(), await freePort()];
  const env = { ...process.env, HERALD_DATA_DIR: dataDir, HERALD_PORT: String(port), HERALD_MANAGEMENT_PORT: String(managementPort) };
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], { cwd: root, env, stdio: 'ignore', detached: true });
  try {
    for (;;) {
      if (performance.now() - started > 120_000) throw new Error('not ready within 120 s');
      if ((await ready(`http://127.0.0.1:${port}/health/ready`)) && (await ready(`http://127.0.0.1:${managementPort}/health/ready`))) {
        return performance.now() - started;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    process.kill(-(child.pid as number), 'SIGTERM');
    await new Promise((resolve) => child.once('close', resolve));
  }
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? '-' : `${(ms / 1000).toFixed(2)} s`;
}

async function distributed(): Promise<void> {
  const brokers = process.env.HERALD_TEST_KAFKA_BROKERS;
  const databaseUrl = process.env.HERALD_TEST_DATABASE_URL;
  if (!brokers || !databaseUrl) throw new Error('--distributed needs HERALD_TEST_KAFKA_BROKERS and HERALD_TEST_DATABASE_URL');
  const samples = await measureDistributedStartup({
    brokers,
    databaseUrl,
    runs,
    onSample: (s) =>
      process.stderr.write(
        `${s.service} ${s.label}: ready ${seconds(s.readyMs)}, CPU ${seconds(s.cpuMs)} (log: schemas ${seconds(s.phases.schemaReadyMs)}, ` +
          `consumers ${seconds(s.phases.consumersStartedMs)}, listening ${seconds(s.phases.serviceStartedMs)})\n`,
      ),
  });
  const floors = [];
  for (let i = 0; i < Math.max(3, runs); i++) floors.push(await measureNodeFloor());
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const floorMs = median(floors.map((f) => f.readyMs));
  const floorCpuMs = median(floors.map((f) => f.cpuMs ?? Number.NaN));
  process.stdout.write(`\npeer: node with the register hook, nothing loaded: ${seconds(floorMs)} wall, ${seconds(floorCpuMs)} CPU (median of ${floors.length})\n`);
  process.stdout.write('\n| service | case | runs | ready, median | ready, max | CPU to ready, median | ready / peer |\n|---|---|---|---|---|---|---|\n');
  for (const service of SERVICES) {
    for (const label of ['first start', 'restart', 'second replica'] as const) {
      const of = samples.filter((s: StartupSample) => s.service === service && s.label === label);
      if (of.length === 0) continue;
      const times = of.map((s) => s.readyMs).sort((a, b) => a - b);
      const readyMedian = median(times);
      process.stdout.write(
        `| ${service} | ${label} | ${times.length} | ${seconds(readyMedian)} | ${seconds(times.at(-1))} | ${seconds(median(of.map((s) => s.cpuMs ?? Number.NaN)))} | ${(readyMedian / floorMs).toFixed(1)}x |\n`,
      );
    }
  }
}

async function embedded(): Promise<void> {
  const rows: Array<[string, number]> = [];
  for (let i = 1; i <= runs; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-startup-'));
    try {
      const first = await timeToReady(dataDir);
      process.stdout.write(`run ${i}/${runs}: first start ${(first / 1000).toFixed(2)} s`);
      const again = await timeToReady(dataDir);
      process.stdout.write(`, restart ${(again / 1000).toFixed(2)} s\n`);
      rows.push(['first start (empty data folder)', first], ['restart (existing data)', again]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  process.stdout.write('\n| case | runs | median | max |\n|---|---|---|---|\n');
  for (const label of ['first start (empty data folder)', 'restart (existing data)']) {
    const times = rows.filter(([l]) => l === label).map(([, t]) => t).sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    process.stdout.write(`| ${label} | ${times.length} | ${(median / 1000).toFixed(2)} s | ${(times[times.length - 1] / 1000).toFixed(2)} s |\n`);
  }
}

// A hard limit for the whole run; each start has its own (120 s).
setTimeout(() => {
  process.stderr.write('bench:startup: over 20 minutes, stopping\n');
  process.exit(1);
}, 20 * 60_000).unref();

void (process.argv.includes('--distributed') ? distributed() : embedded());
