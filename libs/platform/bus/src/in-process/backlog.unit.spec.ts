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
