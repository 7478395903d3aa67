import { IncomingMessage, InProcessBus } from '@herald/bus';
import { Registry } from 'prom-client';
import { InstrumentedBus } from './metrics';

const message = (offset: number): IncomingMessage => ({
  topic: 'notify.test.v1',
  partition: 0,
  offset: String(offset),
  key: 'k',
  value: Buffer.from('{}'),
  headers: {},
  timestamp: 0,
  attempt: 1,
  origin: { topic: 'ns.notify.test.v1', groupId: 'ns.g' },
});

describe('InstrumentedBus', () => {
  it('observes how many messages each batch handler call was given, by topic and group', async () => {
    const registry = new Registry();
    let handed: ((messages: readonly IncomingMessage[]) => Promise<unknown>) | undefined;
    // The inner bus only records the handler it was given: the test calls it as a bus would.
    const inner = new InProcessBus();
    inner.subscribe = async (options) => {
      handed = options.batchHandler;
      return { groupId: options.groupId, assignment: () => [], lag: () => [], stop: async () => undefined };
    };
    const bus = new InstrumentedBus(inner, registry);
    await bus.subscribe({ groupId: 'g', topics: ['notify.test.v1'], handler: async () => undefined, batchHandler: async () => undefined });

    await handed?.([message(1), message(2), message(3)]);
    await handed?.([message(4)]);

    const text = await registry.metrics();
    expect(text).toContain('herald_bus_batch_messages_count{topic="notify.test.v1",group="g"} 2');
    expect(text).toContain('herald_bus_batch_messages_sum{topic="notify.test.v1",group="g"} 4');
    expect(text).toContain('herald_bus_batch_messages_bucket{le="2",topic="notify.test.v1",group="g"} 1');
    expect(text).toContain('herald_bus_messages_consumed_total{topic="notify.test.v1",group="g",outcome="ok"} 4');
  });
});
