import { CommittingRunner, applyDeferredCommits, deferredCommits } from './deferred-commit';

const protocolError = (type: string) => Object.assign(new Error(type), { type });
const batch = (messages: number) => ({ isEmpty: () => messages === 0 });

/** A runner whose group records what it was asked, in order. */
function runner(options: { autoCommit?: boolean } = {}) {
  const calls: string[] = [];
  const group = {
    commitOffsets: async () => void calls.push('commit'),
    leave: async () => void calls.push('leave'),
  };
  const r = {
    autoCommit: options.autoCommit ?? true,
    running: true,
    consumerGroup: group,
    autoCommitOffsetsIfNecessary: async () => void calls.push('commit if necessary'),
  } as unknown as CommittingRunner;
  return { r, group, calls };
}

describe('deferred commits', () => {
  it('commits after a batch only when the interval says so', async () => {
    const { r, calls } = runner();
    await deferredCommits.autoCommitOffsets().call(r);
    expect(calls).toEqual(['commit if necessary']);
  });

  it('commits what was resolved when a heartbeat says the group is rebalancing, and rethrows the heartbeat’s error', async () => {
    const { r, calls } = runner();
    const rebalancing = deferredCommits.heartbeat(async () => {
      throw protocolError('REBALANCE_IN_PROGRESS');
    });
    await expect(rebalancing.call(r)).rejects.toMatchObject({ type: 'REBALANCE_IN_PROGRESS' });
    expect(calls).toEqual(['commit']);

    calls.length = 0;
    const lost = deferredCommits.heartbeat(async () => {
      throw new Error('connection lost');
    });
    await expect(lost.call(r)).rejects.toThrow('connection lost');
    await deferredCommits.heartbeat(async () => undefined).call(r);
    expect(calls).toEqual([]);
  });

  it('keeps the heartbeat’s error when the commit after it fails too', async () => {
    const { r, group } = runner();
    group.commitOffsets = async () => {
      throw protocolError('ILLEGAL_GENERATION');
    };
    const heartbeat = deferredCommits.heartbeat(async () => {
      throw protocolError('REBALANCE_IN_PROGRESS');
    });
    await expect(heartbeat.call(r)).rejects.toMatchObject({ type: 'REBALANCE_IN_PROGRESS' });
  });

  it('commits when a fetch comes back without messages (the consumer goes idle), not while messages flow', async () => {
    const { r, calls } = runner();
    let answer = [batch(3), batch(0)];
    const fetch = deferredCommits.fetch(async () => answer);
    await expect(fetch.call(r, 'broker-1')).resolves.toHaveLength(2);
    expect(calls).toEqual([]);
    answer = [batch(0), batch(0)];
    await fetch.call(r, 'broker-1');
    answer = [];
    await fetch.call(r, 'broker-1');
    expect(calls).toEqual(['commit', 'commit']);
    calls.length = 0;
    (r as { running: boolean }).running = false;
    await fetch.call(r, 'broker-1');
    expect(calls).toEqual([]);
  });

  it('commits on stop after the batches in hand, before leaving the group, and restores the group’s own leave', async () => {
    const { r, group, calls } = runner();
    const prototypeLeave = group.leave;
    // kafkajs's stop: waits for the batch being handled, then leaves.
    const stop = deferredCommits.stop(async function (this: CommittingRunner) {
      calls.push('batch done');
      await this.consumerGroup.leave();
    });
    await stop.call(r);
    expect(calls).toEqual(['batch done', 'commit', 'leave']);
    expect(group.leave).toBe(prototypeLeave);
  });

  it('leaves the group on stop even when the commit fails', async () => {
    const { r, group, calls } = runner();
    group.commitOffsets = async () => {
      throw protocolError('REBALANCE_IN_PROGRESS');
    };
    await deferredCommits
      .stop(async function (this: CommittingRunner) {
        await this.consumerGroup.leave();
      })
      .call(r);
    expect(calls).toEqual(['leave']);
  });

  it('leaves consumers run without autoCommit alone', async () => {
    const { r, calls } = runner({ autoCommit: false });
    await deferredCommits.fetch(async () => []).call(r, 'broker-1');
    await expect(
      deferredCommits
        .heartbeat(async () => {
          throw protocolError('REBALANCE_IN_PROGRESS');
        })
        .call(r),
    ).rejects.toThrow();
    await deferredCommits
      .stop(async function (this: CommittingRunner) {
        await this.consumerGroup.leave();
      })
      .call(r);
    expect(calls).toEqual(['leave']);
  });

  it("replaces kafkajs's runner methods", () => {
    applyDeferredCommits();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Runner: { prototype: CommittingRunner } = require('kafkajs/src/consumer/runner');
    const { r, calls } = runner();
    void Runner.prototype.autoCommitOffsets.call(r);
    expect(calls).toEqual(['commit if necessary']);
  });
});
