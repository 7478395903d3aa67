/**
 * What-if replay (issue 19): 1,000 recorded runs of a workflow (an HTTP fetch, a branch,
 * an hour's delay on one side, email and SMS) replayed against an unchanged draft and
 * against a draft that adds a delay. Each what-if is two replays (the run's own
 * definition as the baseline, then the draft) and a diff; the peer, in the same run, is
 * the baseline replay alone. Pure interpreter time in this process: reading the logs
 * and loading contexts in the engine is not in it.
 *
 *   node -r ./tools/register.js bench/replay/replay.bench.ts [--runs 1000] [--rounds 5]
 */
import { performance } from 'node:perf_hooks';
import { replayRun, summarizeReplay, whatIf } from '@herald/workflow';
import { decider } from '../../libs/workflow/src/run/testing/run-builders';
import { corpusWorkflow, fetchPlan, hourDelay, recordedCorpus, routeOnPlan } from '../../libs/workflow/src/run/testing/replay-corpus';
import { numberOption } from '../shared/bench-kit';


const runs = numberOption('--runs', 1_000);
const rounds = numberOption('--rounds', 5);
const deadline = Date.now() + 120_000;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function main(): void {
  const corpus = recordedCorpus({ runs, cancelled: 0.15 });
  const unchanged = corpusWorkflow();
  const delayed = corpusWorkflow([hourDelay('Hold', '30m'), fetchPlan, routeOnPlan()]);
  const cases: Record<string, number[]> = { 'baseline replay only (peer)': [], 'what-if, unchanged draft': [], 'what-if, delay added': [] };
  for (let round = 0; round < rounds && Date.now() < deadline; round += 1) {
    let began = performance.now();
    for (const run of corpus) replayRun(decider, run);
    cases['baseline replay only (peer)'].push(performance.now() - began);
    began = performance.now();
    const same = summarizeReplay(corpus.map((run) => whatIf(decider, run, unchanged)));
    cases['what-if, unchanged draft'].push(performance.now() - began);
    if (same.runs_changed !== 0) throw new Error(`an unchanged draft changed ${same.runs_changed} runs`);
    began = performance.now();
    summarizeReplay(corpus.map((run) => whatIf(decider, run, delayed)));
    cases['what-if, delay added'].push(performance.now() - began);
    process.stderr.write(`[bench:replay] round ${round + 1}/${rounds} done\n`);
  }
  const peer = median(cases['baseline replay only (peer)']);
  process.stdout.write(`| case (${runs} runs, median of ${cases['what-if, delay added'].length}) | ms | runs/s | x peer |\n|---|---|---|---|\n`);
  for (const [name, times] of Object.entries(cases)) {
    const ms = median(times);
    process.stdout.write(`| ${name} | ${ms.toFixed(0)} | ${Math.round((runs / ms) * 1000)} | ${(ms / peer).toFixed(2)} |\n`);
  }
}

main();
