import { LINGER_MIN_BYTES, LINGER_MS, LingeringGroup, applyFetchLinger, nextFetch, notingBusy } from './fetch-linger';

const batch = (empty: boolean) => ({ isEmpty: () => empty });

describe('fetch linger', () => {
  it('keeps the configured fetch while idle and asks for a fuller batch, briefly, while busy', () => {
    const group: LingeringGroup = { configuredMinBytes: 1, configuredMaxWaitTime: 500 };
    expect(nextFetch(group)).toEqual({ minBytes: 1, maxWaitTime: 500 });
    group.busy = true;
    expect(nextFetch(group)).toEqual({ minBytes: LINGER_MIN_BYTES, maxWaitTime: LINGER_MS });
    // Never waits longer, nor for less, than the consumer was configured to.
    expect(nextFetch({ configuredMinBytes: 1, configuredMaxWaitTime: 5, busy: true })).toEqual({ minBytes: LINGER_MIN_BYTES, maxWaitTime: 5 });
    expect(nextFetch({ configuredMinBytes: 1_000_000, configuredMaxWaitTime: 500, busy: true })).toEqual({ minBytes: 1_000_000, maxWaitTime: LINGER_MS });
  });

  it('notes a fetch that returned messages as busy and an empty one as idle, passing the batches through', async () => {
    const answers = [[batch(true), batch(false)], [batch(true)], []];
    const fetch = notingBusy(async (nodeId: string) => (nodeId === 'broker-1' ? answers.shift() ?? [] : []));
    const group: LingeringGroup = {};
    expect(await fetch.call(group, 'broker-1')).toHaveLength(2);
    expect(group.busy).toBe(true);
    expect(await fetch.call(group, 'broker-1')).toHaveLength(1);
    expect(group.busy).toBe(false);
    expect(await fetch.call(group, 'broker-1')).toHaveLength(0);
    expect(group.busy).toBe(false);
  });

  it("makes kafkajs's consumer group read its fetch settings through the linger, keeping what its constructor assigns", () => {
    applyFetchLinger();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ConsumerGroup: { prototype: object } = require('kafkajs/src/consumer/consumerGroup');
    const group = Object.create(ConsumerGroup.prototype) as LingeringGroup & { minBytes: number; maxWaitTime: number };
    // What kafkajs's constructor does with a consumer's options.
    group.minBytes = 1;
    group.maxWaitTime = 500;
    expect([group.minBytes, group.maxWaitTime]).toEqual([1, 500]);
    group.busy = true;
    expect([group.minBytes, group.maxWaitTime]).toEqual([LINGER_MIN_BYTES, LINGER_MS]);
  });
});
