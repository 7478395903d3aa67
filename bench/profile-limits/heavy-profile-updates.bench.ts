/**
 * Whether the heaviest profile update the limits allow stalls other clients: the latency
 * of `GET /health/live` probes (one at a time, back to back) while three PATCHes of 1,000
 * list changes each run on a profile near the size limit, against the same probes with
 * nothing else running (the peer), in the same process and run. Embedded Herald.
 *
 *   node -r ./tools/register.js bench/profile-limits/heavy-profile-updates.bench.ts [--rounds 3] [--quiet-probes 300]
 *
 * This is the timing half of `profile-limits.int.spec.ts`, which checks that the updates
 * succeed while probes answer; the figure lives here, not in a test.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PROFILE_LIMITS } from '@herald/contracts';
import { heraldEnv } from '@herald/testing';
import { startEmbeddedHerald } from '../../apps/herald/src/embedded-herald';
import { BenchError, loadAverage, numberOption, percentile, progressWriter, runBenchMain } from '../shared/bench-kit';

const progress = progressWriter('profile-limits');
const words = (n: number, tag: string): string[] => Array.from({ length: n }, (_, i) => `${tag}-${i}-${'w'.repeat(40)}`);
const props = (n: number): Record<string, number> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, i]));

interface ProbeFigures {
  readonly probes: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

const figuresOf = (latencies: number[]): ProbeFigures => {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { probes: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
};

runBenchMain('profile-limits', async () => {
  const rounds = numberOption('--rounds', 3);
  const quietProbes = numberOption('--quiet-probes', 300);
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-profile-'));
  const apiKey = `hak_${randomBytes(24).toString('base64url')}`;
  const herald = await startEmbeddedHerald(heraldEnv({ HERALD_DATA_DIR: dataDir, HERALD_PORT: '0', HERALD_MANAGEMENT_PORT: '0', HERALD_BOOTSTRAP_API_KEY: apiKey, HERALD_LOG_LEVEL: 'error' }));
  try {
    const call = async (method: string, path: string, body?: unknown): Promise<number> => {
      const response = await fetch(`${herald.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await response.arrayBuffer();
      return response.status;
    };
    const probe = async (): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${herald.baseUrl}health/live`);
      await response.arrayBuffer();
      if (response.status !== 200) throw new BenchError(`health/live answered ${response.status}`);
      return performance.now() - started;
    };

    const profile = { first: words(1_800, 'a'), second: words(1_800, 'b'), $email: Array.from({ length: 1_000 }, (_, i) => `u${i}@example.com`), ...props(500) };
    const created = await call('POST', 'v1/user/heavy/', profile);
    if (created >= 300) throw new BenchError(`creating the heavy profile answered ${created}`);
    const operations = Array.from({ length: PROFILE_LIMITS.maxChangesPerRequest / 4 }, (_, i) => ({
      $append: { first: [`new-${i}`], $email: [`new${i}@example.com`] },
      $remove: { second: [`b-${i}-${'w'.repeat(40)}`], first: [`new-${i}`] },
    }));

    const quiet: number[] = [];
    const loaded: number[] = [];
    let heavyMs = 0;
    for (let round = 0; round < rounds; round += 1) {
      // The peer: as many probes with nothing else running.
      for (let i = 0; i < quietProbes; i += 1) quiet.push(await probe());
      let heavyDone = false;
      const started = performance.now();
      const heavy = (async () => {
        for (let update = 0; update < 3; update += 1) {
          const status = await call('PATCH', 'v1/user/heavy/', { operations });
          if (status !== 202) throw new BenchError(`the heavy update answered ${status}`);
        }
        heavyDone = true;
      })();
      while (!heavyDone) loaded.push(await probe());
      await heavy;
      heavyMs += performance.now() - started;
      progress(`round ${round + 1}/${rounds}: ${loaded.length} probes under load so far, three heavy updates in ${(performance.now() - started).toFixed(0)} ms`);
    }

    const alone = figuresOf(quiet);
    const during = figuresOf(loaded);
    const ms = (value: number): string => value.toFixed(1);
    process.stdout.write(
      [
        `Heavy profile updates (3 x ${PROFILE_LIMITS.maxChangesPerRequest} changes on a profile near ${PROFILE_LIMITS.maxBytes} bytes), ${rounds} rounds, load ${loadAverage()}`,
        '',
        '| health/live probe | during the heavy updates | alone (peer) | ratio |',
        '| --- | ---: | ---: | ---: |',
        `| probes | ${during.probes} | ${alone.probes} | |`,
        `| p50 ms | ${ms(during.p50)} | ${ms(alone.p50)} | ${(during.p50 / alone.p50).toFixed(2)}x |`,
        `| p99 ms | ${ms(during.p99)} | ${ms(alone.p99)} | ${(during.p99 / alone.p99).toFixed(2)}x |`,
        `| max ms | ${ms(during.max)} | ${ms(alone.max)} | ${(during.max / alone.max).toFixed(2)}x |`,
        `| one heavy update, mean ms | ${ms(heavyMs / (rounds * 3))} | | |`,
        '',
      ].join('\n'),
    );
    return 0;
  } finally {
    await herald.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
