import { busTargets, describeTarget } from '@herald/testing';
import { messageBusContract } from './contract/message-bus.contract';
import { InProcessBus } from './in-process/in-process-bus';
import { KafkaBus } from './kafka/kafka-bus';

describe.each(busTargets())('MessageBus contract on $kind', (target) => {
  // The describe title names the target so the CI log shows what ran where.
  it(`runs against ${describeTarget(target)}`, () => {
    expect(target.kind).toBeDefined();
  });

  switch (target.kind) {
    case 'in-process':
      messageBusContract({ createBus: async () => new InProcessBus(), rebalanceTimeoutMs: 1_000 });
      break;
    case 'kafka':
      messageBusContract({
        createBus: async () => {
          const bus = new KafkaBus({ brokers: target.brokers, clientId: 'herald-contract-test' });
          // Configured but unreachable fails here, loudly.
          await bus.checkHealth();
          return bus;
        },
        rebalanceTimeoutMs: 30_000,
      });
      break;
  }
});
