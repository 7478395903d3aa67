import { DueLoop } from './due-loop';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Fake time: advances the clock, running the timers and promises due meanwhile. */
const pass = (ms: number) => jest.advanceTimersByTimeAsync(ms);

/** A loop whose rounds are recorded (start times, relative) and answer from `answers` in turn. */
function recordingLoop(answers: Array<number | undefined | Error>, options: { longestSleepMs?: number; afterFailureMs?: number; roundMs?: number } = {}) {
  const began = Date.now();
  const rounds: number[] = [];
  const errors: unknown[] = [];
  let inFlight = 0;
  let overlapped = false;
  const loop = new DueLoop(
    async () => {
      rounds.push(Date.now() - began);
      inFlight += 1;
      if (inFlight > 1) overlapped = true;
      if (options.roundMs !== undefined) await sleep(options.roundMs);
      inFlight -= 1;
      const answer = answers.length > 0 ? answers.shift() : undefined;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    { longestSleepMs: options.longestSleepMs ?? 10_000, afterFailureMs: options.afterFailureMs ?? 10_000, onError: (error) => errors.push(error) },
  );
  return { loop, rounds, errors, overlapped: () => overlapped };
}

describe('DueLoop', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs a round at once, then sleeps until the next row is due, at most the longest sleep', async () => {
    const { loop, rounds } = recordingLoop([80, undefined], { longestSleepMs: 150 });
    loop.start();
    await pass(300);
    await loop.stop();
    // At once; when the row is due; then, nothing due, the safety poll.
    expect(rounds).toEqual([0, 80, 230]);
  });

  it('wakes sooner when asked, and ignores a wake-up later than planned', async () => {
    const { loop, rounds } = recordingLoop([undefined, undefined, undefined]);
    loop.start();
    await pass(30);
    loop.wakeIn(20);
    loop.wakeIn(5_000);
    await pass(100);
    await loop.stop();
    expect(rounds).toEqual([0, 50]);
  });

  it('asked during a round, runs the next one after it, never two at once', async () => {
    const { loop, rounds, overlapped } = recordingLoop([undefined, undefined], { roundMs: 60 });
    loop.start();
    await pass(20);
    loop.wakeIn(0);
    await pass(150);
    await loop.stop();
    // The second starts as the first ends (60 ms; a zero timeout is 1 ms), not at 20.
    expect(rounds).toEqual([0, 61]);
    expect(overlapped()).toBe(false);
  });

  it('reports a failed round and tries again after the failure sleep', async () => {
    const failure = new Error('database unreachable');
    const { loop, rounds, errors } = recordingLoop([failure, undefined], { afterFailureMs: 50 });
    loop.start();
    await pass(120);
    await loop.stop();
    expect(errors).toEqual([failure]);
    expect(rounds).toEqual([0, 50]);
  });

  it('stop waits for the round in flight and ends the loop', async () => {
    const { loop, rounds } = recordingLoop([0, 0, 0], { roundMs: 40 });
    loop.start();
    await pass(10);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await pass(20);
    expect(stopped).toBe(false);
    await pass(20);
    await stopping;
    loop.wakeIn(0);
    await pass(100);
    expect(rounds).toEqual([0]);
  });
});
