/**
 * What read-your-writes costs an audience write: the Node SDK's `user.save()` (an
 * identity event) answered once the engine holds the profile (HERALD_AUDIENCE_VISIBILITY_TIMEOUT_MS
 * at its default), against the same writes answered at once (`0`, the peer: Herald before
 * issue 39), one Herald each, in the same run. Latency of one save at a time, and saves/s
 * with 20 in flight. Embedded always; on Kafka and Postgres too when the test
 * infrastructure variables name them.
 *
 *   npm run bench:audience-visibility [-- --saves 300]
 *   HERALD_TEST_KAFKA_BROKERS=127.0.0.1:9092 HERALD_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/herald_dev \
 *     npm run bench:audience-visibility
 *
 * Triggers are not affected: a trigger whose recipients carry no inline profile makes no
 * audience change and no acknowledgement (the flow bench's triggers), so the flow's cost
 * per delivery is unchanged by construction.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Suprsend } from '@suprsend/node-sdk';
import { heraldEnv, uniqueName } from '@herald/testing';
import { startEmbeddedHerald } from '../../apps/herald/src/embedded-herald';
import { heraldModes } from '../../apps/herald/src/testing/herald-modes';

const saves = Number(process.argv[process.argv.indexOf('--saves') + 1]) || 300;
const IN_FLIGHT = 20;

interface Figures {
  readonly p50: number;
  readonly p99: number;
  readonly perSecond: number;
}

async function measure(env: Record<string, string>, waitMs: string): Promise<Figures> {
  const workspaceKey = `hwk_${randomBytes(16).toString('hex')}`;
  const workspaceSecret = `hws_${randomBytes(24).toString('base64url')}`;
  const herald = await startEmbeddedHerald(
    heraldEnv({
      ...env,
      HERALD_PORT: '0',
      HERALD_MANAGEMENT_PORT: '0',
      HERALD_BOOTSTRAP_WORKSPACE_KEY: workspaceKey,
      HERALD_BOOTSTRAP_WORKSPACE_SECRET: workspaceSecret,
      HERALD_LOG_LEVEL: 'error',
      HERALD_AUDIENCE_VISIBILITY_TIMEOUT_MS: waitMs,
    }),
  );
  try {
    const sdk = new Suprsend(workspaceKey, workspaceSecret, { base_url: herald.baseUrl });
    const save = async (id: string): Promise<number> => {
      const user = sdk.user.get_instance(id);
      user.set('plan', id);
      const started = performance.now();
      const answer = (await user.save()) as { success?: boolean };
      if (!answer.success) throw new Error(`save refused: ${JSON.stringify(answer)}`);
      return performance.now() - started;
    };
    // The workspace key reaches ingest-api through the bus; the first saves also warm up.
    for (let i = 0; i < 50; i += 1) await save(`warm-${i}`).catch(() => new Promise((resolve) => setTimeout(resolve, 200)));
    const tag = uniqueName('u');
    const latencies: number[] = [];
    for (let i = 0; i < saves; i += 1) latencies.push(await save(`${tag}-one-${i}`));
    latencies.sort((a, b) => a - b);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < saves) await save(`${tag}-many-${next++}`);
      }),
    );
    const perSecond = saves / ((performance.now() - started) / 1000);
    return { p50: latencies[Math.floor(latencies.length / 2)], p99: latencies[Math.floor(latencies.length * 0.99)], perSecond };
  } finally {
    await herald.stop();
  }
}

async function main(): Promise<void> {
  console.log(`audience-visibility bench: ${saves} saves one at a time, then ${saves} with ${IN_FLIGHT} in flight`);
  for (const mode of heraldModes('avbench')) {
    const results: Array<[string, Figures]> = [];
    for (const [name, waitMs] of [
      ['answered once the engine holds it (default)', '30000'],
      ['answered at once (peer: before issue 39)', '0'],
    ] as const) {
      const prepared = await mode.prepare();
      try {
        results.push([name, await measure(prepared.env, waitMs)]);
      } finally {
        await prepared.dispose();
      }
    }
    console.log(`\n${mode.name}`);
    for (const [name, f] of results) console.log(`  ${name}: p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms; ${f.perSecond.toFixed(0)} saves/s with ${IN_FLIGHT} in flight`);
    const [waited, peer] = results.map(([, f]) => f);
    console.log(`  ratio (waited / peer): p50 ${(waited.p50 / peer.p50).toFixed(2)}x, saves/s ${(waited.perSecond / peer.perSecond).toFixed(2)}x`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
