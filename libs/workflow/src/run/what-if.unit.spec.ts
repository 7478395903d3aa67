import { decider, sendEmail } from './testing/run-builders';
import { HOUR, corpusWorkflow, fetchPlan, hourDelay, notify, recordedCorpus, routeOnPlan } from './testing/replay-corpus';
import { ReplayChange, recordedRunOf, replayRun, summarizeReplay, whatIf } from './what-if';

const kinds = (changes: readonly ReplayChange[]): string[] => changes.map((change) => change.kind);

describe('what-if replay', () => {
  describe('given 1,200 recorded runs, some cancelled along the way', () => {
    const corpus = recordedCorpus({ runs: 1_200, cancelled: 0.15 });

    it('when the unchanged definition is replayed as a draft, then no run changes', () => {
      const results = corpus.map((run) => whatIf(decider, run, corpusWorkflow()));
      const summary = summarizeReplay(results);
      expect(summary).toMatchObject({ runs: 1_200, runs_changed: 0, runs_stopped: 0 });
      // The corpus exercises what could differ: both branches, the delay, cancels, both channels.
      expect(summary.sends_before).toBeGreaterThan(1_200);
      expect(summary.sends_by_channel['sms:welcome'].before).toBeGreaterThan(100);
      expect(results.filter((result) => result.baseline.status === 'cancelled').length).toBeGreaterThan(10);
    });

    it('when a draft drops the SMS channel, then exactly the SMS sends are dropped', () => {
      const results = corpus.map((run) => whatIf(decider, run, corpusWorkflow([fetchPlan, routeOnPlan('gold', [hourDelay(), notify(['email'])])])));
      for (const result of results) {
        const smsSends = result.baseline.sends.filter((send) => send.channel === 'sms');
        expect(result.changes).toEqual(smsSends.map((send) => ({ kind: 'send_dropped', send })));
      }
      const summary = summarizeReplay(results);
      expect(summary.sends_by_channel['sms:welcome']).toEqual({ before: summary.changes.send_dropped, after: 0 });
      expect(summary.sends_by_channel['email:welcome'].after).toBe(summary.sends_by_channel['email:welcome'].before);
    });

    it('when a draft takes the gold branch for silver instead, then the branch changes for gold and silver runs only', () => {
      const results = corpus.map((run) => whatIf(decider, run, corpusWorkflow([fetchPlan, routeOnPlan('silver')])));
      const planOf = (index: number) => (corpus[index].later[0].input as { response: { body: { plan: string } } }).response.body.plan;
      results.forEach((result, index) => {
        const branchChanged = result.changes.some((change) => change.kind === 'branch_changed');
        expect(branchChanged).toBe(planOf(index) !== 'bronze' && result.baseline.branches.length > 0);
      });
    });
  });

  describe('given 1,000 recorded runs none of which was cancelled', () => {
    const corpus = recordedCorpus({ runs: 1_000, seed: 7 });

    it('when a draft adds a 30-minute delay before everything, then every send moves by 30 minutes and nothing else changes but that delay', () => {
      const draft = corpusWorkflow([hourDelay('Hold', '30m'), fetchPlan, routeOnPlan()]);
      for (const run of corpus) {
        const result = whatIf(decider, run, draft);
        expect(result.replayed.sends.length).toBe(result.baseline.sends.length);
        const moved = result.changes.filter((change) => change.kind === 'send_moved');
        expect(moved).toHaveLength(result.baseline.sends.length);
        for (const change of moved) expect(change).toMatchObject({ by_ms: 0.5 * HOUR });
        // The gold branch's own delay moves with the run; the new one is the only delay added.
        expect(result.changes.filter((change) => change.kind === 'delay_moved').map((change) => change.kind === 'delay_moved' && change.node).sort()).toEqual(
          result.baseline.delays.length > 0 ? ['Hold', 'Wait an hour'] : ['Hold'],
        );
        expect(kinds(result.changes).filter((kind) => kind !== 'send_moved' && kind !== 'delay_moved')).toEqual([]);
      }
    });

    it('when a draft adds an HTTP node the runs never called, then each replay stops there and says so, calling nothing', () => {
      const hook = { node_type: 'httpapi_webhook', name: 'New hook', http_method: 'POST', url: 'https://new.example.com/hook' } as const;
      const replayed = replayRun(decider, corpus[0], corpusWorkflow([fetchPlan, hook as never, sendEmail()]));
      expect(replayed.status).toBe('stopped');
      expect(replayed.notes).toEqual([{ kind: 'no_recorded_response', node: 'New hook', path: 'nodes[1]' }]);
      expect(replayed.sends).toEqual([]);
    });
  });

  it('given a run waiting on a delay, then its replay sets no timer but fires it at its due time', () => {
    const [run] = recordedCorpus({ runs: 1, seed: 3, definition: corpusWorkflow([hourDelay(), sendEmail()]) });
    const replayed = replayRun(decider, run, corpusWorkflow([hourDelay(), sendEmail()]));
    expect(replayed.sends.map((send) => Date.parse(send.at) - run.started_at.getTime())).toEqual([HOUR]);
    expect(replayed.status).toBe('completed');
  });
});

describe('recorded runs rebuilt from a log', () => {
  it('given the logs of 300 runs (HTTP answers, cancels, delays), when their inputs are rebuilt and replayed, then every run decides its logged events again', () => {
    for (const run of recordedCorpus({ runs: 300, seed: 11, cancelled: 0.3 })) {
      const logged = replayRun(decider, run);
      // The log as the engine keeps it: each event with its step's time (a send's time is the step's).
      let at = run.started_at;
      const log = logged.events.map((event) => {
        if (event.type === 'delivery.requested.v1') at = new Date(event.delivery.requested_at);
        if (event.type === 'run.cancelled.v1') at = new Date(event.at);
        return { event, at };
      });
      const rebuilt = recordedRunOf(log, run.start.context);
      expect(rebuilt && replayRun(decider, rebuilt).events).toEqual(logged.events);
    }
  });
});
