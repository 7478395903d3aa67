import { InProcessBus } from './in-process-bus';

describe('InProcessBus backlog', () => {
  it("counts each group's unconsumed messages, only for groups with members, and drops to 0 once they are handled", async () => {
    const bus = new InProcessBus();
    await bus.ensureTopics([{ name: 'work', partitions: 3 }]);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let handled = 0;
    const slow = await bus.subscribe({ groupId: 'slow', topics: ['work'], handler: async () => gate.then(() => void handled++) });
    const gone = await bus.subscribe({ groupId: 'gone', topics: ['work'], handler: async () => gate });
    await gone.stop();

    await bus.publish('work', Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: 'v' })));
    expect(bus.unconsumedMessages()).toBe(10);
    expect(bus.unconsumedByGroup()).toEqual(new Map([['slow', 10]]));

    release();
    for (let i = 0; i < 100 && bus.unconsumedMessages() > 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(handled).toBe(10);
    expect(bus.unconsumedMessages()).toBe(0);
    expect(bus.unconsumedByGroup()).toEqual(new Map());
    await slow.stop();
    await bus.close();
  });
});

describe('InProcessBus backlog in bytes', () => {
  it('weighs what a group has not handled by its keys, values and headers, also once the handled prefix is dropped', async () => {
    const bus = new InProcessBus();
    await bus.ensureTopics([{ name: 'work', partitions: 1 }]);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let handled = 0;
    // Passes the small messages at once, holds the large ones until released.
    const slow = await bus.subscribe({
      groupId: 'slow',
      topics: ['work'],
      handler: async (message) => {
        if (message.value.length > 1) await gate;
        handled++;
      },
    });

    // More than the log's truncation chunk (1,024), so the handled prefix is dropped before the large ones arrive.
    await bus.publish('work', Array.from({ length: 1_100 }, () => ({ key: 'k', value: 'v' })));
    for (let i = 0; i < 1_000 && bus.unconsumedMessages() > 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(bus.unconsumedBytes()).toBe(0);

    // 2 (key) + 100 (value) + 1 + 3 (one header) = 106 bytes each; the one being handled still counts.
    await bus.publish('work', Array.from({ length: 3 }, () => ({ key: 'kk', value: 'x'.repeat(100), headers: { h: 'abc' } })));
    expect(bus.unconsumedMessages()).toBe(3);
    expect(bus.unconsumedBytes()).toBe(3 * 106);

    release();
    for (let i = 0; i < 100 && bus.unconsumedMessages() > 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(handled).toBe(1_103);
    expect(bus.unconsumedBytes()).toBe(0);
    await slow.stop();
    await bus.close();
  });
});
