// Bench of ingest's body validation on its hot path: the schema-derived validators
// (TypeBox schema, ajv compiled once, then normalised) against the hand readers they
// replaced (docs/architecture.md, "Contracts"), alternated round by round in one run.
//
//   node -r ./tools/register.js bench/contracts/body-validation.bench.ts
//   node -r ./tools/register.js bench/contracts/body-validation.bench.ts -- --rounds 9 --ms 400
//   ... --peer-ref <commit>        the hand readers of this commit (default: the last one before the schemas)
//
// Bodies are what ingest receives, parsed: the ingest bench's trigger (1 and 100
// recipients, 256 bytes of data), the rich sample trigger of the unit tests (every
// recipient form), and an SDK track event. The peer's sources are extracted from git
// into tmp/ and loaded through the same register hook. Per case: calls/s of each side
// (median of rounds), the ratio schema/peer, and each side's spread (max/min of rounds),
// which says how much of a difference the loaded machine can show by itself.

import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { validateEvent } from '../../libs/services/ingest-api/src/validation/event';
import { validateTrigger } from '../../libs/services/ingest-api/src/validation/trigger';
import { sampleEvent, sampleTrigger } from '../../libs/services/ingest-api/src/validation/testing/sample-bodies';

/** The last commit whose ingest validation was hand readers only. */
const DEFAULT_PEER_REF = 'a19efb8';
const REPO = resolve(__dirname, '..', '..');

type Validate = (body: unknown) => { ok: boolean };

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback;
}

function loadPeer(ref: string): { trigger: Validate; event: Validate; dir: string } {
  const dir = join(REPO, 'tmp', `contracts-bench-peer-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['archive', ref, 'libs/services/ingest-api/src/validation'], { cwd: REPO });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  const base = join(dir, 'libs/services/ingest-api/src/validation');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const trigger = (require(join(base, 'trigger.ts')) as { validateTrigger: Validate }).validateTrigger;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const event = (require(join(base, 'event.ts')) as { validateEvent: Validate }).validateEvent;
  return { trigger, event, dir };
}

function benchTrigger(recipients: number): unknown {
  const filler = { order_id: 'ord-000000', amount: 42.5, currency: 'EUR', items: [{ sku: 'SKU-1', qty: 2 }], note: '' };
  filler.note = 'x'.repeat(Math.max(0, 256 - Buffer.byteLength(JSON.stringify(filler))));
  return { workflow: 'bench', recipients: Array.from({ length: recipients }, (_, j) => `bench-user-${j}`), data: filler };
}

const SDK_EVENT = {
  distinct_id: 'user-1',
  event: 'order_paid',
  properties: { amount: 12.5, currency: 'EUR', $ss_sdk_version: 'node/1.15.1' },
  $insert_id: '6f2d0c3e-4a8b-4d43-9d1c-0a3a5a8d2f10',
  $time: 1_700_000_000_000,
  env: 'ws-key',
};

/** Calls per second of `validate` on `body` (parsed fresh each call, as a request's body is) over about `ms`. */
function rate(validate: Validate, text: string, ms: number): number {
  let calls = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 50; i++) if (!validate(JSON.parse(text)).ok) throw new Error('a bench body was refused');
    calls += 50;
    now = performance.now();
  }
  return (calls * 1000) / (now - start);
}

/** The same calls on JSON.parse alone, subtracted so the figures are the validators' own. */
function parseOnly(text: string, ms: number): number {
  return rate(() => ({ ok: true }), text, ms);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const perCallUs = (callsPerSecond: number, parseRate: number): number => 1e6 / callsPerSecond - 1e6 / parseRate;

function main(): void {
  const rounds = Number(option('--rounds', '7'));
  const ms = Number(option('--ms', '300'));
  const peer = loadPeer(option('--peer-ref', DEFAULT_PEER_REF));
  try {
    const cases: Array<{ name: string; body: unknown; schema: Validate; hand: Validate }> = [
      { name: 'trigger, 1 recipient (ingest bench)', body: benchTrigger(1), schema: validateTrigger, hand: peer.trigger },
      { name: 'trigger, 100 recipients (ingest bench)', body: benchTrigger(100), schema: validateTrigger, hand: peer.trigger },
      { name: 'trigger, every recipient form (unit sample)', body: sampleTrigger(), schema: validateTrigger, hand: peer.trigger },
      { name: 'event (SDK track)', body: SDK_EVENT, schema: validateEvent, hand: peer.event },
      { name: 'event with attachment (unit sample)', body: sampleEvent(), schema: validateEvent, hand: peer.event },
    ];
    console.log('| body | hand reader µs/call | schema µs/call | schema / hand (time) | spread hand | spread schema |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const one of cases) {
      const text = JSON.stringify(one.body);
      // Both sides must answer the same normalised value, or the comparison is meaningless.
      if (!isDeepStrictEqual(one.schema(JSON.parse(text)), one.hand(JSON.parse(text)))) throw new Error(`${one.name}: the two validators disagree`);
      const [hand, schema, parse]: number[][] = [[], [], []];
      rate(one.hand, text, ms);
      rate(one.schema, text, ms);
      for (let round = 0; round < rounds; round++) {
        // Alternated, and the order flipped each round, so drift of the machine falls on both.
        const first = round % 2 === 0 ? one.hand : one.schema;
        const second = round % 2 === 0 ? one.schema : one.hand;
        const a = rate(first, text, ms);
        const b = rate(second, text, ms);
        (first === one.hand ? hand : schema).push(a);
        (second === one.hand ? hand : schema).push(b);
        parse.push(parseOnly(text, ms / 3));
        process.stderr.write(`${one.name}: round ${round + 1}/${rounds}\n`);
      }
      const parseRate = median(parse);
      const [handUs, schemaUs] = [perCallUs(median(hand), parseRate), perCallUs(median(schema), parseRate)];
      const spread = (values: number[]): string => `${(Math.max(...values) / Math.min(...values)).toFixed(2)}×`;
      console.log(`| ${one.name} | ${handUs.toFixed(2)} | ${schemaUs.toFixed(2)} | ${(schemaUs / handUs).toFixed(2)} | ${spread(hand)} | ${spread(schema)} |`);
    }
    console.log(`\n${rounds} rounds of ${ms} ms per side, alternated; JSON.parse of the body subtracted (measured alongside). Node ${process.version}.`);
  } finally {
    rmSync(peer.dir, { recursive: true, force: true });
  }
}

main();
