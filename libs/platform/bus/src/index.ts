export * from './message-bus.port';
export { partitionFor } from './partitioner';
export { InProcessBus, InProcessBusOptions } from './in-process/in-process-bus';
export { DurabilityOptions, JournalOperation } from './in-process/durability';
export * from './journal/bus-journal.port';
export { PostgresBusJournal, PostgresBusJournalOptions } from './journal/postgres-bus-journal';
export { NamespacedBus } from './namespaced-bus';
export { KafkaBus, KafkaBusOptions, KafkaBusLogger } from './kafka/kafka-bus';
