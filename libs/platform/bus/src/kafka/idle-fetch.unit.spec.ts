import { sleep } from '../sleep';
import { IdleFetchingGroup, applyIdleFetch, endsMembership, interruptibleWhenIdle } from './idle-fetch';

/** A fetch the test answers by hand, and a group whose heartbeats it scripts. */
function setup(heartbeatAnswers: Array<Error | undefined> = []) {
  let answer!: (batches: string[]) => void;
  let fail!: (error: Error) => void;
  const fetches: string[] = [];
  const dropped: string[] = [];
  const fetch = function (this: IdleFetchingGroup, nodeId: string): Promise<string[]> {
    fetches.push(nodeId);
    return new Promise<string[]>((resolve, reject) => {
      answer = resolve;
      fail = reject;
    });
  };
  let heartbeats = 0;
  const group: IdleFetchingGroup = {
    heartbeat: () => {
      heartbeats += 1;
      const error = heartbeatAnswers.shift();
      return error ? Promise.reject(error) : Promise.resolve();
    },
  };
  const wrapped = interruptibleWhenIdle(fetch, (_group: IdleFetchingGroup, nodeId: string) => void dropped.push(nodeId), 10);
  return { group, wrapped, fetches, dropped, answer: (b: string[]) => answer(b), fail: (e: Error) => fail(e), heartbeats: () => heartbeats };
}

const protocolError = (type: string) => Object.assign(new Error(type), { type });

describe('idle fetch', () => {
  it('passes a busy consumer’s fetch through untouched: no heartbeats, nothing to abandon', async () => {
    const s = setup();
    s.group.busy = true;
    const fetched = s.wrapped.call(s.group, 'broker-1');
    expect(s.group.abandonIdleFetch).toBeUndefined();
    await sleep(40);
    s.answer(['batch']);
    await expect(fetched).resolves.toEqual(['batch']);
    expect(s.heartbeats()).toBe(0);
  });

  it('heartbeats while an idle fetch waits, and answers with what the fetch returns', async () => {
    const s = setup();
    const fetched = s.wrapped.call(s.group, 'broker-1');
    // Every 10 ms while the fetch waits; on a loaded machine later, never fewer: wait for three, however long they take.
    while (s.heartbeats() < 3) await sleep(5);
    s.answer(['a', 'b']);
    await expect(fetched).resolves.toEqual(['a', 'b']);
    const counted = s.heartbeats();
    await sleep(40);
    // The ticker stops with the fetch.
    expect(s.heartbeats()).toBe(counted);
    expect(s.group.abandonIdleFetch).toBeUndefined();
  });

  it('ends the fetch with the heartbeat’s error when it says the member must rejoin, and ignores other heartbeat failures', async () => {
    const s = setup([new Error('connection lost'), protocolError('REBALANCE_IN_PROGRESS')]);
    const fetched = s.wrapped.call(s.group, 'broker-1');
    await expect(fetched).rejects.toMatchObject({ type: 'REBALANCE_IN_PROGRESS' });
    expect(s.heartbeats()).toBe(2);
    // What the broker answers later is dropped.
    s.answer(['late']);
    expect(s.group.abandonIdleFetch).toBeUndefined();
  });

  it('is abandoned by a stop: no batches at once, and the request dropped on the client side', async () => {
    const s = setup();
    const fetched = s.wrapped.call(s.group, 'broker-7');
    s.group.abandonIdleFetch?.();
    await expect(fetched).resolves.toEqual([]);
    expect(s.dropped).toEqual(['broker-7']);
    expect(s.group.abandonIdleFetch).toBeUndefined();
    // The dropped request's failure reaches no one.
    s.fail(new Error('dropped'));
    await sleep(0);
  });

  it('passes a fetch’s own failure on', async () => {
    const s = setup();
    const fetched = s.wrapped.call(s.group, 'broker-1');
    s.fail(new Error('broker gone'));
    await expect(fetched).rejects.toThrow('broker gone');
  });

  it('names the answers that end a membership as kafkajs’s runner does (it rejoins on them)', () => {
    for (const type of ['REBALANCE_IN_PROGRESS', 'NOT_COORDINATOR_FOR_GROUP', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID']) {
      expect(endsMembership(protocolError(type))).toBe(true);
    }
    expect(endsMembership(protocolError('COORDINATOR_NOT_AVAILABLE'))).toBe(false);
    expect(endsMembership(new Error('socket hang up'))).toBe(false);
    expect(endsMembership(undefined)).toBe(false);
  });

  it('makes kafkajs’s runner abandon its idle fetch when it stops', async () => {
    applyIdleFetch();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Runner: { prototype: { stop(): Promise<void> } } = require('kafkajs/src/consumer/runner');
    let abandoned = 0;
    const runner = Object.create(Runner.prototype) as { consumerGroup: IdleFetchingGroup; running: boolean; stop(): Promise<void> };
    runner.consumerGroup = { heartbeat: () => Promise.resolve(), abandonIdleFetch: () => void (abandoned += 1) };
    runner.running = false; // kafkajs's own stop then returns at once
    await runner.stop();
    expect(abandoned).toBe(1);
  });
});
