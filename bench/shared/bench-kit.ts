// Pieces every bench uses the same way: progress lines on stderr, percentiles of
// sorted samples, a fast check that a Kafka broker is there before kafkajs starts
// its long retry loops, and CPU use of processes read from /proc.

import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';

const benchStart = performance.now();

/** A numeric command-line option, `--name N`, or `fallback` when it is not given. */
export function numberOption(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

/** A progress writer for stderr: `[bench:<name> +  12.3s] line`. */
export function progressWriter(name: string): (line: string) => void {
  return (line) => {
    const elapsed = ((performance.now() - benchStart) / 1000).toFixed(1).padStart(6);
    process.stderr.write(`[bench:${name} +${elapsed}s] ${line}\n`);
  };
}

/** Nearest-rank percentile of ascending samples; NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * Why no broker of the list accepts a TCP connection (each broker's reason), or
 * undefined as soon as one does.
 */
export async function unreachableBrokers(brokers: readonly string[]): Promise<string | undefined> {
  const errors: string[] = [];
  for (const broker of brokers) {
    const at = broker.lastIndexOf(':');
    const reachable = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: broker.slice(0, at), port: Number(broker.slice(at + 1)), timeout: 3_000 });
      const done = (ok: boolean, why?: string): void => {
        if (why) errors.push(`${broker}: ${why}`);
        socket.destroy();
        resolve(ok);
      };
      socket.once('connect', () => done(true));
      socket.once('timeout', () => done(false, 'connect timed out'));
      socket.once('error', (error) => done(false, error.message));
    });
    if (reachable) return undefined;
  }
  return errors.join('; ');
}

/** A failure explained in its message; `runBenchMain` prints it without a stack. */
/** The machine's load averages (1, 5, 15 minutes), for the figures of a shared machine. */
export const loadAverage = (): string => os.loadavg().map((v) => v.toFixed(2)).join(' ');

export class BenchError extends Error {}

/**
 * Runs a bench's main and exits with its code. Everything is closed by then; should a
 * client leave a handle open, the process still exits after 5 s instead of hanging.
 */
export function runBenchMain(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
      setTimeout(() => process.exit(code), 5_000).unref();
    },
    (error: unknown) => {
      const detail = error instanceof BenchError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stderr.write(`bench:${name} failed: ${detail}\n`);
      process.exitCode = 1;
      setTimeout(() => process.exit(1), 5_000).unref();
    },
  );
}

// ---------------------------------------------------------------------------------
// CPU use from /proc (Linux); without /proc every reading is undefined or empty.

export const HAS_PROC = (() => {
  try {
    readFileSync('/proc/stat', 'utf8');
    return true;
  } catch {
    return false;
  }
})();

/** Clock ticks per second of /proc's CPU times. */
export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU of a process so far, in clock ticks; undefined once it is gone. */
export function processTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces), from field 3 on.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return undefined;
  }
}

/** Processes whose command line (or name) matches, found by reading /proc. */
export function pidsMatching(test: (cmdline: string, comm: string) => boolean): number[] {
  if (!HAS_PROC) return [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (test(cmdline, comm)) pids.push(Number(entry));
    } catch {
      // gone in between
    }
  }
  return pids;
}

/** The Kafka broker's JVM on this machine. */
export const kafkaPids = (): number[] => pidsMatching((cmdline) => cmdline.includes('kafka.Kafka'));
/** Every Postgres server process on this machine (backends of other databases too). */
export const postgresPids = (): number[] => pidsMatching((_cmdline, comm) => comm === 'postgres');

/**
 * Starts measuring the CPU-seconds (user + system) of named groups of processes; the
 * returned function gives each group's use since. A group's pids are listed again at the
 * end, so a process that started in between counts from zero (backends come and go).
 */
export function cpuSecondsMeter<G extends string>(groups: Record<G, () => number[]>): () => Record<G, number> {
  const names = Object.keys(groups) as G[];
  const snapshot = (): Map<G, Map<number, number>> =>
    new Map(
      names.map((name) => [
        name,
        new Map(
          groups[name]().flatMap((pid) => {
            const ticks = processTicks(pid);
            return ticks === undefined ? [] : [[pid, ticks] as [number, number]];
          }),
        ),
      ]),
    );
  const start = snapshot();
  return () => {
    const end = snapshot();
    const report = {} as Record<G, number>;
    for (const name of names) {
      const before = start.get(name) as Map<number, number>;
      let ticks = 0;
      for (const [pid, ticksAtEnd] of end.get(name) as Map<number, number>) ticks += ticksAtEnd - (before.get(pid) ?? 0);
      report[name] = ticks / CLOCK_TICKS;
    }
    return report;
  };
}
