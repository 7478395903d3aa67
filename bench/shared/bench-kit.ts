// Pieces every bench uses the same way: progress lines on stderr, percentiles of
// sorted samples, and a fast check that a Kafka broker is there before kafkajs starts
// its long retry loops.

import * as net from 'node:net';
import { performance } from 'node:perf_hooks';

const benchStart = performance.now();

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
