/**
 * CPU of an idle embedded Herald (`npm start`: the five services, PGlite, the in-process
 * bus, in one Node process), as a % of one core over 60 s windows, read from
 * /proc/<pid>/stat (utime + stime). The peer, sampled over the very same windows: an
 * idle bare Node process (`node -e "setInterval(() => {}, 1e9)"`), the floor of any
 * Node service on this machine. The goal (issue 15): under 2% of a core.
 *
 *   node -r ./tools/register.js bench/idle/idle.bench.ts [--windows 3] [--seconds 60] [--settle 10]
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@herald/testing';

const root = join(__dirname, '..', '..');
const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const windows = arg('windows', 3);
const windowSeconds = arg('seconds', 60);
const settleSeconds = arg('settle', 10);

/** User + system CPU of the process so far, in clock ticks (100 per second on Linux). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-idle-'));
  const [port, managementPort] = [await freePort(), await freePort()];
  const env = { ...process.env, HERALD_DATA_DIR: dataDir, HERALD_PORT: String(port), HERALD_MANAGEMENT_PORT: String(managementPort), HERALD_LOG_LEVEL: 'warn' };
  // What `npm start` runs, without npm in between, so the pid is Herald's own.
  const herald = spawn(process.execPath, ['-r', './tools/register.js', 'apps/herald/src/main.ts'], { cwd: root, env, stdio: 'ignore' });
  const peer = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
  const stop = async (child: ChildProcess): Promise<void> => {
    if (child.exitCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await closed;
  };
  try {
    const started = performance.now();
    while (!((await ready(`http://127.0.0.1:${port}/health/ready`)) && (await ready(`http://127.0.0.1:${managementPort}/health/ready`)))) {
      if (performance.now() - started > 180_000) throw new Error('not ready within 180 s');
      await sleep(200);
    }
    process.stdout.write(`ready after ${((performance.now() - started) / 1000).toFixed(1)} s; settling ${settleSeconds} s\n`);
    await sleep(settleSeconds * 1000);
    const rows: string[] = [];
    for (let i = 1; i <= windows; i++) {
      const [h0, p0, t0] = [cpuTicks(herald.pid as number), cpuTicks(peer.pid as number), performance.now()];
      await sleep(windowSeconds * 1000);
      const [h1, p1, t1] = [cpuTicks(herald.pid as number), cpuTicks(peer.pid as number), performance.now()];
      const percent = (ticks: number): number => (ticks * 10 * 100) / (t1 - t0);
      const row = `| ${i} | ${percent(h1 - h0).toFixed(2)} | ${percent(p1 - p0).toFixed(2)} |`;
      rows.push(row);
      process.stdout.write(`${row}\n`);
    }
    process.stdout.write(`\n| window (${windowSeconds} s) | Herald idle, % of a core | bare node idle, % of a core |\n|---|---|---|\n${rows.join('\n')}\n`);
  } finally {
    await Promise.all([stop(herald), stop(peer)]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
