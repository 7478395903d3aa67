/** Helpers of the kill tests (engine-kill, engine-batch-kill, dispatch-kill): a replayable schedule and latency summaries. */

/** mulberry32: kill schedules and delays come from a printed seed, so a failing schedule can be replayed (HERALD_KILL_SEED). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The seed of this run: HERALD_KILL_SEED to replay one, else a fresh one. */
export function killSeed(): number {
  return Number(process.env.HERALD_KILL_SEED ?? Math.floor(Math.random() * 2 ** 31));
}

/**
 * How many kills a kill test makes: `suite` in `npm test` (enough to cross every window the
 * test aims at: consumers at work and still joining, a second member, a publish while down),
 * HERALD_KILL_TEST_KILLS for a soak (`bench/soak/kill-soak.sh` runs the longer schedules).
 */
export function killCount(suite: number): number {
  const asked = Number(process.env.HERALD_KILL_TEST_KILLS);
  return Number.isInteger(asked) && asked > 0 ? asked : suite;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function describeSpread(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `min ${sorted[0]} ms, median ${percentile(sorted, 50)} ms, p95 ${percentile(sorted, 95)} ms, max ${sorted[sorted.length - 1]} ms`;
}

