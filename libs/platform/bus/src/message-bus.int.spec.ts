import { busTargets, databaseTargets, describeTarget } from '@herald/testing';
import { messageBusContract } from './contract/message-bus.contract';
import { InProcessBus } from './in-process/in-process-bus';
import { PostgresBusJournal } from './journal/postgres-bus-journal';
import { JournalTestDatabase, openJournalTestDatabase } from './journal/testing/journal-test-database';
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

describe.each(databaseTargets())('MessageBus contract on the in-process bus journaled to $kind', (target) => {
  let db: JournalTestDatabase;

  beforeAll(async () => {
    db = await openJournalTestDatabase(target);
  });
  afterAll(async () => {
    await db?.dispose();
  });

  it(`journals to ${describeTarget(target)}`, () => {
    expect(db.url).toBeDefined();
  });

  // Every test opens a new bus on the same journal, so each also restores the earlier tests' topics and groups.
  messageBusContract({
    createBus: async () => new InProcessBus({ journal: new PostgresBusJournal({ url: db.url }) }),
    rebalanceTimeoutMs: 1_000,
  });
});
